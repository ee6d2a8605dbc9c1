// DynamicObject+Collections.swift — the collection properties of a migration's objects as
// Realm's typed collections (`List<MigrationObject>`, `List<Int>`, `MutableSet<String?>`,
// `Map<String, MigrationObject?>`, ...), collections given to a new object's property, and the
// collections of objects of any object as collections of DynamicObjects (`dynamicList(_:)`).

import CEngine
import Foundation

/// A map's entries by key string, whatever its value type.
protocol _AnyMapEntries {
    var _anyEntries: [String: Any] { get }
}

extension Map: _AnyMapEntries {
    var _anyEntries: [String: Any] {
        Dictionary(uniqueKeysWithValues: asKeyValueSequence().map { ($0.key._mapKeyString, $0.value as Any) })
    }
}

/// The collections a migration's new objects give, and the dynamic collections of an unmanaged
/// object: each change is written back to the object.
protocol _WriteBackCollection: AnyObject {
    var _writeBack: (() -> Void)? { get set }
    var _dynamicClassName: String? { get set }
}

extension List: _WriteBackCollection {}
extension MutableSet: _WriteBackCollection {}
extension Map: _WriteBackCollection {}

/// The kinds of collection `dynamicList(_:)`, `dynamicMutableSet(_:)` and `dynamicMap(_:)` give.
enum DynamicCollectionKind {
    case list, set, map

    var engineKind: ce_collection_type {
        switch self {
        case .list: CE_COLLECTION_LIST
        case .set: CE_COLLECTION_SET
        case .map: CE_COLLECTION_DICTIONARY
        }
    }
}

extension Object {
    /// The collection of links `propertyName` of this object as a collection `C` of
    /// DynamicObjects: a migration object's typed collection; a managed object's own, through
    /// `make` (live); an unmanaged object's written back to it. Stops, with Realm's message, for
    /// an unknown name; for a property that is no collection of `kind` of links.
    func dynamicCollection<C>(_ propertyName: String, _ kind: DynamicCollectionKind, make: (ManagedCollection) -> C) -> C {
        if let proxied = (self as? DynamicObject)?.proxied as? Object { return proxied.dynamicCollection(propertyName, kind, make: make) }
        if let migrated = self as? DynamicObject, migrated.dynamic != nil {
            let value = self[propertyName]
            guard let collection = value as? C else { dynamicCollectionFailure(propertyName, value, C.self) }
            return collection
        }
        let info = _schemaInfo
        guard let index = info.indexByName[propertyName] else {
            throwRealmException("Invalid property name '\(propertyName)' for class '\(info.className)'.")
        }
        let shape = info.properties[index].shape
        guard shape.collection == kind.engineKind, shape.type == CE_TYPE_LINK, !shape.isLinkingObjects else {
            dynamicCollectionFailure(propertyName, _value(of: index), C.self)
        }
        guard let table = _table else { return unmanagedDynamicCollection(index, kind) as! C }
        if isInvalidated { throwRealmException(invalidatedObjectMessage) }
        return make(ManagedCollection(owner: self, column: table.columns[index].key))
    }

    /// The collection `index` of an unmanaged object as a collection of DynamicObjects: its
    /// objects as DynamicObjects (an unmanaged one through one that stands for it, `proxied`),
    /// each change written back to the object's collection.
    private func unmanagedDynamicCollection(_ index: Int, _ kind: DynamicCollectionKind) -> Any {
        let property = _schemaInfo.properties[index]
        let value = _value(of: index)
        func dynamic(_ element: Any) -> DynamicObject? {
            guard let object = unwrapOptional(element) as? ObjectBase else { return nil }
            if let dynamic = object as? DynamicObject { return dynamic }
            if let core = object._core, object._table != nil { return core.dynamicObject(of: object) }
            let proxy = DynamicObject()
            proxy.proxied = object
            return proxy
        }
        // The object a DynamicObject stands for (a managed one converts as the property's
        // class reads it: Object._ceFromAny).
        func typed(_ element: DynamicObject?) -> Any { element.map { $0.proxied ?? $0 } ?? NSNull() }
        let name = property.name
        switch kind {
        case .list, .set:
            let elements = ((value as? any Sequence).map { Array($0) as [Any] } ?? []).compactMap(dynamic)
            if kind == .list {
                let list = List<DynamicObject>()
                list.append(objectsIn: elements)
                list._writeBack = { [unowned list] in self[name] = list.map(typed) }
                return list
            }
            let set = MutableSet<DynamicObject>()
            set.insert(objectsIn: elements)
            set._writeBack = { [unowned set] in self[name] = set.map(typed) }
            return set
        case .map:
            let map = Map<String, DynamicObject?>()
            for (key, element) in (value as? _AnyMapEntries)?._anyEntries ?? [:] { map[key] = .some(dynamic(element)) }
            map._writeBack = { [unowned map] in
                self[name] = Dictionary(uniqueKeysWithValues: map.asKeyValueSequence().map { ($0.key, typed($0.value)) })
            }
            return map
        }
    }

    /// Stops: the property holds no collection of the type asked for.
    private func dynamicCollectionFailure(_ propertyName: String, _ value: Any?, _ type: Any.Type) -> Never {
        let className = (self as? DynamicObject)?.objectTypeName ?? _schemaInfo.className
        throwRealmException("Could not cast value of type '\(value.map { "\(Swift.type(of: $0))" } ?? "nil")' to '\(type)': "
            + "property '\(className).\(propertyName)' holds no \(type).")
    }
}

extension DynamicObject {
    /// A migration object's collection as Realm types it: the elements (or entries) read from the
    /// file in a collection of the property's type (a new object's writes back each change:
    /// DynamicObject+Engine.swift).
    static func typedCollection(_ property: StoredProperty, elements: [Any], entries: [String: Any]) -> Any {
        let typed = visitElementType(property.type, nullable: property.type == CE_TYPE_LINK ? property.linksMayBeNil : property.nullable,
                                     TypedCollection(collection: property.collection, elements: elements, entries: entries))
        // Its DynamicObjects are of the link's target class, as its description says.
        if property.type == CE_TYPE_LINK, let collection = typed as? _WriteBackCollection {
            collection._dynamicClassName = property.targetName
        }
        return typed
    }

    /// A value given to a collection property: an array, a dictionary, or one of Realm's
    /// collections (a list, set or map, an old object's among them) as an array or dictionary.
    static func collectionContents(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if value is [Any] || value is [String: Any] { return value }
        if let map = value as? _AnyMapEntries { return map._anyEntries }
        if let sequence = value as? any Sequence { return Array(sequence) as [Any] }
        return value
    }
}

/// An unmanaged collection of a migration object's property holding what the file holds.
private struct TypedCollection: _ElementTypeVisitor {
    let collection: ce_collection_type
    let elements: [Any]
    let entries: [String: Any]

    func visit<T: RealmCollectionValue>(_: T.Type) -> Any {
        func convert(_ value: Any) -> T { T._ceFromAny(value) ?? T._ceDefault() }
        switch collection {
        case CE_COLLECTION_LIST:
            let list = List<T>()
            list.append(objectsIn: elements.map(convert))
            return list
        case CE_COLLECTION_SET:
            let set = MutableSet<T>()
            set.insert(objectsIn: elements.map(convert))
            return set
        default:
            let map = Map<String, T>()
            for (key, value) in entries { map[key] = convert(value) }
            return map
        }
    }
}
