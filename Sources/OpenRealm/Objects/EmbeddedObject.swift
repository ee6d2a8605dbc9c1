// EmbeddedObject.swift — EmbeddedObject: the base class of objects owned by one parent.

import CEngine
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

    public static var _ceType: ce_type { CE_TYPE_LINK }
    public static var _ceLinkTarget: ObjectBase.Type? { self }
    public static func _ceDefault() -> Self { Self() }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        guard value.type == CE_TYPE_LINK, let realm else {
            throwRealmException("Expected a link in a Realm, read \(value.debugText).")
        }
        return realm.core.object(ofClass: self, link: value.link) as! Self
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        guard let realm, isManaged(by: realm.core) else {
            throwRealmException("Cannot add an embedded object to a Realm directly: assign it to a property of an object instead.")
        }
        return .link(_tableKey, _key)
    }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let object = value as? Self { return object }
        if value is [String: Any] || value is [Any] {
            let object = Self()
            object._assign(from: value)
            return object
        }
        return nil
    }
}

extension EmbeddedObject: ThreadConfined {}
