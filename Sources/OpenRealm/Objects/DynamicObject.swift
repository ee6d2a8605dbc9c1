// DynamicObject.swift — DynamicObject (MigrationObject): an object read and written by property name.

import Foundation

/// An object in a migration, read and written by property name (Realm's `MigrationObject`).
public typealias MigrationObject = DynamicObject

/// An object read and written by property name, without a model class: the objects of a
/// migration (Realm's `DynamicObject`).
///
///     migration.enumerateObjects(ofType: "Person") { old, new in
///         let age = old?["age"] as? Int ?? 0
///         new?["isAdult"] = age >= 18
///         new?.nickname = "none"          // dynamic member lookup
///     }
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// The transaction, table and row the object reads.
    var dynamic: (context: DynamicContext, table: TableKey, key: ObjectKey)?

    /// The property named `member`, as `subscript(key:)`.
    ///
    ///     new?.name = "Ada"
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// The list of objects in the property `propertyName` (Realm's `dynamicList(_:)`); an
    /// unknown name, or a property that is no list of objects, is a programmer error. A new
    /// object's list writes each change back to the object.
    ///
    ///     new?.dynamicList("dogs").append(migration.create("Dog", value: ["name": "Rex"]))
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        collection(propertyName, as: List<DynamicObject>.self)
    }

    /// The set of objects in the property `propertyName` (Realm's `dynamicMutableSet(_:)`).
    ///
    ///     old?.dynamicMutableSet("friends").count
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        collection(propertyName, as: MutableSet<DynamicObject>.self)
    }

    /// The map of objects in the property `propertyName` (Realm's `dynamicMap(_:)`); its values
    /// are nil where the map holds no object.
    ///
    ///     let pets: Map<String, DynamicObject?> = old!.dynamicMap("pets")
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        collection(propertyName, as: Map<Key, DynamicObject?>.self)
    }

    private func collection<C>(_ propertyName: String, as type: C.Type) -> C {
        let value = self[propertyName]
        guard let collection = value as? C else {
            throwRealmException("Could not cast value of type '\(value.map { "\(Swift.type(of: $0))" } ?? "nil")' to '\(C.self)': "
                + "property '\(objectTypeName).\(propertyName)' holds no \(C.self).")
        }
        return collection
    }

    /// The name of the object's table: `old?.objectTypeName == "Person"`.
    public var objectTypeName: String {
        guard let dynamic else { return "DynamicObject" }
        return dynamic.context.name(of: dynamic.table)
    }
}
