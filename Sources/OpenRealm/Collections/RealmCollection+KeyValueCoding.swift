// RealmCollection+KeyValueCoding.swift — reading a property of every element of a collection
// by name (Realm's `value(forKey:)` and `value(forKeyPath:)` on collections). List and
// MutableSet have Realm's `[AnyObject]` forms of them, over the same reading.

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

    /// `value(forKeyPath:)` as Realm's `List` and `MutableSet` give it: an array of objects.
    /// A key path that gives one value (`"@count"`, `"@max.age"`) gives an array of that value
    /// (Realm's cast of it to an array traps); `distinct` keeps the first of equal values, as
    /// Realm's `MutableSet` reads its values into a set.
    func keyValueCodingObjects(_ keyPath: String, distinct: Bool) -> [AnyObject] {
        let result = value(forKeyPath: keyPath)
        guard let values = result as? [Any] else { return [(result ?? NSNull()) as AnyObject] }
        guard distinct else { return values.map { $0 as AnyObject } }
        var seen = Set<AnyHashable>()
        return values.filter { value in
            guard let hashable = value as? AnyHashable else { return true }
            return seen.insert(hashable).inserted
        }
        .map { $0 as AnyObject }
    }
}

extension List {
    /// The values of the property `key` of the list's objects, in order, as Realm's
    /// `List.value(forKey:)` gives them (nil values as `NSNull`; `"self"` the elements).
    ///
    ///     let names = person.dogs.value(forKey: "name") as! [String]    // ["Rex", "Fido"]
    public func value(forKey key: String) -> [AnyObject] {
        keyValueCodingObjects(key, distinct: false)
    }

    /// The values of a key path (`"owner.name"`) of the list's objects, as Realm's
    /// `List.value(forKeyPath:)` gives them.
    ///
    ///     let cities = person.dogs.value(forKeyPath: "vet.city") as! [String]
    public func value(forKeyPath keyPath: String) -> [AnyObject] {
        keyValueCodingObjects(keyPath, distinct: false)
    }
}

extension MutableSet {
    /// The distinct values of the property `key` of the set's objects, as Realm's
    /// `MutableSet.value(forKey:)` gives them (Realm reads them into a set: no order is promised).
    ///
    ///     let names = person.dogSet.value(forKey: "name") as! [String]
    public func value(forKey key: String) -> [AnyObject] {
        keyValueCodingObjects(key, distinct: true)
    }

    /// The distinct values of a key path of the set's objects, as Realm's
    /// `MutableSet.value(forKeyPath:)` gives them.
    ///
    ///     let cities = person.dogSet.value(forKeyPath: "vet.city") as! [String]
    public func value(forKeyPath keyPath: String) -> [AnyObject] {
        keyValueCodingObjects(keyPath, distinct: true)
    }
}
