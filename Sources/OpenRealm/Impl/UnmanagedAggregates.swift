// UnmanagedAggregates.swift — min, max, sum and average of a property over the objects of an
// unmanaged List or MutableSet, or of `self` over the values of an unmanaged List, MutableSet
// or Map (Realm computes them for unmanaged collections too).

import CEngine
import Foundation

/// A collection that may hold unmanaged objects: List, MutableSet and Map (its values).
protocol UnmanagedObjectsHolder {
    /// The collection's objects while it is unmanaged and holds objects; nil when managed (its
    /// aggregates are then the engine's, through its `Results` view) or holding values.
    var unmanagedObjects: [ObjectBase]? { get }
}

extension List: UnmanagedObjectsHolder {
    var unmanagedObjects: [ObjectBase]? {
        guard managed == nil, Element._ceLinkTarget != nil else { return nil }
        return unmanaged.compactMap { $0 as Any as? ObjectBase }
    }
}

extension MutableSet: UnmanagedObjectsHolder {
    var unmanagedObjects: [ObjectBase]? {
        guard managed == nil, Element._ceLinkTarget != nil else { return nil }
        return unmanaged.compactMap { $0 as Any as? ObjectBase }
    }
}

extension Map: UnmanagedObjectsHolder {
    /// The objects of an unmanaged map's values (nil values skipped).
    var unmanagedObjects: [ObjectBase]? {
        guard managed == nil, Value._ceLinkTarget != nil else { return nil }
        return unmanaged.values.compactMap { $0 as Any as? ObjectBase }
    }
}

/// A collection that may hold unmanaged values: List, MutableSet and Map (its values). Their
/// `min(ofProperty: "self")` and the other aggregates of `self` are computed over them.
protocol UnmanagedValuesHolder {
    /// The values while the collection is unmanaged and holds values, read as `T` (its element
    /// type); nil when managed or holding objects.
    func unmanagedValues<T>(as _: T.Type) -> [T]?
}

extension List: UnmanagedValuesHolder {
    func unmanagedValues<T>(as _: T.Type) -> [T]? {
        guard managed == nil, Element._ceLinkTarget == nil else { return nil }
        return unmanaged as? [T]
    }
}

extension MutableSet: UnmanagedValuesHolder {
    func unmanagedValues<T>(as _: T.Type) -> [T]? {
        guard managed == nil, Element._ceLinkTarget == nil else { return nil }
        return unmanaged as? [T]
    }
}

extension Map: UnmanagedValuesHolder {
    func unmanagedValues<T>(as _: T.Type) -> [T]? {
        guard managed == nil, Value._ceLinkTarget == nil else { return nil }
        return Array(unmanaged.values) as? [T]
    }
}

/// An aggregate of the property `name` over unmanaged objects, computed by the engine's
/// aggregator over their values, so that it is the value the managed collection would give.
/// A property that is not there, or not of a type the aggregate takes, is a programmer error.
func unmanagedAggregate<T: _CValueConvertible>(_ objects: [ObjectBase], _ name: String, _ kind: ce_aggregate,
                                               as _: T.Type) -> T? {
    let arena = _CArena()
    var values: [ce_value] = []
    var type: ce_type?
    values.reserveCapacity(objects.count)
    for object in objects {
        let info = object._schemaInfo
        guard let index = info.indexByName[name], info.properties[index].isStored,
              info.properties[index].shape.collection == CE_COLLECTION_NONE else {
            throwRealmException("Invalid property name '\(name)' for class '\(info.className)' in \(aggregateName(kind)).")
        }
        type = info.properties[index].shape.type
        guard let value = unwrapOptional(object._value(of: index)) else {
            values.append(.null)
            continue
        }
        guard let convertible = value as? any _CValueConvertible else {
            throwRealmException("Invalid \(aggregateName(kind)) on property '\(info.className).\(name)'.")
        }
        values.append(convertible._ceValue(arena, nil))
    }
    var result = ce_value()
    let ok = withExtendedLifetime(arena) {
        values.withUnsafeBufferPointer { ce_values_aggregate($0.baseAddress, $0.count, type ?? T._ceType, kind, &result) }
    }
    guard ok else {
        throwRealmException("Invalid \(aggregateName(kind)) on property '\(name)': \(String(cString: ce_last_error_message()))")
    }
    if result.isNull { return nil }
    return T._ceRead(aggregateValue(result, as: T._ceType), nil)
}

/// The aggregates of `unmanagedAggregate` by kind, for the collections' `min(ofProperty:)`,
/// `max(ofProperty:)`, `sum(ofProperty:)` (0 when there is no value) and `average(ofProperty:)`.
func unmanagedPropertyAggregateMin<T: _CValueConvertible>(_ objects: [ObjectBase], _ name: String, as _: T.Type) -> T? {
    unmanagedAggregate(objects, name, CE_AGGREGATE_MIN, as: T.self)
}
func unmanagedPropertyAggregateMax<T: _CValueConvertible>(_ objects: [ObjectBase], _ name: String, as _: T.Type) -> T? {
    unmanagedAggregate(objects, name, CE_AGGREGATE_MAX, as: T.self)
}
func unmanagedPropertySum<T: _CValueConvertible>(_ objects: [ObjectBase], _ name: String, as _: T.Type) -> T {
    unmanagedAggregate(objects, name, CE_AGGREGATE_SUM, as: T.self) ?? T._ceRead(aggregateValue(.int(0), as: T._ceType), nil)
}
func unmanagedPropertyAggregateAverage<T: _CValueConvertible>(_ objects: [ObjectBase], _ name: String, as _: T.Type) -> T? {
    unmanagedAggregate(objects, name, CE_AGGREGATE_AVG, as: T.self)
}
