// RealmCollection+Values.swift — what Realm offers on every collection of values (Results, List,
// MutableSet, AnyRealmCollection, and a Map's values): sorted(ascending:), distinct(), min(),
// max(), sum() and average(), through the key path `self`, as Realm's own are (min, max and sum
// of optional values also as the wrapped type, as Realm's), for values of every type whose
// persisted type allows it (PersistableEnum and CustomPersistable values included).

import Foundation

extension RealmCollection where Element.PersistedType: SortableType {
    /// The values sorted (nil first when ascending; strings by code points; a collection of
    /// `AnyRealmValue` by type first), as live `Results`. A managed collection only (Realm's
    /// rule); the sort is stable and chains with `distinct()`.
    ///
    ///     let ranked = person.scores.sorted(ascending: false)     // List<Int>
    ///     let newest = person.visits.sorted(ascending: false)     // MutableSet<Date>
    public func sorted(ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: "self", ascending: ascending)])
    }

    /// The values with the first of each distinct value kept, in the collection's order, as
    /// live `Results`. A managed collection only (Realm's rule).
    ///
    ///     let eachScoreOnce = person.scores.distinct().sorted(ascending: true)
    public func distinct() -> Results<Element> {
        distinct(by: ["self"])
    }
}

extension RealmCollection where Element.PersistedType: MinMaxType {
    /// The smallest value (nil values skipped), nil if there is none.
    ///
    ///     person.scores.sorted(ascending: true).min()
    public func min() -> Element? {
        min(ofProperty: "self")
    }

    /// The largest value (nil values skipped), nil if there is none.
    ///
    ///     person.scores.distinct().max()
    public func max() -> Element? {
        max(ofProperty: "self")
    }
}

extension RealmCollection where Element.PersistedType: AddableType {
    /// The sum of the values (0 for none; nil values skipped).
    ///
    ///     let total = person.scores.distinct().sum()
    public func sum() -> Element {
        sum(ofProperty: "self")
    }

    /// The average of the values, nil for none (nil values skipped).
    ///
    ///     let mean: Double? = person.scores.distinct().average()
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        average(ofProperty: "self")
    }
}

extension RealmCollection where Element: OptionalProtocol, Element.Wrapped: _HasPersistedType,
    Element.Wrapped.PersistedType: MinMaxType {
    /// The smallest value (nil values skipped) as the wrapped type, nil if there is none.
    ///
    ///     let lowest: Int? = person.optionalScores.sorted(ascending: true).min()
    public func min() -> Element.Wrapped? {
        min(ofProperty: "self")
    }

    /// The largest value (nil values skipped) as the wrapped type, nil if there is none.
    ///
    ///     let highest: Int? = person.optionalScores.distinct().max()
    public func max() -> Element.Wrapped? {
        max(ofProperty: "self")
    }
}

extension RealmCollection where Element: OptionalProtocol, Element.Wrapped: _HasPersistedType,
    Element.Wrapped.PersistedType: AddableType {
    /// The sum of the values as the wrapped type (0 for none; nil values skipped).
    ///
    ///     let total: Int = person.optionalScores.distinct().sum()
    public func sum() -> Element.Wrapped {
        sum(ofProperty: "self")
    }
}

extension Map {
    /// The objects among the map's values with one kept of each distinct combination of the key
    /// paths' values, as live `Results`; for a map of values, the key path `self`.
    ///
    ///     let oneDogPerAge = person.pets.distinct(by: ["age"])    // Map<String, Dog?>
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Value> where S.Iterator.Element == String {
        _resultsView().distinct(by: keyPaths)
    }
}

extension Map where Value.PersistedType: SortableType {
    /// The map's values sorted (nil first when ascending), as live `Results`. A managed map
    /// only (Realm's rule).
    ///
    ///     let ranked = person.scoresBySubject.sorted(ascending: false)    // Map<String, Int>
    public func sorted(ascending: Bool = true) -> Results<Value> {
        sorted(by: [SortDescriptor(keyPath: "self", ascending: ascending)])
    }

