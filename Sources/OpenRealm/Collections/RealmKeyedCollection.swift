// RealmKeyedCollection.swift — RealmKeyedCollection: the protocol of Realm's keyed collections
// (Map), which RealmMapChange is generic over.

import Foundation

/// A collection of values or objects by key: `Map` (Realm's `RealmKeyedCollection`). Write
/// generic code for maps against it; `RealmMapChange` names its keys with `Key`.
///
///     func describe<M: RealmKeyedCollection>(_ map: M) -> String {
///         map.keys.map { "\($0)" }.joined(separator: ", ")
///     }
///     describe(person.scores)    // "art, math"
public protocol RealmKeyedCollection<Key, Value>: Sequence, ThreadConfined, CustomStringConvertible {
    /// The type of the keys.
    ///
    ///     Map<String, Int>.Key.self == String.self
    associatedtype Key: _MapKey
    /// The type of the values.
    ///
    ///     Map<String, Int>.Value.self == Int.self
    associatedtype Value: RealmCollectionValue

    /// The Realm that manages the map; nil while unmanaged.
    ///
    ///     person.scores.realm == realm
    var realm: Realm? { get }

    /// Whether the map can no longer be used (its object was deleted, or its Realm invalidated).
    ///
    ///     if person.scores.isInvalidated { return }
    var isInvalidated: Bool { get }

    /// The number of entries.
    ///
    ///     person.scores.count
    var count: Int { get }

    /// The keys, in key order.
    ///
    ///     person.scores.keys    // ["art", "math"]
    var keys: [Key] { get }

    /// The values, in key order.
    ///
    ///     person.scores.values    // [3, 90]
    var values: [Value] { get }

    /// The value of `key`, or nil; setting nil removes the key (in a write transaction when
    /// managed).
    ///
    ///     person.scores["math"] = 90
    subscript(key: Key) -> Value? { get set }

    /// Inserts or replaces the value of `key`.
    ///
    ///     person.scores.updateValue(90, forKey: "math")
    func updateValue(_ value: Value, forKey key: Key)

    /// Removes `key` and its value, if present.
    ///
    ///     person.scores.removeObject(for: "math")
    func removeObject(for key: Key)

    /// Removes every entry.
    ///
    ///     person.scores.removeAll()
    func removeAll()

    /// Observes the map: `.initial`, then an `.update` with the keys that changed after each
    /// commit that changed it (see `Map.observe(keyPaths:on:_:)`).
    ///
    ///     let token = person.scores.observe(on: nil) { change in print(change) }
    func observe(on queue: DispatchQueue?, _ block: @escaping (RealmMapChange<Self>) -> Void) -> NotificationToken

    /// Observes the map, its values' objects seen through `keyPaths` (see
    /// `Map.observe(keyPaths:on:_:)`).
    ///
    ///     let token = person.pets.observe(keyPaths: ["name"], on: nil) { change in print(change) }
    func observe(keyPaths: [String]?, on queue: DispatchQueue?, _ block: @escaping (RealmMapChange<Self>) -> Void) -> NotificationToken
}
