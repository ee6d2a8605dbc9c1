// Object+Dynamic.swift — the collections of links of any object as collections of
// DynamicObjects: `dynamicList(_:)`, `dynamicMutableSet(_:)` and `dynamicMap(_:)`.

import Foundation

extension Object {
    /// The list of objects in the property `propertyName`, its objects read as `DynamicObject`s
    /// (Realm's `dynamicList(_:)`): the object's own list, live and writable in a write
    /// transaction as the typed one. An unknown name, or a property that is no list of objects,
    /// is a programmer error. The list of a migration's new object, or of an unmanaged object,
    /// holds DynamicObjects of its objects and writes each change back to the object.
    ///
    ///     let dogs = person.dynamicList("dogs")
    ///     dogs[0]["name"] as? String
    ///     new?.dynamicList("dogs").append(migration.create("Dog", value: ["name": "Rex"]))
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        dynamicCollection(propertyName, .list) { List(managed: $0) }
    }

    /// The set of objects in the property `propertyName`, its objects read as `DynamicObject`s
    /// (Realm's `dynamicMutableSet(_:)`), as `dynamicList(_:)`.
    ///
    ///     person.dynamicMutableSet("friends").count
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        dynamicCollection(propertyName, .set) { MutableSet(managed: $0) }
    }

    /// The map of objects in the property `propertyName`, its objects read as `DynamicObject`s
    /// (Realm's `dynamicMap(_:)`): nil where the map holds no object. As `dynamicList(_:)`.
    ///
    ///     let pets: Map<String, DynamicObject?> = person.dynamicMap("pets")
    public func dynamicMap<Key: _MapKey>(_ propertyName: String) -> Map<Key, DynamicObject?> {
        dynamicCollection(propertyName, .map) { Map(managed: $0) }
    }
}
