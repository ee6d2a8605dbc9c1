// RealmSchemaDiscoverable.swift — _RealmSchemaDiscoverable: the types whose schema property a
// model's declaration tells.

import Foundation

/// A type a persisted property can have, which tells the property's type and whether it is
/// optional (Realm's protocol of the same name). Every `_Persistable` type is one; generic code
/// constrains on it to name the property type of `T`:
///
///     func propertyType<T: _RealmSchemaDiscoverable>(_: T.Type) -> PropertyType { T._rlmType }
///     propertyType(Int?.self)    // .int
public protocol _RealmSchemaDiscoverable {
    /// The property type of a property of this type.
    static var _rlmType: PropertyType { get }
    /// Whether a property of this type is optional.
    static var _rlmOptional: Bool { get }
}
