// SingleMapEntry.swift — SingleMapEntry: one entry of a Map.

import Foundation

/// One entry of a `Map`: a key and its value (Realm's `SingleMapEntry`).
///
///     for entry in person.scores { print(entry.key, entry.value) }
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: Hashable {
    /// The key.
    public var key: Key
    /// The value.
    public var value: Value

    /// An entry: `SingleMapEntry(key: "a", value: 1)`.
    public init(key: Key, value: Value) {
        self.key = key
        self.value = value
    }
}
