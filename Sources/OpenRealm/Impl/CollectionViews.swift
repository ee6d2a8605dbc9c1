// CollectionViews.swift — the Results views of List, MutableSet, LinkingObjects and Map (through
// which RealmCollection filters, sorts and aggregates their objects), and aggregates of
// collections of values (List<Int>.sum(), MutableSet<Date>.max(), Map<String, Double>.average()).

import CEngine
import Foundation

// MARK: - Collections of objects

/// Realm's message for a query, a sort or an observation of an unmanaged collection: it names
/// the Objective-C class behind the Swift one (`RLMArray` for List, `RLMSet` for MutableSet,
/// `RLMDictionary` for Map), as Realm's unmanaged collections do.
func unmanagedQueryFailure(_ kind: String) -> Never {
    let name = switch kind {
    case "List": "RLMArray"
    case "MutableSet": "RLMSet"
    case "Map": "RLMDictionary"
    default: kind
    }
    throwRealmException("This method may only be called on \(name) instances retrieved from an RLMRealm")
}

/// A live `Results` of a managed list, set or map: of its objects (the list's or set's in its
/// order, a map's non-nil values in key order), or of its values (`Results.Source.values`: they
/// sort and make distinct by `self`, and aggregate; filtering them stops, as in Realm). An
/// unmanaged collection is a programmer error (`kind` names it in the message).
func objectsView<Element: RealmCollectionValue>(_ managed: ManagedCollection?, _ kind: String) -> Results<Element> {
    guard let managed else { unmanagedQueryFailure(kind) }
    guard let objectClass = Element._ceLinkTarget else { return Results(values: managed) }
    // DynamicObjects (`dynamicList(_:)`) are read with their table's schema.
    let typeName = objectClass == DynamicObject.self ? managed.linkTargetName : nil
    return Results(core: managed.core, query: ResultsQuery(objectClass: objectClass, typeName: typeName, base: .collection(managed)))
}

/// Stops: a collection of values cannot be filtered. Realm's message, word for word (its plural
/// names the collection: "arrays", "sets", "dictionaries").
func valuesQueryFailure<Element>(_ collection: ManagedCollection, _: Element.Type) -> Never {
    let plural = switch collection.kind {
    case CE_COLLECTION_SET: "sets"
    case CE_COLLECTION_DICTIONARY: "dictionaries"
    default: "arrays"
    }
    throwRealmException("Querying is currently only implemented for \(plural) of Realm Objects")
}

// MARK: - Collections of values

/// An aggregate of a collection of values, by the engine: of the managed collection, or of the
/// unmanaged elements' values aggregated as the engine would once they are stored (exact
/// Decimal128 sums; the numbers among mixed values). Read back as the managed path reads values.
func valuesAggregate<Element: _CValueConvertible, T: _CValueConvertible>(
    _ managed: ManagedCollection?, _ unmanaged: [Element], _ kind: ce_aggregate, as _: T.Type
) -> T? {
    var value = ce_value()
    let ok: Bool
    if let managed {
        ok = ce_collection_aggregate(managed.read(), kind, &value)
    } else {
        let arena = _CArena()
        let values = unmanaged.map { $0._ceValue(arena, nil) }
        ok = withExtendedLifetime(arena) {
            values.withUnsafeBufferPointer { ce_values_aggregate($0.baseAddress, $0.count, Element._ceType, kind, &value) }
        }
    }
    guard ok else {
        if ce_last_error_code() == CE_ERR_WRONG_TYPE {
            throwRealmException("Invalid \(aggregateName(kind)) of a collection of \(Element.self): \(String(cString: ce_last_error_message()))")
        }
        engineFailure()
    }
    if value.isNull { return nil }
    return T._ceRead(aggregateValue(value, as: T._ceType), managed?.realm)
}

/// The aggregates of a collection of values by kind, for the collections' `min()`, `max()`,
/// `sum()` and `average()`.
func valuesMin<Element: _CValueConvertible, T: _CValueConvertible>(_ managed: ManagedCollection?, _ unmanaged: [Element], as _: T.Type) -> T? {
    valuesAggregate(managed, unmanaged, CE_AGGREGATE_MIN, as: T.self)
}
func valuesMax<Element: _CValueConvertible, T: _CValueConvertible>(_ managed: ManagedCollection?, _ unmanaged: [Element], as _: T.Type) -> T? {
    valuesAggregate(managed, unmanaged, CE_AGGREGATE_MAX, as: T.self)
}
/// The sum is nil (the caller's zero of its type: `.int(0)` for mixed values) for an empty
/// unmanaged collection and an empty managed map, as Realm gives them; the engine's otherwise
/// (an empty managed list or set of mixed values sums to `.decimal128(0)`, as realm-core's).
func valuesSum<Element: _CValueConvertible, T: _CValueConvertible>(_ managed: ManagedCollection?, _ unmanaged: [Element], as _: T.Type) -> T? {
    if let managed {
        if managed.kind == CE_COLLECTION_DICTIONARY && managed.count == 0 { return nil }
    } else if unmanaged.isEmpty {
        return nil
    }
    return unmanagedMixedAsDouble(valuesAggregate(managed, unmanaged, CE_AGGREGATE_SUM, as: T.self), managed)
}
func valuesAverage<Element: _CValueConvertible, T: _CValueConvertible>(_ managed: ManagedCollection?, _ unmanaged: [Element], as _: T.Type) -> T? {
    unmanagedMixedAsDouble(valuesAggregate(managed, unmanaged, CE_AGGREGATE_AVG, as: T.self), managed)
}

/// The sum or average of an unmanaged collection of mixed values as Realm gives it: a
/// `.double` (Realm aggregates unmanaged collections with Foundation's `@sum` and `@avg`, whose
/// decimal number reads back as a double); a managed collection's is realm-core's Decimal128.
private func unmanagedMixedAsDouble<T>(_ result: T?, _ managed: ManagedCollection?) -> T? {
    guard managed == nil, let mixed = result as? AnyRealmValue, case .decimal128(let decimal) = mixed else { return result }
    return AnyRealmValue.double(decimal.doubleValue) as? T
}
