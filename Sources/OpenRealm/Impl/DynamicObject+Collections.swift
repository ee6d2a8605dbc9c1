// DynamicObject+Collections.swift — the collection properties of a migration's objects as
// Realm's typed collections (`List<MigrationObject>`, `List<Int>`, `MutableSet<String?>`,
// `Map<String, MigrationObject?>`, ...), and collections given to a new object's property.

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

/// The collections a migration's new objects give: each change is written back to the object.
protocol _WriteBackCollection: AnyObject {
    var _writeBack: (() -> Void)? { get set }
}

extension List: _WriteBackCollection {}
extension MutableSet: _WriteBackCollection {}
extension Map: _WriteBackCollection {}

extension DynamicObject {
    /// A migration object's collection as Realm types it: the elements (or entries) read from the
    /// file in a collection of the property's type (a new object's writes back each change:
    /// DynamicObject+Engine.swift).
    static func typedCollection(_ property: StoredProperty, elements: [Any], entries: [String: Any]) -> Any {
        func build<T: RealmCollectionValue>(_: T.Type) -> Any {
            func convert(_ value: Any) -> T { T._ceFromAny(value) ?? T._ceDefault() }
            switch property.collection {
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
        let nullable = property.nullable
        switch property.type {
        case CE_TYPE_INT: return nullable ? build(Int?.self) : build(Int.self)
        case CE_TYPE_BOOL: return nullable ? build(Bool?.self) : build(Bool.self)
        case CE_TYPE_FLOAT: return nullable ? build(Float?.self) : build(Float.self)
        case CE_TYPE_DOUBLE: return nullable ? build(Double?.self) : build(Double.self)
        case CE_TYPE_STRING: return nullable ? build(String?.self) : build(String.self)
        case CE_TYPE_BINARY: return nullable ? build(Data?.self) : build(Data.self)
        case CE_TYPE_TIMESTAMP: return nullable ? build(Date?.self) : build(Date.self)
        case CE_TYPE_DECIMAL128: return nullable ? build(Decimal128?.self) : build(Decimal128.self)
        case CE_TYPE_OBJECT_ID: return nullable ? build(ObjectId?.self) : build(ObjectId.self)
        case CE_TYPE_UUID: return nullable ? build(UUID?.self) : build(UUID.self)
        case CE_TYPE_MIXED: return build(AnyRealmValue.self)
        default:
            // Links: a map's values may be nil, a list's and set's may not.
            return property.collection == CE_COLLECTION_DICTIONARY ? build(DynamicObject?.self) : build(DynamicObject.self)
        }
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
