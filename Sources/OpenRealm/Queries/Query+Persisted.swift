// Query+Persisted.swift — Realm's Query<T> operators on values stored as another type and on
// optionals: the raw values of PersistableEnums (`rawValue`), the ordering of optional enums and
// optional CustomPersistable values, and ranges (`contains(1...5)`) on optional properties and
// on collections and maps of numbers.

import Foundation

// MARK: Raw values of PersistableEnums

extension Query where T: PersistableEnum {
    /// The raw value the enum is stored as: for conditions the raw value takes and the enum does
    /// not, such as a prefix that is no case of the enum.
    ///
    ///     tasks.where { $0.status.rawValue.starts(with: "arch") }
    public var rawValue: Query<T.RawValue> { suffixed("") }
}

extension Query where T: OptionalProtocol, T.Wrapped: PersistableEnum {
    /// The raw value the optional enum is stored as (nil when the property is).
    ///
    ///     tasks.where { $0.priority.rawValue.contains(1...5) }
    public var rawValue: Query<T.Wrapped.RawValue?> { suffixed("") }
}

extension Query where T: _QueryableCollection, T.Element: PersistableEnum {
    /// The raw values of the enums in the collection.
    ///
    ///     tasks.where { $0.history.rawValue.sum > 10 }
    public var rawValue: Query<AnyRealmCollection<T.Element.RawValue>> { suffixed("") }
}

extension Query where T: _QueryableCollection, T.Element: OptionalProtocol, T.Element.Wrapped: PersistableEnum {
    /// The raw values of the optional enums in the collection.
    ///
    ///     tasks.where { $0.optionalHistory.rawValue.contains(nil) }
    public var rawValue: Query<AnyRealmCollection<T.Element.Wrapped.RawValue?>> { suffixed("") }
}

extension Query where T: _QueryableMap, T.Value: PersistableEnum {
    /// The raw values of the enums in the map.
    ///
    ///     tasks.where { $0.statusByDay.rawValue.values.starts(with: "arch") }
    public var rawValue: Query<Map<T.Key, T.Value.RawValue>> { suffixed("") }
}

extension Query where T: _QueryableMap, T.Value: OptionalProtocol, T.Value.Wrapped: PersistableEnum {
    /// The raw values of the optional enums in the map.
    ///
    ///     tasks.where { $0.optionalStatusByDay.rawValue.values == nil }
    public var rawValue: Query<Map<T.Key, T.Value.Wrapped.RawValue?>> { suffixed("") }
}

// MARK: Ordering of optional enums and optional CustomPersistable values

extension Query where T: OptionalProtocol, T.Wrapped: PersistableEnum, T.Wrapped.RawValue: _QueryNumeric {
    /// The raw value is less than `rhs`'s (nil matches nothing).
    ///
    ///     tasks.where { $0.priority < .high }
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("<", rhs._rlmOptional?.rawValue as Any) }

    /// The raw value is at most `rhs`'s.
    ///
    ///     tasks.where { $0.priority <= .medium }
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("<=", rhs._rlmOptional?.rawValue as Any) }

    /// The raw value is greater than `rhs`'s.
    ///
    ///     tasks.where { $0.priority > .low }
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(">", rhs._rlmOptional?.rawValue as Any) }

    /// The raw value is at least `rhs`'s.
    ///
    ///     tasks.where { $0.priority >= .medium }
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(">=", rhs._rlmOptional?.rawValue as Any) }

    /// Orders two optional enum properties by raw value.
    ///
    ///     tasks.where { $0.priority < $0.escalation }
    public static func < (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare("<", rhs) }

    /// Orders two optional enum properties by raw value.
    public static func <= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare("<=", rhs) }

    /// Orders two optional enum properties by raw value.
    public static func > (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(">", rhs) }

    /// Orders two optional enum properties by raw value.
    public static func >= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(">=", rhs) }
}

extension Query where T: OptionalProtocol, T.Wrapped: _CustomPersistable, T.Wrapped.PersistedType: _QueryComparable {
    /// The persisted value is less than `rhs`'s (nil matches nothing).
    ///
    ///     items.where { $0.rank < Rank(persistedValue: 3) }
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("<", rhs) }

    /// The persisted value is at most `rhs`'s.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("<=", rhs) }

    /// The persisted value is greater than `rhs`'s.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(">", rhs) }

    /// The persisted value is at least `rhs`'s.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(">=", rhs) }
}

// MARK: Ranges

extension Query where T: OptionalProtocol, T.Wrapped: _QueryNumeric & Comparable {
    /// Within a closed range (`BETWEEN`); nil is within no range.
    ///
    ///     people.where { $0.height.contains(150...190) }
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> {
        condition({ "\($0) BETWEEN {%@, %@}" }, { $0 + [range.lowerBound, range.upperBound] })
    }

