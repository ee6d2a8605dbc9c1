// EmbeddedObject.swift — EmbeddedObject: the base class of objects owned by one parent.

import Foundation

/// A model class whose objects live inside one parent object (a link, list or map property of
/// another class) and are deleted with it. It has no primary key and cannot be added to a Realm
/// by itself.
///
///     class Address: EmbeddedObject {
///         @Persisted var street: String
///         @Persisted var city: String
///     }
///     class Person: Object {
///         @Persisted var address: Address?
///     }
///     try realm.write { person.address = Address(value: ["street": "1 Main St", "city": "Oslo"]) }
open class EmbeddedObject: ObjectBase, RealmCollectionValue {
    /// Creates an unmanaged embedded object with default values.
    ///
    ///     let address = Address()
    public required init() {
        super.init()
    }

    /// Creates an unmanaged embedded object from a dictionary, an array or another object, as
    /// `Object.init(value:)`.
    ///
    ///     let address = Address(value: ["street": "1 Main St", "city": "Oslo"])
    public convenience init(value: Any) {
        self.init()
        _assign(from: value)
    }
}

extension EmbeddedObject: ThreadConfined {}
