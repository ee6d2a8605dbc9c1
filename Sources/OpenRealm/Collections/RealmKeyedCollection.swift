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

    /// The value of `key` by key-value coding (nil if the map has none).
    ///
    ///     person.scores.value(forKey: "math") as? Int
    func value(forKey key: String) -> AnyObject?

    /// The value of a key path whose first component is a key of the map.
    ///
    ///     person.pets.value(forKeyPath: "rex.name") as? String
    func value(forKeyPath keyPath: String) -> AnyObject?

    /// Sets the value of `key` by key-value coding (nil removes it).
    ///
    ///     person.scores.setValue(90, forKey: "math")
    func setValue(_ value: Any?, forKey key: String)

    /// Whether an entry satisfies `predicate`.
    ///
    ///     person.scores.contains { _, value in value > 90 }
    func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool

    /// The values sorted by a key path of their objects (`"self"` for values).
    ///
    ///     person.pets.sorted(byKeyPath: "age", ascending: true)
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Value>

    /// The values sorted by several key paths, the first one first.
    ///
    ///     person.pets.sorted(by: [SortDescriptor(keyPath: "age")])
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Iterator.Element == SortDescriptor

    /// The smallest value of a property of the values (`"self"` for the values themselves).
    ///
    ///     let youngest: Int? = person.pets.min(ofProperty: "age")
    func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType

    /// The largest value of a property of the values.
    ///
    ///     let oldest: Int? = person.pets.max(ofProperty: "age")
    func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType

    /// The sum of a numeric property of the values.
    ///
    ///     let years: Int = person.pets.sum(ofProperty: "age")
    func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType

    /// The average of a numeric property of the values, nil if there are none.
    ///
    ///     let meanAge: Double? = person.pets.average(ofProperty: "age")
    func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType

    /// Whether the map belongs to a frozen Realm.
    ///
    ///     person.scores.freeze().isFrozen    // true
    var isFrozen: Bool { get }

    /// A frozen copy of the managed map.
    ///
    ///     let frozen = person.scores.freeze()
    func freeze() -> Self

    /// The live map of a frozen one (nil if its object was deleted); a live map itself.
    ///
    ///     let live = frozen.thaw()
    func thaw() -> Self?

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
