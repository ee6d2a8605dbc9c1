// RealmCollection+KeyValueCoding.swift — reading a property of every element of a collection
// by name (Realm's `value(forKey:)` and `value(forKeyPath:)` on collections).

import Foundation

extension RealmCollection {
    /// The values of the property `key` of the collection's objects, in the collection's order,
    /// as an array (nil values as `NSNull`); `"self"` gives the elements themselves, `"@count"`
    /// the count. An unknown property is a programmer error with Realm's message.
    ///
    ///     let names = person.dogs.value(forKey: "name") as! [Any]   // ["Rex", "Fido"]
    public func value(forKey key: String) -> Any? {
        value(forKeyPath: key)
    }

    /// The values of a key path (`"owner.name"`) of the collection's objects, as an array; nil
    /// on the way (a missing link) gives `NSNull`. `"@count"` gives the count; the collection
    /// operators `@min`, `@max`, `@sum` and `@avg` (nil for `@min`, `@max` and `@avg` of no
    /// objects) and `@unionOfObjects` and `@distinctUnionOfObjects` (without nil values) apply
    /// to the property after them.
    ///
    ///     let ownerNames = realm.objects(Dog.self).value(forKeyPath: "owner.name") as! [Any]
    ///     let oldest = person.dogs.value(forKeyPath: "@max.age") as? Int
    public func value(forKeyPath keyPath: String) -> Any? {
        if keyPath == "@count" { return count }
        if let result = collectionOperatorValue(self, keyPath) { return result }
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return map { element -> Any in
            var current: Any? = element
            for component in components where component != "self" {
                guard let value = current else { break }
                guard let object = value as? ObjectBase else {
                    throwRealmException("[<\(type(of: value))> valueForUndefinedKey:]: this class is not key value coding-compliant for the key \(component).")
                }
                current = object[component].flatMap(unwrapOptional)
            }
            return current ?? NSNull()
        }
    }
}
