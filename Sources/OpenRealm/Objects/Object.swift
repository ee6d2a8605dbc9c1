// Object.swift — Object: the base class of top-level model classes.

import Foundation

/// A model class whose objects are stored in a Realm: subclass it and declare properties with
/// `@Persisted`.
///
///     class Person: Object {
///         @Persisted(primaryKey: true) var id: Int
///         @Persisted var name: String
///         @Persisted var dogs: List<Dog>
///     }
///
///     let ada = Person(value: ["id": 1, "name": "Ada"])
///     try realm.write { realm.add(ada) }
open class Object: ObjectBase, RealmCollectionValue {
    /// Creates an unmanaged object with default values.
    ///
    ///     let person = Person()
    public required init() {
        super.init()
    }

    /// Creates an unmanaged object from a dictionary of values by property name, an array of
    /// values in property order, or another object. Linked objects may be given as dictionaries or
    /// arrays too.
    ///
    ///     let person = Person(value: ["name": "Ada", "age": 36, "dogs": [["name": "Rex"]]])
    ///     let copy = Person(value: person)
    public convenience init(value: Any) {
        self.init()
        _assign(from: value)
    }

    /// Realm's legacy way to name the primary key: nil unless overridden. With `@Persisted`, use
    /// `@Persisted(primaryKey: true)`; an override is read as Realm reads it (the named
    /// `@Persisted` property becomes the primary key).
    ///
    ///     override class func primaryKey() -> String? { "id" }
    open class func primaryKey() -> String? { nil }

    /// Realm's legacy list of properties not to persist: empty unless overridden. With
    /// `@Persisted`, the properties not marked `@Persisted` are the ignored ones, and this list is
    /// not read.
    open class func ignoredProperties() -> [String] { [] }

    /// Realm's legacy list of indexed properties: empty unless overridden. With `@Persisted`, use
    /// `@Persisted(indexed: true)`; the `@Persisted` properties an override names are indexed.
    ///
    ///     override class func indexedProperties() -> [String] { ["name"] }
    open class func indexedProperties() -> [String] { [] }
}

extension Object: ThreadConfined {}