    /// Within a half-open range (at least its lower bound, less than its upper bound).
    ///
    ///     people.where { $0.height.contains(150..<190) }
    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        condition({ "(\($0) >= %@ AND \($0) < %@)" }, { $0 + [range.lowerBound] + $0 + [range.upperBound] })
    }
}

extension Query {
    /// Every element within a range: the smallest at least `lower`, the largest at most (or,
    /// `closed` false, less than) `upper` (`@min` and `@max`). An empty collection has neither.
    func elementsWithin(_ lower: Any, _ upper: Any, closed: Bool) -> Query<Bool> {
        condition({ "(\($0).@min >= %@ AND \($0).@max \(closed ? "<=" : "<") %@)" }, { $0 + [lower] + $0 + [upper] })
    }
}

extension Query where T: _QueryableCollection, T.Element: _QueryNumeric & Comparable {
    /// Every element within a closed range (`@min` and `@max`).
    ///
    ///     people.where { $0.scores.contains(1...10) }
    public func contains(_ range: ClosedRange<T.Element>) -> Query<Bool> {
        elementsWithin(range.lowerBound, range.upperBound, closed: true)
    }

    /// Every element within a half-open range.
    ///
    ///     people.where { $0.scores.contains(1..<10) }
    public func contains(_ range: Range<T.Element>) -> Query<Bool> {
        elementsWithin(range.lowerBound, range.upperBound, closed: false)
    }
}

extension Query where T: _QueryableCollection, T.Element: OptionalProtocol, T.Element.Wrapped: _QueryNumeric & Comparable {
    /// Every element within a closed range (`@min` and `@max`, which skip nil).
    ///
    ///     people.where { $0.optionalScores.contains(1...10) }
    public func contains(_ range: ClosedRange<T.Element.Wrapped>) -> Query<Bool> {
        elementsWithin(range.lowerBound, range.upperBound, closed: true)
    }

    /// Every element within a half-open range.
    ///
    ///     people.where { $0.optionalScores.contains(1..<10) }
    public func contains(_ range: Range<T.Element.Wrapped>) -> Query<Bool> {
        elementsWithin(range.lowerBound, range.upperBound, closed: false)
    }
}

extension Query where T: _QueryableMap, T.Value: _QueryNumeric & Comparable {
    /// Every value within a closed range (`@min` and `@max`).
    ///
    ///     people.where { $0.scoreBySubject.contains(1...10) }
    public func contains(_ range: ClosedRange<T.Value>) -> Query<Bool> {
        elementsWithin(range.lowerBound, range.upperBound, closed: true)
    }

    /// Every value within a half-open range.
    ///
    ///     people.where { $0.scoreBySubject.contains(1..<10) }
    public func contains(_ range: Range<T.Value>) -> Query<Bool> {
        elementsWithin(range.lowerBound, range.upperBound, closed: false)
    }
}

extension Query where T: _QueryableMap, T.Value: OptionalProtocol, T.Value.Wrapped: _QueryNumeric & Comparable {
    /// Every value within a closed range (`@min` and `@max`, which skip nil).
    ///
    ///     people.where { $0.optionalScoreBySubject.contains(1...10) }
    public func contains(_ range: ClosedRange<T.Value.Wrapped>) -> Query<Bool> {
        elementsWithin(range.lowerBound, range.upperBound, closed: true)
    }

    /// Every value within a half-open range.
    ///
    ///     people.where { $0.optionalScoreBySubject.contains(1..<10) }
    public func contains(_ range: Range<T.Value.Wrapped>) -> Query<Bool> {
        elementsWithin(range.lowerBound, range.upperBound, closed: false)
    }
}

// MARK: Persisted values of collections

extension Query where T: _QueryableCollection, T.Element: _HasPersistedType, T.Element.PersistedType: RealmCollectionValue {
    /// The persisted values of the collection's elements (a `CustomPersistable`'s persisted
    /// value, an enum's raw value): for conditions the persisted type takes, such as ranges.
    ///
    ///     items.where { $0.ranks.persistableValue.contains(1...3) }
    public var persistableValue: Query<AnyRealmCollection<T.Element.PersistedType>> { suffixed("") }
}

extension Query where T: _QueryableMap, T.Value.PersistedType: RealmCollectionValue {
    /// The persisted values of the map's values (a `CustomPersistable`'s persisted value, an
    /// enum's raw value): for conditions the persisted type takes, such as ranges.
    ///
    ///     items.where { $0.rankByDay.persistableValue.contains(1...3) }
    public var persistableValue: Query<Map<T.Key, T.Value.PersistedType>> { suffixed("") }
}
