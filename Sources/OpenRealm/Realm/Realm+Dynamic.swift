// Realm+Dynamic.swift — reading a Realm by class name: `dynamicObjects(_:)` and
// `dynamicObject(ofType:forPrimaryKey:)`, whose objects are DynamicObjects.

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
}
