// Realm+Dynamic.swift — a Realm by class name: `dynamicObjects(_:)`,
// `dynamicObject(ofType:forPrimaryKey:)` and `dynamicCreate(_:value:update:)`, whose objects are
// DynamicObjects.

import Foundation

extension Realm {
    /// Every object of the class named `typeName`, as a live `Results` of `DynamicObject`s read
    /// and written by property name (filter, sort and aggregate them as any results). A name
    /// that is not a class of the Realm is a programmer error (Realm's message).
    ///
    ///     let dogs = realm.dynamicObjects("Dog").filter("age > 2").sorted(byKeyPath: "name")
    ///     dogs.first?["name"] as? String
    public func dynamicObjects(_ typeName: String) -> Results<DynamicObject> {
        core.checkThread()
        _ = core.dynamicTableInfo(named: typeName)
        return Results(core: core, query: ResultsQuery(objectClass: DynamicObject.self, typeName: typeName))
    }

    /// The object of the class named `typeName` whose primary key is `key`, as a
    /// `DynamicObject`, or nil. An unknown class, a class without a primary key, or a key of the
    /// wrong type is a programmer error (Realm's messages).
    ///
    ///     let rex = realm.dynamicObject(ofType: "Dog", forPrimaryKey: "Rex")
    ///     rex?["age"] as? Int
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        core.checkThread()
        // Without a table yet, the class's schema says whether it has a primary key.
        guard let table = core.dynamicTableInfo(named: typeName) else {
            let info = (configuration.objectTypes?.map(ObjectSchemaInfo.of) ?? ObjectSchemaInfo.defaultSchema)
                .first { $0.className == typeName }
            return info.flatMap { object(ofSchema: $0, in: { nil }, forPrimaryKey: key, of: type(of: key)) } as? DynamicObject
        }
        return object(ofSchema: table.schema, in: { table }, forPrimaryKey: key, of: type(of: key)) as? DynamicObject
    }

    /// Creates an object of the class named `typeName` from a dictionary, an array in property
    /// order or another object, as `create(_:value:update:)` creates one of its model class,
    /// and returns it as a `DynamicObject`. With `.modified` or `.all`, an existing object with
    /// the primary key is updated instead. Only in a write transaction; an unknown class, or an
    /// update policy for a class without a primary key, is a programmer error (Realm's
    /// messages).
    ///
    ///     let rex = try realm.write { realm.dynamicCreate("Dog", value: ["name": "Rex", "age": 3]) }
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error) -> DynamicObject {
        core.checkThread()
        // The class of that name: its table's (the model class the Realm reads it with), or
        // the schema's while the table is not written yet.
        let info = core.dynamicTableInfo(named: typeName).map { core.tableInfo(forKey: $0.tableKey).schema }
            ?? (configuration.objectTypes?.map(ObjectSchemaInfo.of) ?? ObjectSchemaInfo.defaultSchema).first { $0.className == typeName }
        if update != .error && info?.primaryKey == nil {
            throwRealmException("'\(typeName)' does not have a primary key and can not be updated")
        }
        guard let type = info?.objectClass as? Object.Type else {
            throwRealmException("Embedded objects cannot be created directly.")
        }
        return core.dynamicObject(of: create(type, value: value, update: update))
    }
}
