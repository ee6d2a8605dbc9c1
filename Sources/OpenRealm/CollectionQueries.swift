// CollectionQueries.swift — the Results views of List, MutableSet and LinkingObjects (through which
// RealmCollection filters, sorts and aggregates their objects), the queries of a Map of objects
// (Results of its values), and aggregates of collections of values (List<Int>.sum(),
// MutableSet<Date>.max(), Map<String, Double>.average()).

import CEngine
import Foundation

// MARK: - Collections of objects

/// Realm's message for a query on an unmanaged collection.
private func unmanagedQueryFailure(_ kind: String) -> Never {
    throwRealmException("This method may only be called on \(kind) instances retrieved from a Realm.")
}

/// A live `Results` of the objects of a managed list, set or map of links (`kind` names the
/// collection in messages, `plural` as Realm's message does: "arrays", "sets", "dictionaries"):
/// the list's or set's in its order, a map's non-nil values in key order. An unmanaged
/// collection, or one of values, is a programmer error (Realm does not query collections of
/// values either).
private func objectsView<Element: RealmCollectionValue>(_ managed: ManagedCollection?, _ kind: String, _ plural: String,
                                                        _ type: String) -> Results<Element> {
    guard let managed else { unmanagedQueryFailure(kind) }
    guard let objectClass = Element._ceLinkTarget else {
        throwRealmException("Querying is currently only implemented for \(plural) of Realm Objects "
            + "(\(type) holds values, not objects: it cannot be filtered or sorted as Results).")
    }
    return Results(core: managed.core, query: ResultsQuery(objectClass: objectClass, base: .collection(managed)))
}

extension List {
    /// A live `Results` of the list's objects in its order (see `RealmCollectionBase`).
    ///
    ///     person.dogs._resultsView().count
    public func _resultsView() -> Results<Element> { objectsView(managed, "List", "arrays", "List<\(Element.self)>") }
}

extension MutableSet {
    /// A live `Results` of the set's objects in its order (see `RealmCollectionBase`).
    ///
    ///     collections.dogSet._resultsView().count
    public func _resultsView() -> Results<Element> { objectsView(managed, "MutableSet", "sets", "MutableSet<\(Element.self)>") }
}

extension LinkingObjects where Element: RealmCollectionValue {
    /// A live `Results` of the linking objects, in key order (see `RealmCollectionBase`).
    ///
    ///     rex.owners._resultsView().count
    public func _resultsView() -> Results<Element> {
        guard let owner, let core = owner._core, owner._table != nil else { unmanagedQueryFailure("LinkingObjects") }
        return Results(core: core, query: ResultsQuery(objectClass: Element.self, base: .backlinks(owner: owner, property: propertyName)))
    }
}

// MARK: - Maps of objects

// A Map of objects is filtered, sorted and aggregated by property as the collections are
// (`_ResultsViewable`): `filter(_:_:)`, `where`, `sorted(byKeyPath:ascending:)`, `sorted(by:)` and
// `min/max/sum/average(ofProperty:)` give or read Results of its values, as in Realm:
//
//     let oldPets = person.pets.filter("age > %@", 10)     // Map<String, Dog?>: Results<Dog?>
//     let youngest: Int? = person.pets.min(ofProperty: "age")
extension Map: _ResultsViewable {
    /// A live `Results` of the map's objects: its non-nil values, in key order (nil values are not
    /// objects and are left out). The map must be managed and hold objects (Realm's rules).
    ///
    ///     person.pets._resultsView().count    // the keys with a dog
    public func _resultsView() -> Results<Value> { objectsView(managed, "Map", "dictionaries", "Map<\(Key.self), \(Value.self)>") }
}

// MARK: - Collections of values

