// Object.swift — Object: the base class of top-level model classes.

import CEngine
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

    /// The class name in the file: `Person.className() == "Person"`.
    open class func className() -> String { ObjectSchemaInfo.className(of: self) }

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
        guard let realm else { throwRealmException("A link needs a Realm.") }
        if !isManaged(by: realm.core) { realm.core.addForLink(self) }
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

extension Object: ThreadConfined {}
