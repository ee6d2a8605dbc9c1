// RealmCollection+Values.swift — what Realm offers on every collection of values (Results, List,
// MutableSet, AnyRealmCollection, and a Map's values): sorted(ascending:), distinct(), min(),
// max(), sum() and average(), through the key path `self`, as Realm's own are (min, max and sum
// of optional values also as the wrapped type, as Realm's).

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
