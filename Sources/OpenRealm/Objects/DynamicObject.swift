// DynamicObject.swift — DynamicObject (MigrationObject): an object read and written by property name.

import Foundation

/// An object in a migration, read and written by property name (Realm's `MigrationObject`).
public typealias MigrationObject = DynamicObject

/// An object read and written by property name, without a model class (Realm's
/// `DynamicObject`): the objects of a migration, of `Realm.dynamicObjects(_:)` and
/// `dynamicObject(ofType:forPrimaryKey:)`, and of `dynamicList(_:)`, `dynamicMutableSet(_:)` and
/// `dynamicMap(_:)`. Its subscripts and key-value coding read a property (a link as a
/// `DynamicObject`, a collection as a `List`, `MutableSet` or `Map` of the property's element
/// type) and write one in a write transaction.
///
///     migration.enumerateObjects(ofType: "Person") { old, new in
///         let age = old?["age"] as? Int ?? 0
///         new?["isAdult"] = age >= 18
///         new?.nickname = "none"          // dynamic member lookup
///     }
///
///     let rex = realm.dynamicObject(ofType: "Dog", forPrimaryKey: "Rex")!
///     try realm.write { rex["age"] = 4 }
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// The transaction, table and row the object reads.
    var dynamic: (context: DynamicContext, table: TableKey, key: ObjectKey)?
    /// The unmanaged object this one stands for, in the collections `dynamicList(_:)`,
    /// `dynamicMutableSet(_:)` and `dynamicMap(_:)` give of an unmanaged object (Realm's are the
    /// object's own, its objects typed as DynamicObject): reads and writes go to it.
    var proxied: ObjectBase?

    /// The property named `member`, as `subscript(key:)`.
    ///
    ///     new?.name = "Ada"
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// The value of the property named `key`, as `subscript(key:)` (Realm's DynamicObject
    /// answers Foundation's undefined-key reads this way).
    ///
    ///     old.value(forUndefinedKey: "name") as? String
    public func value(forUndefinedKey key: String) -> Any? {
        self[key]
    }

    /// Sets the property named `key`, as `subscript(key:)`.
    ///
    ///     try realm.write { rex.setValue(4, forUndefinedKey: "age") }
    public func setValue(_ value: Any?, forUndefinedKey key: String) {
        self[key] = value
    }

    /// The class of the object's table in the schema of the transaction it reads (a
    /// migration's old or new schema), if it has one.
    var bindingSchema: ObjectSchema? {
        guard let dynamic else { return nil }
        return dynamic.context.schema?[dynamic.context.name(of: dynamic.table)]
    }

    /// The name of the object's table: `old?.objectTypeName == "Person"`.
    public var objectTypeName: String {
        if let proxied { return proxied._schemaInfo.className }
        guard let dynamic else { return _schemaInfo.className }
        return dynamic.context.name(of: dynamic.table)
    }
}
