// Map.swift — Map: a dictionary from string keys to values or objects, as in Realm Swift.

import Foundation

// MARK: - Map

/// The key types of a `Map`: `String` (Realm's `_MapKey`).
public protocol _MapKey: Hashable, Comparable {
    /// The key as the engine stores it.
    var _mapKeyString: String { get }
    /// A key from the engine's string.
    init(_mapKeyString: String)
}

/// A dictionary from string keys to values or objects: a `@Persisted` property of a model class,
/// as Realm's `Map`. Keys may not start with `$` or contain `.`. Managed maps read in key order.
///
///     class Person: Object {
///         @Persisted var scores: Map<String, Int>
///         @Persisted var pets: Map<String, Dog?>
///     }
///     try realm.write { person.scores["math"] = 90 }
///     person.scores["math"]       // Optional(90)
///     try realm.write { person.scores["math"] = nil }    // removes the key
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: Sequence, CustomStringConvertible, Hashable {
    var unmanaged: [Key: Value] { didSet { _writeBack?() } }
    /// Set on the collections a migration's new objects give (DynamicObject+Collections.swift):
    /// writes the contents back to the object after each change.
    var _writeBack: (() -> Void)?
    /// Set on the collections of a migration object's link property (DynamicObject+Collections.swift):
    /// the class their DynamicObjects are of, which the description names.
    var _dynamicClassName: String?
    /// Set once: by the initialiser, or when the object holding the unmanaged collection is
    /// added to a Realm (`_rlmPromote`).
    var managed: ManagedCollection?
    /// The value every key reads in the map of a key path recorder (KeyPathRecorder.swift).
    var recordingValue: Value?

    /// An empty unmanaged map.
    ///
    ///     let scores = Map<String, Int>()
    public init() {
        unmanaged = [:]
        managed = nil
    }

    init(managed: ManagedCollection) {
        unmanaged = [:]
        self.managed = managed
    }

    /// The Realm of a managed map; nil for an unmanaged one.
    public var realm: Realm? { managed?.realm }

    /// Whether the map's object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { managed?.isInvalidated ?? false }

    /// The number of entries.
    public var count: Int { managed?.count ?? unmanaged.count }

    /// Whether the map has no entries.
    public var isEmpty: Bool { count == 0 }

    /// The keys, in key order.
    ///
    ///     person.scores.keys    // ["art", "math"]
    public var keys: [Key] {
        guard let managed else { return unmanaged.keys.sorted() }
        let dictionary = managed.read()
        return (0..<managed.count).map { index in Key(_mapKeyString: managed.dictionaryKey(dictionary, at: index)) }
    }

    /// The values, in key order.
    public var values: [Value] {
        guard let managed else { return unmanaged.sorted { $0.key < $1.key }.map(\.value) }
        let keys = self.keys
        return keys.indices.map { managed.element(managed.get($0), at: .key(keys[$0]._mapKeyString), as: Value.self) }
    }

    /// The value of `key`, or nil if the map has no such key. Setting a value inserts or
    /// replaces it; setting nil removes the key.
    ///
    ///     person.scores["math"] = 90
    public subscript(key: Key) -> Value? {
        get {
            guard let managed else { return recordingValue ?? unmanaged[key] }
            let string = key._mapKeyString
            guard let value = managed.dictionaryValue(forKey: string) else { return nil }
            return managed.element(value, at: .key(string), as: Value.self)
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeObject(for: key)
            }
        }
    }

    /// Inserts or replaces the value of `key`.
    ///
    ///     person.scores.updateValue(90, forKey: "math")
    public func updateValue(_ value: Value, forKey key: Key) {
        guard let managed else {
            unmanaged[key] = value
            return
        }
        let dictionary = managed.write()
        let string = key._mapKeyString
        if isEmbedded(Value.self), embeddedObject(value) != nil {
            let objectKey = managed.dictionaryInsertEmbedded(dictionary, forKey: string)
            fillEmbedded(managed.core, value, objectKey)
            return
        }
        let contents = nestedContents(value)
        managed.dictionarySet(dictionary, value, forKey: string)
        contents?(ManagedCollection(parent: managed, at: .key(string)))
    }

    /// Removes `key` and its value, if present.
    ///
    ///     person.scores.removeObject(for: "math")
    public func removeObject(for key: Key) {
        guard let managed else {
            unmanaged.removeValue(forKey: key)
            return
        }
        managed.dictionaryErase(forKey: key._mapKeyString)
    }

    /// Removes every entry.
    public func removeAll() {
        guard let managed else {
            unmanaged.removeAll()
            return
        }
        managed.clear()
    }

    /// The entries, in key order.
    ///
    ///     for entry in person.scores { print(entry.key, entry.value) }
    public func makeIterator() -> IndexingIterator<[SingleMapEntry<Key, Value>]> {
        guard let managed else {
            return unmanaged.sorted { $0.key < $1.key }.map { SingleMapEntry(key: $0.key, value: $0.value) }.makeIterator()
        }
        let keys = self.keys
        return keys.indices.map {
            SingleMapEntry(key: keys[$0], value: managed.element(managed.get($0), at: .key(keys[$0]._mapKeyString), as: Value.self))
        }
            .makeIterator()
    }

    /// The entries as (key, value) pairs, in key order.
    ///
    ///     Dictionary(uniqueKeysWithValues: person.scores.asKeyValueSequence())
    public func asKeyValueSequence() -> [(key: Key, value: Value)] {
        map { (key: $0.key, value: $0.value) }
    }

    /// Realm's form: `Map<string, int> <0x...> (\n[math]: 90\n)`.
    public var description: String {
        realmDescription(depth: realmDescriptionMaxDepth)
    }

    /// As Realm's `isEqual`: two unmanaged maps are equal when they hold equal values for the same
    /// keys; two managed maps when they are the same map (of the same object) of the same Realm
    /// instance; a managed and an unmanaged map never.
    ///
    ///     Map<String, Int>() == Map<String, Int>()    // true
    public static func == (lhs: Map, rhs: Map) -> Bool {
        switch (lhs.managed, rhs.managed) {
        case (nil, nil): lhs.unmanaged == rhs.unmanaged
        case let (left?, right?): left.isSameCollection(as: right)
        default: false
        }
    }

    /// Whether `object` is a map equal to this one (see `==`), as Realm's `NSObject.isEqual(_:)`.
    ///
    ///     map1.isEqual(map2)
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Map else { return false }
        return self == other
    }

    /// Hashes what `==` compares: a managed map's identity, an unmanaged map's count.
    public func hash(into hasher: inout Hasher) {
        if let managed { managed.hashIdentity(into: &hasher) } else { hasher.combine(unmanaged.count) }
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
    public func _resultsView() -> Results<Value> { objectsView(managed, "Map") }
}

