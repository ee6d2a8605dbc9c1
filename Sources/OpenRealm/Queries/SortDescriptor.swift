// SortDescriptor.swift — SortDescriptor: a key path and a direction to sort by.

import Foundation

// MARK: - Sort descriptors

/// A key path and a direction to sort by, as Realm's `SortDescriptor`.
///
///     let people = realm.objects(Person.self).sorted(by: [
///         SortDescriptor(keyPath: "age", ascending: false),
///         SortDescriptor(keyPath: "name"),
///     ])
public struct SortDescriptor: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The key path sorted by: a property name, or a path through to-one links (`"dog.name"`).
    public let keyPath: String
    /// Whether the order is ascending (smallest first).
    public let ascending: Bool

    /// Sorts by `keyPath`.
    ///
    ///     SortDescriptor(keyPath: "name", ascending: false)
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Sorts by a Swift key path of a model class.
    ///
    ///     SortDescriptor(keyPath: \Person.age, ascending: false)
    public init<Root: ObjectBase, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        self.init(keyPath: propertyPath(of: keyPath), ascending: ascending)
    }

    /// An ascending sort by the key path the literal names.
    ///
    ///     let byName: SortDescriptor = "name"
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// The same key path in the other direction.
    ///
    ///     SortDescriptor(keyPath: "age").reversed().ascending   // false
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }

    /// Realm's form: `SortDescriptor(keyPath: age, direction: ascending)`.
    public var description: String {
        "SortDescriptor(keyPath: \(keyPath), direction: \(ascending ? "ascending" : "descending"))"
    }
}
