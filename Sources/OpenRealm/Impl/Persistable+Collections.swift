// Persistable+Collections.swift — how List, MutableSet, Map and LinkingObjects are @Persisted
// properties (_Persistable: shape, default, managed get and set, creation) and how `init(value:)`
// fills them (_AssignableCollection).

import CEngine
import Foundation

// MARK: - List

extension List: _Persistable {
    /// A collection is stored as itself.
    public typealias PersistedType = List<Element>

    public static func _rlmShape() -> _PropertyShape { _PropertyShape(Element.self, collection: CE_COLLECTION_LIST) }
    public static func _rlmDefault() -> List { List() }
    public static var _rlmCachesManagedValue: Bool { true }
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> List {
        List(managed: ManagedCollection(owner: object, column: column.key))
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: List) {
        let elements = Array(value)
        let list = _rlmGet(object, column)
        list.removeAll()
        list.append(objectsIn: elements)
    }
    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value { .null }
    /// The new object's collection gets this one's elements: kept here while unmanaged, or read
    /// from the managed collection it was given (`new.dogs = old.dogs`), snapshot first.
    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        if replace, isEmbedded(Element.self), let core = object._core, core.isAddingModified {
            List._rlmUpdateEmbedded(object, column, Array(self), core)
            return
        }
        List._rlmSet(object, column, self)
    }
    /// `add(_:update: .modified)` of a list of embedded objects, as realm-core's List::assign
    /// with a diffing policy: the embedded objects already at the new elements' positions take
    /// their values (the unmanaged elements become their accessors), the rest are appended,
    /// the extra ones removed.
    static func _rlmUpdateEmbedded(_ object: ObjectBase, _ column: _ManagedColumn, _ elements: [Element], _ core: RealmCore) {
        let list = _rlmGet(object, column)
        guard let managed = list.managed else { return list.append(objectsIn: elements) }
        let existing = list.count
        for (index, element) in elements.enumerated() {
            let current = index < existing ? managed.get(index) : ce_value.null
            if current.type == CE_TYPE_LINK, let embedded = embeddedObject(element), embedded._table == nil {
                core.fill(embedded, core.requireTableInfo(for: type(of: embedded)), current.link.key, inPlace: true)
            } else if index < existing {
                list.replace(index: index, object: element)
            } else {
                list.append(element)
            }
        }
        while list.count > elements.count { list.remove(at: list.count - 1) }
    }
    public static func _rlmFromAny(_ value: Any) -> List? {
        let list = List()
        guard list._assign(from: value) else { return nil }
        return list
    }
}

extension List {
    public func _rlmPromote(_ object: ObjectBase, _ column: _ManagedColumn) -> Bool {
        // A collection already managed (another object's), or one a migration writes back, stays.
        guard managed == nil, _writeBack == nil else { return false }
        managed = ManagedCollection(owner: object, column: column.key)
        unmanaged = []
        return true
    }
}

extension List: _AssignableCollection {
    func _assign(from value: Any) -> Bool {
        guard let elements = collectionElements(value, Element.self) else { return false }
        removeAll()
        append(objectsIn: elements)
        return true
    }
}

// MARK: - MutableSet

extension MutableSet: _Persistable {
    /// A collection is stored as itself.
    public typealias PersistedType = MutableSet<Element>

    public static func _rlmShape() -> _PropertyShape { _PropertyShape(Element.self, collection: CE_COLLECTION_SET) }
    public static func _rlmDefault() -> MutableSet { MutableSet() }
    public static var _rlmCachesManagedValue: Bool { true }
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> MutableSet {
        MutableSet(managed: ManagedCollection(owner: object, column: column.key))
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: MutableSet) {
        let elements = Array(value)
        let set = _rlmGet(object, column)
        set.removeAll()
        set.insert(objectsIn: elements)
    }
    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value { .null }
    /// The new object's collection gets this one's elements: kept here while unmanaged, or read
    /// from the managed collection it was given (`new.dogs = old.dogs`), snapshot first.
    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        MutableSet._rlmSet(object, column, self)
    }
    public static func _rlmFromAny(_ value: Any) -> MutableSet? {
        let set = MutableSet()
        guard set._assign(from: value) else { return nil }
        return set
    }
}

extension MutableSet {
    public func _rlmPromote(_ object: ObjectBase, _ column: _ManagedColumn) -> Bool {
        // A collection already managed (another object's), or one a migration writes back, stays.
        guard managed == nil, _writeBack == nil else { return false }
        managed = ManagedCollection(owner: object, column: column.key)
        unmanaged = []
        return true
    }
}

