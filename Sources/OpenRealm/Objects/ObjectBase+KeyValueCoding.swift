// ObjectBase+KeyValueCoding.swift — the rest of key-value coding that Realm's objects have from
// NSObject: key paths, several keys at once.

import Foundation

extension ObjectBase {
    /// The value at a key path of properties (`"owner.name"`), as NSObject's
    /// `value(forKeyPath:)` gives it on a Realm object: each link is followed, nil on the way
    /// gives nil, and a list, set or linking objects on the way gives an array of the values
    /// at the rest of the path.
    ///
    ///     dog.value(forKeyPath: "owner.name") as? String
    ///     person.value(forKeyPath: "dogs.name") as? [Any]
    public func value(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        let rest = String(keyPath[keyPath.index(after: dot)...])
        guard let head = value(forKey: String(keyPath[..<dot])) else { return nil }
        if let object = head as? ObjectBase { return object.value(forKeyPath: rest) }
        if let collection = head as? any RealmCollection { return collection.value(forKeyPath: rest) }
        throwRealmException("[<\(type(of: head))> valueForUndefinedKey:]: this class is not key value coding-compliant for the key \(rest).")
    }

    /// Sets the property at the end of a key path (`"owner.name"`), as NSObject's
    /// `setValue(_:forKeyPath:)` does on a Realm object: the links on the way are followed.
    ///
    ///     dog.setValue("Ada", forKeyPath: "owner.name")
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        guard let dot = keyPath.lastIndex(of: ".") else { return setValue(value, forKey: keyPath) }
        let target = self.value(forKeyPath: String(keyPath[..<dot]))
        guard let object = target as? ObjectBase else {
            throwRealmException("[<\(type(of: target))> setValue:forUndefinedKey:]: this class is not key value coding-compliant "
                                + "for the key \(keyPath[keyPath.index(after: dot)...]).")
        }
        object.setValue(value, forKey: String(keyPath[keyPath.index(after: dot)...]))
    }

    /// Sets the properties the dictionary names, as NSObject's `setValuesForKeys(_:)`:
    /// `NSNull` sets nil.
    ///
    ///     person.setValuesForKeys(["name": "Ada", "age": 36])
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (key, value) in keyedValues {
            setValue(value is NSNull ? nil : value, forKey: key)
        }
    }

    /// The values of the properties `keys` names, as NSObject's `dictionaryWithValues(forKeys:)`:
    /// nil values as `NSNull`.
    ///
    ///     person.dictionaryWithValues(forKeys: ["name", "age"])
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: keys.map { ($0, value(forKey: $0) ?? NSNull()) })
    }
}
