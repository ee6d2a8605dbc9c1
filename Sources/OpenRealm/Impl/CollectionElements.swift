// CollectionElements.swift — what List, MutableSet and Map share about their elements: nested
// collections of mixed values, embedded objects, elements from loosely typed values.

import CEngine
import Foundation

/// Element types that may hold a nested list or dictionary (AnyRealmValue).
protocol _NestedCollectionHolder {
    /// The element for a nested collection of `type` (CE_TYPE_LIST or CE_TYPE_DICTIONARY).
    static func _nested(_ type: ce_type, _ collection: ManagedCollection) -> Any
}

/// For an element that is a list or dictionary of mixed values: a copy of its contents (taken
/// before the element is written) and how to write them into the new nested collection.
func nestedContents<T>(_ element: T) -> ((ManagedCollection) -> Void)? {
    guard let mixed = element as? AnyRealmValue else { return nil }
    switch mixed {
    case .list(let list):
        let items = Array(list)
        return { List<AnyRealmValue>(managed: $0).append(objectsIn: items) }
    case .dictionary(let map):
        let entries = map.asKeyValueSequence()
        return { collection in
            let nested = Map<String, AnyRealmValue>(managed: collection)
            for (key, value) in entries { nested.updateValue(value, forKey: key) }
        }
    default:
        return nil
    }
}

/// Stops with Realm's message for a negative index (`parameter` names the argument, as Realm's
/// message does) or one past the end.
func indexFailure(_ index: Int, _ count: Int, parameter: String = "index") -> Never {
    if index < 0 { throwRealmException("Cannot pass a negative value for '\(parameter)'.") }
    throwRealmException("Index \(index) is out of bounds (must be less than \(count)).")
}

/// Whether elements of `T` are embedded objects (created in place by their collection).
@inline(__always)
func isEmbedded<T: _CValueConvertible>(_ type: T.Type) -> Bool {
    T._ceLinkTarget.map { $0 is EmbeddedObject.Type } ?? false
}

/// The embedded object inside an element or property value (nil for nil): the value, an
/// optional's, or the persisted value of a custom persistable type mapped to an embedded object.
func embeddedObject(_ value: Any) -> EmbeddedObject? {
    if let object = value as? EmbeddedObject { return object }
    if let custom = value as? any _CustomPersistable { return embeddedObject(custom._rlmPersistableValue) }
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional, let child = mirror.children.first else { return nil }
    return embeddedObject(child.value)
}

/// Fills a new embedded object created by a collection from an unmanaged one.
func fillEmbedded(_ core: RealmCore, _ value: Any, _ key: ce_object_key) {
    guard let object = embeddedObject(value) else { return }
    if object._table != nil {
        throwRealmException("Cannot add an existing managed embedded object to a List.")
    }
    core.fill(object, core.requireTableInfo(for: type(of: object)), key)
}

/// Whether a value given for a collection is nil (an optional boxed in Any) or NSNull: Realm
/// takes it as an empty collection.
func isNoValue(_ value: Any) -> Bool {
    guard let unwrapped = unwrapOptional(value) else { return true }
    return unwrapped is NSNull
}

/// The elements of an array, list, set or other sequence, converted to `T`; nil if one is not.
func collectionElements<T: _CValueConvertible>(_ value: Any, _: T.Type) -> [T]? {
    if let same = value as? [T] { return same }
    // Realm takes nil and NSNull (nil from Objective-C) for a collection as no elements.
    if isNoValue(value) { return [] }
    var items: [Any] = []
    if let array = value as? [Any] {
        items = array
    } else if let sequence = value as? any Sequence {
        for item in sequence { items.append(item) }
    } else {
        return nil
    }
    var result: [T] = []
    result.reserveCapacity(items.count)
    for item in items {
        // A list holds no null link: not even for a CustomPersistable stored as an embedded
        // object, whose `_ceFromAny` reads null as its default (right for a property or a map).
        if T._ceLinkTarget != nil, !T._ceNullable, isNoValue(item) { return nil }
        guard let converted = T._ceFromAny(item) else { return nil }
        result.append(converted)
    }
    return result
}