extension MutableSet: _AssignableCollection {
    func _assign(from value: Any) -> Bool {
        guard let elements = collectionElements(value, Element.self) else { return false }
        removeAll()
        insert(objectsIn: elements)
        return true
    }
}

// MARK: - Map

extension Map: _Persistable {
    /// A collection is stored as itself.
    public typealias PersistedType = Map<Key, Value>

    /// A map of CustomPersistable values mapped to an embedded object holds links, which may be
    /// null: as in Realm, its values are optional in the schema whether the Swift type's are or
    /// not (null reads as the default). A map of objects must say so (`Map<String, Dog?>`).
    public static func _rlmShape() -> _PropertyShape {
        var shape = _PropertyShape(Value.self, collection: CE_COLLECTION_DICTIONARY)
        if Value.self is any _CustomPersistable.Type, shape.linkTarget != nil { shape.nullable = true }
        return shape
    }
    public static func _rlmDefault() -> Map { Map() }
    public static var _rlmCachesManagedValue: Bool { true }
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> Map {
        Map(managed: ManagedCollection(owner: object, column: column.key))
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Map) {
        let entries = Array(value)
        let map = _rlmGet(object, column)
        map.removeAll()
        for entry in entries { map.updateValue(entry.value, forKey: entry.key) }
    }
    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value { .null }
    /// The new object's collection gets this one's elements: kept here while unmanaged, or read
    /// from the managed collection it was given (`new.dogs = old.dogs`), snapshot first.
    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        Map._rlmSet(object, column, self)
    }
    public static func _rlmFromAny(_ value: Any) -> Map? {
        let map = Map()
        guard map._assign(from: value) else { return nil }
        return map
    }
}

extension Map {
    public func _rlmPromote(_ object: ObjectBase, _ column: _ManagedColumn) -> Bool {
        // A collection already managed (another object's), or one a migration writes back, stays.
        guard managed == nil, _writeBack == nil else { return false }
        managed = ManagedCollection(owner: object, column: column.key)
        unmanaged = [:]
        return true
    }
}

/// A map of any key and value types, read as (key string, value) entries: what a Map property
/// takes from a Map of another value type.
protocol _MapEntriesReadable {
    var _entriesAsAny: [(String, Any)] { get }
}

extension Map: _MapEntriesReadable {
    var _entriesAsAny: [(String, Any)] { map { ($0.key._mapKeyString, $0.value as Any) } }
}

extension Map: _AssignableCollection {
    func _assign(from value: Any) -> Bool {
        var entries: [(Key, Value)] = []
        if let same = value as? Map<Key, Value> {
            entries = same.map { ($0.key, $0.value) }
        } else if isNoValue(value) {
            // Realm takes nil and NSNull for a collection as no entries.
        } else if let dictionary = value as? [String: Any] {
            for (key, item) in dictionary {
                guard let converted = Value._ceFromAny(item) else { return false }
                entries.append((Key(_mapKeyString: key), converted))
            }
        } else if let other = value as? _MapEntriesReadable {
            // A map of another value type (Map<String, Int> for Map<String, Int?>): Realm takes
            // any dictionary's entries, each converted as a value of this map.
            for (key, item) in other._entriesAsAny {
                guard let converted = Value._ceFromAny(item) else { return false }
                entries.append((Key(_mapKeyString: key), converted))
            }
        } else {
            return false
        }
        removeAll()
        for (key, value) in entries { updateValue(value, forKey: key) }
        return true
    }
}

// MARK: - LinkingObjects

extension LinkingObjects: _Persistable {
    /// A collection is stored as itself.
    public typealias PersistedType = LinkingObjects<Element>

    public static func _rlmShape() -> _PropertyShape {
        var shape = _PropertyShape(type: CE_TYPE_LINK, nullable: false, linkTarget: Element.self)
        shape.isLinkingObjects = true
        return shape
    }
    public static func _rlmDefault() -> LinkingObjects {
        throwRealmException("A LinkingObjects property must be declared with @Persisted(originProperty:).")
    }
    public static var _rlmCachesManagedValue: Bool { false }
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> LinkingObjects {
        let property = object._schemaInfo.properties[column.property]
        return LinkingObjects(propertyName: property.originProperty ?? "", owner: object)
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: LinkingObjects) {
        throwRealmException("LinkingObjects properties are read-only.")
    }
    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value { .null }
    public static func _rlmFromAny(_ value: Any) -> LinkingObjects? { nil }
    public var _rlmOriginProperty: String? { propertyName }
}