extension Map where Value: MinMaxType {
    /// The smallest value (nil values skipped), nil if there is none.
    ///
    ///     person.scores.min()    // Map<String, Int>
    public func min() -> Value? { valuesMin(managed, Array(unmanaged.values), as: Value.self) }

    /// The largest value (nil values skipped), nil if there is none.
    ///
    ///     person.scores.max()
    public func max() -> Value? { valuesMax(managed, Array(unmanaged.values), as: Value.self) }
}

extension Map where Value: AddableType {
    /// The sum of the values (0 for none; nil values skipped).
    ///
    ///     let total = person.scores.sum()
    public func sum() -> Value {
        valuesSum(managed, Array(unmanaged.values), as: Value.self) ?? Value._ceFromAny(0)!
    }

    /// The average of the values, nil for none (nil values skipped).
    ///
    ///     let mean: Double? = person.scores.average()
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        valuesAverage(managed, Array(unmanaged.values), as: T.self)
    }
}

extension Map {
    /// Whether the map belongs to a frozen Realm.
    ///
    ///     person.scores.freeze().isFrozen    // true
    public var isFrozen: Bool { managed?.core.frozen != nil }

    /// A frozen copy of the managed map, readable from any thread.
    ///
    ///     let frozenScores = person.scores.freeze()
    public func freeze() -> Map {
        guard let managed else { throwRealmException("This method may only be called on RLMDictionary instances retrieved from an RLMRealm") }
        if managed.core.frozen != nil { return self }
        return Map(managed: managed.frozen())
    }

    /// The live map, in the calling thread's Realm, of a frozen one; nil if its object was
    /// deleted. A live map returns itself.
    ///
    ///     let liveScores = frozenScores.thaw()
    public func thaw() -> Map? {
        guard let managed, managed.core.frozen != nil else { return self }
        return managed.rebased(onto: managed.core.thawedCore()).map { Map(managed: $0) }
    }
}

extension Map: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { managed?.rebased(onto: core).map { Map(managed: $0) } }
}
