// SetAndMap.swift — MutableSet and Map, as in Realm Swift.

import CEngine
import Foundation

// MARK: - MutableSet

/// A collection of distinct values or objects: a `@Persisted` property of a model class, as
/// Realm's `MutableSet`. Managed sets read in value order.
///
///     class Person: Object {
///         @Persisted var tags: MutableSet<String>
///     }
///     try realm.write {
///         person.tags.insert("admin")
///         person.tags.formUnion(["a", "b"])
///     }
///     person.tags.contains("admin")    // true
public final class MutableSet<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible, Hashable {
    var unmanaged: [Element]
    let managed: ManagedCollection?

    /// An empty unmanaged set.
    ///
    ///     let tags = MutableSet<String>()
    public init() {
        unmanaged = []
        managed = nil
    }

    init(managed: ManagedCollection) {
        unmanaged = []
        self.managed = managed
    }

    /// The Realm of a managed set; nil for an unmanaged one.
    public var realm: Realm? { managed?.realm }

    /// Whether the set's object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { managed?.isInvalidated ?? false }

    /// The number of elements.
    public var count: Int { managed?.count ?? unmanaged.count }

    /// 0.
    public var startIndex: Int { 0 }

    /// `count`.
    public var endIndex: Int { count }

    /// The element at `position` (value order when managed).
    public subscript(position: Int) -> Element {
        if let managed { return Element._ceRead(managed.get(position), managed.realm) }
        guard position >= 0, position < unmanaged.count else { indexFailure(position, unmanaged.count) }
        return unmanaged[position]
    }

    /// Whether the set holds `object`.
    ///
    ///     person.tags.contains("admin")
    public func contains(_ object: Element) -> Bool { index(of: object) != nil }

    /// The position of `object` in the set (value order when managed), or nil.
    ///
    ///     person.tags.index(of: "admin")    // 0
    public func index(of object: Element) -> Int? {
        guard let managed else { return unmanaged.firstIndex(of: object) }
        if let linked = object as Any as? ObjectBase, !linked.isManaged(by: managed.core) { return nil }
        let arena = _CArena()
        var value = object._ceValue(arena, managed.realm)
        return managed.find(&value)
    }

    /// Inserts `object` if the set does not hold it. An unmanaged object inserted into a managed
    /// set is added to the Realm.
    ///
    ///     person.tags.insert("admin")
    public func insert(_ object: Element) {
        guard let managed else {
            if !unmanaged.contains(object) { unmanaged.append(object) }
            return
        }
        let set = managed.write()
        let arena = _CArena()
        var value = object._ceValue(arena, managed.realm)
        guard ce_set_insert(set, &value, nil) else { engineFailure() }
    }

    /// Inserts every element of a sequence.
    ///
    ///     person.tags.insert(objectsIn: ["a", "b"])
    public func insert<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for object in objects { insert(object) }
    }

    /// Removes `object` if the set holds it.
    ///
    ///     person.tags.remove("admin")
    public func remove(_ object: Element) {
        guard let managed else {
            unmanaged.removeAll { $0 == object }
            return
        }
        if let linked = object as Any as? ObjectBase, !linked.isManaged(by: managed.core) { return }
        let set = managed.write()
        let arena = _CArena()
        var value = object._ceValue(arena, managed.realm)
        guard ce_set_erase(set, &value, nil) else { engineFailure() }
    }

    /// Removes every element.
    public func removeAll() {
        guard let managed else {
            unmanaged.removeAll()
            return
        }
        managed.clear()
    }

    /// Inserts every element of `other` (the set becomes the union).
    ///
    ///     set.formUnion(["a", "b"])
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element {
        for object in Array(other) { insert(object) }
    }

    /// Keeps only the elements that `other` holds too (the set becomes the intersection).
    ///
    ///     set.formIntersection(["a"])
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        let keep = Array(other)
        for object in Array(self) where !keep.contains(object) { remove(object) }
    }

    /// Removes every element that `other` holds.
    ///
    ///     set.subtract(["a"])
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for object in Array(other) { remove(object) }
    }

    /// The same as `formUnion(_:)` (Realm's older name).
    public func union<S: Sequence>(_ other: S) where S.Element == Element { formUnion(other) }

    /// The same as `formIntersection(_:)` (Realm's older name).
    public func intersect<S: Sequence>(_ other: S) where S.Element == Element { formIntersection(other) }

    /// Whether every element of the set is in `other`.
    ///
    ///     set.isSubset(of: ["a", "b", "c"])
    public func isSubset<S: Sequence>(of other: S) -> Bool where S.Element == Element {
        let all = Array(other)
        return allSatisfy { all.contains($0) }
    }

    /// Whether the set and `other` have an element in common.
    ///
    ///     set.intersects(["a"])
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        other.contains { contains($0) }
    }

    /// Realm's form: `MutableSet<String> <0x...> (\n\t[0] a\n)`.
    public var description: String {
        describeCollection("MutableSet<\(Element.self)> <\(ObjectIdentifier(self))>", self, count: count)
    }

    /// Sets are equal when they are the same instance.
    public static func == (lhs: MutableSet, rhs: MutableSet) -> Bool { lhs === rhs }

    /// Hashes the instance.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension MutableSet: _Persistable {
    public static func _rlmShape() -> _PropertyShape { _PropertyShape(Element.self, collection: CE_COLLECTION_SET) }
    public static func _rlmDefault() -> MutableSet { MutableSet() }
    public static var _rlmCachesManagedValue: Bool { true }
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> MutableSet {
        MutableSet(managed: ManagedCollection(owner: object, column: column.key))
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: MutableSet) {
        let elements = Array(value)
        let set = _rlmGet(object, column)
        set.removeAll()
        set.insert(objectsIn: elements)
    }
    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value { .null }
    /// The new object's collection gets this one's elements: kept here while unmanaged, or read
    /// from the managed collection it was given (`new.dogs = old.dogs`), snapshot first.
    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        MutableSet._rlmSet(object, column, self)
    }
    public static func _rlmFromAny(_ value: Any) -> MutableSet? {
        let set = MutableSet()
        guard set._assign(from: value) else { return nil }
        return set
    }
}

