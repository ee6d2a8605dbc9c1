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
/// collection in messages): the list's or set's in its order, a map's non-nil values in key
/// order. An unmanaged collection, or one of values, is a programmer error.
private func objectsView<Element: RealmCollectionValue>(_ managed: ManagedCollection?, _ kind: String, _ type: String) -> Results<Element> {
    guard let managed else { unmanagedQueryFailure(kind) }
    guard let objectClass = Element._ceLinkTarget else {
        throwRealmException("\(type) holds values, not objects: it cannot be filtered or sorted as Results.")
    }
    return Results(core: managed.core, query: ResultsQuery(objectClass: objectClass, base: .collection(managed)))
}

extension List {
    /// A live `Results` of the list's objects in its order (see `RealmCollectionBase`).
    ///
    ///     person.dogs._resultsView().count
    public func _resultsView() -> Results<Element> { objectsView(managed, "List", "List<\(Element.self)>") }
}

extension MutableSet {
    /// A live `Results` of the set's objects in its order (see `RealmCollectionBase`).
    ///
    ///     collections.dogSet._resultsView().count
    public func _resultsView() -> Results<Element> { objectsView(managed, "MutableSet", "MutableSet<\(Element.self)>") }
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
    public func _resultsView() -> Results<Value> { objectsView(managed, "Map", "Map<\(Key.self), \(Value.self)>") }
}

// MARK: - Collections of values

/// An aggregate of a collection of values: by the engine when managed, else over the unmanaged
/// elements' engine values, aggregated the same way; either way read back as the managed path
/// reads values.
private func valuesAggregate<Element: _CValueConvertible, T: _CValueConvertible>(
    _ managed: ManagedCollection?, _ unmanaged: [Element], _ kind: ce_aggregate, as _: T.Type
) -> T? {
    guard let managed else {
        let arena = _CArena()
        let value = aggregateValues(unmanaged.map { $0._ceValue(arena, nil) }, kind)
        if value.isNull { return nil }
        return T._ceRead(aggregateValue(value, as: T._ceType), nil)
    }
    var value = ce_value()
    guard ce_collection_aggregate(managed.read(), kind, &value) else {
        if ce_last_error_code() == CE_ERR_WRONG_TYPE {
            throwRealmException("Invalid \(aggregateName(kind)) of a collection of \(Element.self): \(String(cString: ce_last_error_message()))")
        }
        engineFailure()
    }
    if value.isNull { return nil }
    return T._ceRead(aggregateValue(value, as: T._ceType), managed.realm)
}

/// Aggregates engine values as the engine does: nulls skipped; min and max compare numbers by
/// value and dates by time; sum of none is 0; the average of integers is a double.
func aggregateValues(_ values: [ce_value], _ kind: ce_aggregate) -> ce_value {
    let present = values.filter { !$0.isNull }
    switch kind {
    case CE_AGGREGATE_MIN, CE_AGGREGATE_MAX:
        var best: ce_value?
        for value in present {
            guard let current = best else {
                best = value
                continue
            }
            if kind == CE_AGGREGATE_MIN ? valueLess(value, current) : valueLess(current, value) { best = value }
        }
        return best ?? .null
    case CE_AGGREGATE_COUNT:
        return .int(Int64(present.count))
    default:
        guard let first = present.first else { return kind == CE_AGGREGATE_SUM ? .int(0) : .null }
        var result = ce_value()
        switch first.type {
        case CE_TYPE_DECIMAL128:
            var sum = Decimal128(0)
            for value in present { sum += Decimal128(bits: value.decimal) }
            if kind == CE_AGGREGATE_AVG { sum /= Decimal128(present.count) }
            result.type = CE_TYPE_DECIMAL128
            result.decimal = sum.bits
        case CE_TYPE_INT where kind == CE_AGGREGATE_SUM:
            return .int(present.reduce(Int64(0)) { $0 &+ $1.integer })
        default:
            let sum = present.reduce(0.0) { $0 + numericValue($1) }
            result.type = CE_TYPE_DOUBLE
            result.double_value = kind == CE_AGGREGATE_AVG ? sum / Double(present.count) : sum
        }
        return result
    }
}

/// A number as a double (for unmanaged aggregates).
private func numericValue(_ value: ce_value) -> Double {
    switch value.type {
    case CE_TYPE_INT: Double(value.integer)
    case CE_TYPE_FLOAT: Double(value.float_value)
    case CE_TYPE_DOUBLE: value.double_value
    case CE_TYPE_DECIMAL128: Decimal128(bits: value.decimal).doubleValue
    case CE_TYPE_TIMESTAMP: Double(value.timestamp.seconds) + Double(value.timestamp.nanoseconds) / 1e9
    default: .nan
    }
}

/// The order min and max use: timestamps by time, decimals exactly, other numbers by value.
private func valueLess(_ a: ce_value, _ b: ce_value) -> Bool {
    if a.type == CE_TYPE_TIMESTAMP, b.type == CE_TYPE_TIMESTAMP {
        return (a.timestamp.seconds, a.timestamp.nanoseconds) < (b.timestamp.seconds, b.timestamp.nanoseconds)
    }
    if a.type == CE_TYPE_DECIMAL128, b.type == CE_TYPE_DECIMAL128 {
        return Decimal128(bits: a.decimal) < Decimal128(bits: b.decimal)
    }
    return numericValue(a) < numericValue(b)
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
