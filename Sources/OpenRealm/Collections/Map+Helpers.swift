// Map+Helpers.swift — Realm Swift's helpers of Map: merging, searching entries, reading and
// setting a value by key-value coding, positions of entries (`index(of:)` and the subscript by
// a MapIndex, which MapIndex.swift declares).

import Foundation

extension Map {
    /// Adds the pairs of `sequence`; for a key the map has, `combine` gets the current and the
    /// new value and returns the one to keep. In a write transaction when managed; unmanaged
    /// objects among the values are added to the Realm.
    ///
    ///     try realm.write { person.scores.merge([("math", 80)]) { current, new in Swift.max(current, new) } }
    public func merge<S>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
        where S: Sequence, S.Element == (key: Key, value: Value)
    {
        for (key, value) in sequence {
            if let existing = self[key] {
                updateValue(try combine(existing, value), forKey: key)
            } else {
                updateValue(value, forKey: key)
            }
        }
    }

    /// Adds the entries of another map, as `merge(_:uniquingKeysWith:)` does with pairs.
    ///
    ///     try realm.write { person.scores.merge(other.scores) { _, new in new } }
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.asKeyValueSequence(), uniquingKeysWith: combine)
    }

    /// Adds the entries of a dictionary, as `merge(_:uniquingKeysWith:)` does with pairs.
    ///
    ///     try realm.write { person.scores.merge(["math": 80]) { _, new in new } }
    public func merge(_ other: [Key: Value], uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.map { (key: $0.key, value: $0.value) }, uniquingKeysWith: combine)
    }

    /// Whether an entry satisfies `predicate`.
    ///
    ///     person.scores.contains { key, value in value > 90 }
    public func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool {
        asKeyValueSequence().contains { predicate($0.key, $0.value) }
    }

    /// The value stored for the key `key` (a string, as key-value coding has it), nil if the
    /// map has none. An `AnyRealmValue` gives what it holds (nil for `.none`), as Realm's
    /// key-value coding does.
    ///
    ///     person.scores.value(forKey: "math") as? Int    // 90
    ///     mixedMap.value(forKey: "count") as? Int         // 3 for .int(3)
    public func value(forKey key: String) -> AnyObject? {
        guard let stored = self[Key(_mapKeyString: key)].flatMap(unwrapOptional) else { return nil }
        guard let mixed = stored as? AnyRealmValue else { return stored as AnyObject }
        return mixed.keyValueCodingValue.map { $0 as AnyObject }
    }

    /// The value stored for `key` (which must be a string, as Realm's `NSDictionary`-style
    /// `object(forKey:)` on a Map takes it), nil if the map has none or `key` is not a string.
    ///
    ///     person.scores.object(forKey: "math" as NSString) as? Int    // 90
    public func object(forKey key: AnyObject) -> AnyObject? {
        guard let string = key as? String else { return nil }
        return value(forKey: string)
    }

    /// Sets the value of the key `key` (key-value coding, as Realm's `setValue(_:forKey:)` on a
    /// Map): inserts or replaces it; nil or `NSNull` removes the key. A map of objects takes an
    /// object (an unmanaged one is added to the Realm) or the values of a new one (a
    /// dictionary or array). In a write transaction when managed.
    ///
    ///     try realm.write {
    ///         person.scores.setValue(90, forKey: "math")
    ///         person.pets.setValue(["name": "Rex"], forKey: "rex")    // Map<String, Dog?>
    ///     }
    public func setValue(_ value: Any?, forKey key: String) {
        let mapKey = Key(_mapKeyString: key)
        guard let value = value.flatMap(unwrapOptional), !(value is NSNull) else {
            removeObject(for: mapKey)
            return
        }
        guard let converted = Value._ceFromAny(value) else {
            throwRealmException("Invalid value '\(value)' of type '\(type(of: value))' for expected type "
                + "'\(realmTypeName(Value.self))\(Value._ceNullable ? "?" : "")'.")
        }
        updateValue(converted, forKey: mapKey)
    }

    /// The value of a key path whose first component is a key of the map and the rest a key path
    /// of the object stored there (`"home.name"`); nil if there is no such value.
    ///
    ///     person.pets.value(forKeyPath: "rex.name") as? String    // "Rex"
    public func value(forKeyPath keyPath: String) -> AnyObject? {
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty, let stored = self[Key(_mapKeyString: components.removeFirst())] else { return nil }
        var current: Any? = unwrapOptional(stored)
        for component in components {
            guard let value = current else { return nil }
            guard let object = value as? ObjectBase else {
                throwRealmException("[<\(type(of: value))> valueForUndefinedKey:]: this class is not key value coding-compliant for the key \(component).")
            }
            current = object[component].flatMap(unwrapOptional)
        }
        return current.map { $0 as AnyObject }
    }
}

// MARK: - Positions

extension Map {
    /// The type of a position of an entry (`MapIndex`), as Realm's `Map.Index`.
    public typealias Index = MapIndex

    /// The position, in key order, of the first entry whose value equals `object`; nil if no
    /// entry holds it.
    ///
    ///     person.scores.index(of: 90)    // MapIndex(offset: 1)
    public func index(of object: Value) -> MapIndex? {
        values.firstIndex(of: object).map { MapIndex(offset: UInt($0)) }
    }

    /// The entry at `position` (in key order). A position past the end is a programmer error
    /// with Realm's message.
    ///
    ///     let (key, value) = person.scores[MapIndex(offset: 0)]
    public subscript(position: MapIndex) -> (key: Key, value: Value) {
        let keys = self.keys
        guard position.offset < UInt(keys.count) else {
            throwRealmException("Attempting to access Map elements using an invalid index.")
        }
        let key = keys[Int(position.offset)]
        guard let value = self[key] else {
            throwRealmException("Attempting to access Map elements using an invalid index.")
        }
        return (key: key, value: value)
    }
}

