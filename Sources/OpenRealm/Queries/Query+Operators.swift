// Query+Operators.swift — the rest of Realm's Query<T> operators: string and binary operators
// against another property, aggregates over a key path through a collection
// (`$0.dogs.age.avg > 5`), the ordering of PersistableEnum values by raw value and of
// CustomPersistable values by persisted value.

import Foundation

// MARK: String and binary operators against another property

extension Query where T: _QueryBinary {
    /// Contains the value of another property (`CONTAINS`).
    ///
    ///     people.where { $0.name.contains($0.nickname, options: .caseInsensitive) }
    public func contains<U: _QueryBinary>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare("CONTAINS" + options.modifier, column)
    }

    /// Starts with the value of another property (`BEGINSWITH`).
    ///
    ///     people.where { $0.name.starts(with: $0.nickname) }
    public func starts<U: _QueryBinary>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare("BEGINSWITH" + options.modifier, column)
    }

    /// Ends with the value of another property (`ENDSWITH`).
    ///
    ///     people.where { $0.name.ends(with: $0.nickname) }
    public func ends<U: _QueryBinary>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare("ENDSWITH" + options.modifier, column)
    }

    /// Equal to the value of another property, with options.
    ///
    ///     people.where { $0.name.equals($0.nickname, options: .caseInsensitive) }
    public func equals<U: _QueryBinary>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare("==" + options.modifier, column)
    }

    /// Not equal to the value of another property, with options.
    ///
    ///     people.where { $0.name.notEquals($0.nickname, options: .caseInsensitive) }
    public func notEquals<U: _QueryBinary>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        compare("!=" + options.modifier, column)
    }
}

extension Query where T: _QueryString {
    /// Matches the wildcard pattern held by another property (`LIKE`).
    ///
    ///     items.where { $0.name.like($0.pattern) }
    public func like<U>(_ column: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> {
        compare("LIKE" + (caseInsensitive ? StringOptions.caseInsensitive : []).modifier, column)
    }
}

// MARK: Aggregates over a key path through a collection

/// The class whose objects `Results.where` queries, while its closure builds the query: Realm's
/// messages for a query name a property with its class (`'Person.age'`).
enum QueryRoot {
    @TaskLocal static var schema: ObjectSchemaInfo?

    /// `Class.property` for the last property of `path`, found through the links of the queried
    /// class (the property's name alone when the class is not known).
    static func owner(of path: String) -> String {
        let names = path.split(separator: ".").map(String.init)
        guard var schema, let last = names.last else { return path }
        for name in names.dropLast() {
            guard let index = schema.indexByName[name], let target = schema.properties[index].shape.linkTarget else { return last }
            schema = ObjectSchemaInfo.of(target)
        }
        return "\(schema.className).\(last)"
    }
}

extension Query where T: _HasPersistedType, T.PersistedType: _QueryNumeric {
    /// `collection.@op.property` for a key path through a collection (`$0.dogs.age`); anything
    /// else is a programmer error, as in Realm.
    private func collectionAggregate<V>(_ op: String) -> Query<V> {
        // A map's value under a key is no key path (Realm's message names what was built).
        if keyPath.hasSuffix("[%@]") { throwRealmException("Cannot apply a keypath to \(fromQueriedObject(keyPath))") }
        guard let element, element.expression.hasPrefix("$obj."), !element.expression.dropFirst(5).contains(" ") else {
            let path = fromQueriedObject(keyPath)
            throwRealmException("Invalid keypath '\(path).\(op)': Property '\(QueryRoot.owner(of: path))' is not a link or collection "
                + "and can only appear at the end of a keypath.")
        }
        return Query<V>(keyPath: "\(element.collection).\(op).\(element.expression.dropFirst(5))")
    }

    /// The smallest value of the property among the collection's objects (`dogs.@min.age`).
    ///
    ///     people.where { $0.dogs.age.min > 2 }
    public var min: Query { collectionAggregate("@min") }

    /// The largest value of the property among the collection's objects (`dogs.@max.age`).
    ///
    ///     people.where { $0.dogs.age.max < 10 }
    public var max: Query { collectionAggregate("@max") }

    /// The average of the property over the collection's objects (`dogs.@avg.age`).
    ///
    ///     people.where { $0.dogs.age.avg > 5 }
    public var avg: Query { collectionAggregate("@avg") }

    /// The sum of the property over the collection's objects (`dogs.@sum.age`).
    ///
    ///     people.where { $0.dogs.age.sum >= 12 }
    public var sum: Query { collectionAggregate("@sum") }
}

// MARK: PersistableEnum

extension Query where T: PersistableEnum, T.RawValue: _QueryNumeric {
    /// Orders by raw value: the enum's raw value is less than `rhs`'s.
    ///
    ///     tasks.where { $0.priority < .high }
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("<", rhs.rawValue) }

    /// The raw value is at most `rhs`'s.
    ///
    ///     tasks.where { $0.priority <= .medium }
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("<=", rhs.rawValue) }

    /// The raw value is greater than `rhs`'s.
    ///
    ///     tasks.where { $0.priority > .low }
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(">", rhs.rawValue) }

    /// The raw value is at least `rhs`'s.
    ///
    ///     tasks.where { $0.priority >= .medium }
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(">=", rhs.rawValue) }

    /// Orders two enum properties by raw value.
    ///
    ///     tasks.where { $0.priority < $0.escalation }
    public static func < (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare("<", rhs) }

    /// Orders two enum properties by raw value.
    ///
    ///     tasks.where { $0.priority <= $0.escalation }
    public static func <= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare("<=", rhs) }

    /// Orders two enum properties by raw value.
    ///
    ///     tasks.where { $0.priority > $0.escalation }
    public static func > (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(">", rhs) }

    /// Orders two enum properties by raw value.
    ///
    ///     tasks.where { $0.priority >= $0.escalation }
    public static func >= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(">=", rhs) }
}

// MARK: CustomPersistable

extension Query where T: _CustomPersistable, T.PersistedType: _QueryComparable {
    /// Orders by persisted value: the persisted value is less than `rhs`'s.
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