    /// The map's values with the first of each distinct value kept (in key order), as live
    /// `Results`. A managed map only (Realm's rule).
    ///
    ///     let eachScoreOnce = person.scoresBySubject.distinct()
    public func distinct() -> Results<Value> {
        distinct(by: ["self"])
    }
}

// A Map of values whose type is itself a MinMaxType or AddableType has these in Map.swift; these
// give them to maps of PersistableEnum and CustomPersistable values, by their persisted type, as
// Realm's `Value.PersistedType` constraints do (PrimitiveMapTests). Members of Map itself take
// precedence over these, so a map of Int values has one min().

/// The values a keyed collection aggregates: a Map's stored collection or unmanaged values (for
/// another conforming type, its values, aggregated as an unmanaged map's).
private func aggregatedValues<C: RealmKeyedCollection>(_ collection: C) -> (ManagedCollection?, [C.Value]) {
    if let map = collection as? Map<C.Key, C.Value> { return (map.managed, Array(map.unmanaged.values)) }
    return (nil, collection.values)
}

extension RealmKeyedCollection where Value.PersistedType: MinMaxType {
    /// The smallest value (nil values skipped), nil if there is none; values compare as they
    /// are stored.
    ///
    ///     let lowest = person.moodByDay.min()    // Map<String, Mood>, Mood: Int PersistableEnum
    public func min() -> Value? {
        let (managed, unmanaged) = aggregatedValues(self)
        return valuesMin(managed, unmanaged, as: Value.self)
    }

    /// The largest value (nil values skipped), nil if there is none.
    ///
    ///     let highest = person.moodByDay.max()
    public func max() -> Value? {
        let (managed, unmanaged) = aggregatedValues(self)
        return valuesMax(managed, unmanaged, as: Value.self)
    }
}

extension RealmKeyedCollection where Value.PersistedType: AddableType {
    /// The sum of the values (0 for none; nil values skipped).
    ///
    ///     let total = order.quantities.sum()    // Map<String, Quantity>, Quantity: CustomPersistable of Int
    public func sum() -> Value {
        let (managed, unmanaged) = aggregatedValues(self)
        return valuesSum(managed, unmanaged, as: Value.self) ?? Value._ceFromAny(0)!
    }

    /// The average of the values, nil for none (nil values skipped).
    ///
    ///     let mean: Double? = order.quantities.average()
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        let (managed, unmanaged) = aggregatedValues(self)
        return valuesAverage(managed, unmanaged, as: T.self)
    }
}

extension RealmKeyedCollection where Value: OptionalProtocol, Value.Wrapped: _HasPersistedType,
    Value.Wrapped.PersistedType: MinMaxType {
    /// The smallest value (nil values skipped) as the wrapped type, nil if there is none.
    ///
    ///     let lowest: Mood? = person.optionalMoodByDay.min()
    public func min() -> Value.Wrapped? {
        let (managed, unmanaged) = aggregatedValues(self)
        return valuesMin(managed, unmanaged, as: Value.self)?._rlmOptional
    }

    /// The largest value (nil values skipped) as the wrapped type, nil if there is none.
    ///
    ///     let highest: Mood? = person.optionalMoodByDay.max()
    public func max() -> Value.Wrapped? {
        let (managed, unmanaged) = aggregatedValues(self)
        return valuesMax(managed, unmanaged, as: Value.self)?._rlmOptional
    }
}

extension RealmKeyedCollection where Value: OptionalProtocol, Value.Wrapped: _HasPersistedType,
    Value.Wrapped.PersistedType: AddableType {
    /// The sum of the values as the wrapped type (0 for none; nil values skipped).
    ///
    ///     let total: Quantity = order.optionalQuantities.sum()
    public func sum() -> Value.Wrapped {
        let (managed, unmanaged) = aggregatedValues(self)
        let zero = Value._ceFromAny(0)!
        return (valuesSum(managed, unmanaged, as: Value.self) ?? zero)._rlmOptional ?? zero._rlmOptional!
    }
}