/// An aggregate of a collection of values, by the engine: of the managed collection, or of the
/// unmanaged elements' values aggregated as the engine would once they are stored (exact
/// Decimal128 sums; the numbers among mixed values). Read back as the managed path reads values.
private func valuesAggregate<Element: _CValueConvertible, T: _CValueConvertible>(
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

extension List where Element: _QueryComparable {
    /// The values sorted (nil first; strings by code points), as live `Results`. A managed list
    /// only (Realm's rule).
    ///
    ///     let ranked = person.scores.sorted(ascending: false)    // List<Int>
    public func sorted(ascending: Bool = true) -> Results<Element> {
        guard let managed else { unmanagedQueryFailure("List") }
        return Results(sortedValues: managed, ascending: ascending)
    }
}

extension MutableSet where Element: _QueryComparable {
    /// The values sorted (nil first; strings by code points), as live `Results`. A managed set
    /// only (Realm's rule).
    ///
    ///     let ordered = person.luckyNumbers.sorted(ascending: false)    // MutableSet<Int>
    public func sorted(ascending: Bool = true) -> Results<Element> {
        guard let managed else { unmanagedQueryFailure("MutableSet") }
        return Results(sortedValues: managed, ascending: ascending)
    }
}

extension List where Element: MinMaxType {
    /// The smallest element (nil elements skipped), nil if there is none.
    ///
    ///     person.scores.min()    // List<Int>
    public func min() -> Element? { valuesAggregate(managed, unmanaged, CE_AGGREGATE_MIN, as: Element.self) }

    /// The largest element (nil elements skipped), nil if there is none.
    ///
    ///     person.scores.max()
    public func max() -> Element? { valuesAggregate(managed, unmanaged, CE_AGGREGATE_MAX, as: Element.self) }
}

extension List where Element: AddableType {
    /// The sum of the elements (0 for none; nil elements skipped).
    ///
    ///     let total = person.scores.sum()
    public func sum() -> Element {
        valuesAggregate(managed, unmanaged, CE_AGGREGATE_SUM, as: Element.self) ?? Element._ceFromAny(0)!
    }

    /// The average of the elements, nil for none (nil elements skipped).
    ///
    ///     let mean: Double? = person.scores.average()
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        valuesAggregate(managed, unmanaged, CE_AGGREGATE_AVG, as: T.self)
    }
}

extension MutableSet where Element: MinMaxType {
    /// The smallest element (nil elements skipped), nil if there is none.
    ///
    ///     person.luckyNumbers.min()    // MutableSet<Int>
    public func min() -> Element? { valuesAggregate(managed, unmanaged, CE_AGGREGATE_MIN, as: Element.self) }

    /// The largest element (nil elements skipped), nil if there is none.
    ///
    ///     person.luckyNumbers.max()
    public func max() -> Element? { valuesAggregate(managed, unmanaged, CE_AGGREGATE_MAX, as: Element.self) }
}

extension MutableSet where Element: AddableType {
    /// The sum of the elements (0 for none; nil elements skipped).
    ///
    ///     let total = person.luckyNumbers.sum()
    public func sum() -> Element {
        valuesAggregate(managed, unmanaged, CE_AGGREGATE_SUM, as: Element.self) ?? Element._ceFromAny(0)!
    }

    /// The average of the elements, nil for none (nil elements skipped).
    ///
    ///     let mean: Double? = person.luckyNumbers.average()
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        valuesAggregate(managed, unmanaged, CE_AGGREGATE_AVG, as: T.self)
    }
}

extension Map where Value: MinMaxType {
    /// The smallest value (nil values skipped), nil if there is none.
    ///
    ///     person.scores.min()    // Map<String, Int>
    public func min() -> Value? { valuesAggregate(managed, Array(unmanaged.values), CE_AGGREGATE_MIN, as: Value.self) }

    /// The largest value (nil values skipped), nil if there is none.
    ///
    ///     person.scores.max()
    public func max() -> Value? { valuesAggregate(managed, Array(unmanaged.values), CE_AGGREGATE_MAX, as: Value.self) }
}

extension Map where Value: AddableType {
    /// The sum of the values (0 for none; nil values skipped).
    ///
    ///     let total = person.scores.sum()
    public func sum() -> Value {
        valuesAggregate(managed, Array(unmanaged.values), CE_AGGREGATE_SUM, as: Value.self) ?? Value._ceFromAny(0)!
    }

    /// The average of the values, nil for none (nil values skipped).
    ///
    ///     let mean: Double? = person.scores.average()
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        valuesAggregate(managed, Array(unmanaged.values), CE_AGGREGATE_AVG, as: T.self)
    }
}