extension MutableSet: _AssignableCollection {
    func _assign(from value: Any) -> Bool {
        guard let elements = collectionElements(value, Element.self) else { return false }
        removeAll()
        insert(objectsIn: elements)
        return true
    }
}

// MARK: - Map

/// The key types of a `Map`: `String` (Realm's `_MapKey`).
public protocol _MapKey: Hashable, Comparable {
    /// The key as the engine stores it.
    var _mapKeyString: String { get }
    /// A key from the engine's string.
    init(_mapKeyString: String)
}

extension String: _MapKey {
    public var _mapKeyString: String { self }
    public init(_mapKeyString: String) { self = _mapKeyString }
}

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
    var unmanaged: [Key: Value]
    let managed: ManagedCollection?

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
        return (0..<managed.count).map { index in
            var key = ce_value()
            guard ce_dictionary_key_at(dictionary, index, &key) else { engineFailure() }
            return Key(_mapKeyString: key.stringValue)
        }
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
            guard let managed else { return unmanaged[key] }
            var value = ce_value()
            var found = false
            let string = key._mapKeyString
            let ok = string.withCString { ce_dictionary_get(managed.read(), $0, string.utf8.count, &value, &found) }
            guard ok else { engineFailure() }
            return found ? managed.element(value, at: .key(string), as: Value.self) : nil
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
            var objectKey: ce_object_key = 0
            let ok = string.withCString { ce_dictionary_insert_embedded(dictionary, $0, string.utf8.count, &objectKey) }
            guard ok else { engineFailure("Map key '\(string)'") }
            fillEmbedded(managed.core, value, objectKey)
            return
        }
        let contents = nestedContents(value)
        let arena = _CArena()
        var cValue = value._ceValue(arena, managed.realm)
        let ok = string.withCString { ce_dictionary_set(dictionary, $0, string.utf8.count, &cValue) }
        guard ok else { engineFailure("Map key '\(string)'") }
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
        let string = key._mapKeyString
        let dictionary = managed.write()
        let ok = string.withCString { ce_dictionary_erase(dictionary, $0, string.utf8.count, nil) }
        guard ok else { engineFailure() }
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

    /// Realm's form: `Map<String, Int> <0x...> (\n\t[math]: 90\n)`.
    public var description: String {
        var lines = ["Map<\(Key.self), \(Value.self)> <\(ObjectIdentifier(self))> ("]
        for entry in self { lines.append("\t[\(entry.key)]: \(entry.value)") }
        lines.append(")")
        return lines.joined(separator: "\n")
    }

    /// Maps are equal when they are the same instance.
    public static func == (lhs: Map, rhs: Map) -> Bool { lhs === rhs }

    /// Hashes the instance.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension Map: _Persistable {
    public static func _rlmShape() -> _PropertyShape { _PropertyShape(Value.self, collection: CE_COLLECTION_DICTIONARY) }
    public static func _rlmDefault() -> Map { Map() }
    public static var _rlmCachesManagedValue: Bool { true }
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> Map {
        Map(managed: ManagedCollection(owner: object, column: column.key))
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Map) {
        let entries = Array(value)
        let map = _rlmGet(object, column)
        map.removeAll()
        for entry in entries { map.updateValue(entry.value, forKey: entry.key) }
    }
    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value { .null }
    /// The new object's collection gets this one's elements: kept here while unmanaged, or read
    /// from the managed collection it was given (`new.dogs = old.dogs`), snapshot first.
    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        Map._rlmSet(object, column, self)
    }
    public static func _rlmFromAny(_ value: Any) -> Map? {
        let map = Map()
        guard map._assign(from: value) else { return nil }
        return map
    }
}

extension Map: _AssignableCollection {
    func _assign(from value: Any) -> Bool {
        var entries: [(Key, Value)] = []
        if let same = value as? Map<Key, Value> {
            entries = same.map { ($0.key, $0.value) }
        } else if let dictionary = value as? [String: Any] {
            for (key, item) in dictionary {
                guard let converted = Value._ceFromAny(item) else { return false }
                entries.append((Key(_mapKeyString: key), converted))
            }
        } else {
            return false
        }
        removeAll()
        for (key, value) in entries { updateValue(value, forKey: key) }
        return true
    }
}
