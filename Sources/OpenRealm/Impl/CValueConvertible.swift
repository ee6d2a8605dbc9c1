// CValueConvertible.swift — _CValueConvertible: how a type's values become engine values and back.
// Internal machinery; the conformances of the basic types are in BasicTypes.swift.

import CEngine
import Foundation

// MARK: - The value protocol

/// A type whose values OpenRealm stores: the scalar types, `Object` subclasses (as links),
/// `AnyRealmValue`, `PersistableEnum` and `CustomPersistable` types, and optionals of these.
///
/// Internal machinery of OpenRealm: applications use the conforming types and never call these
/// requirements.
public protocol _CValueConvertible {
    /// The engine type of a property or element holding this type.
    static var _ceType: ce_type { get }
    /// Whether null is a value of this type (optionals).
    static var _ceNullable: Bool { get }
    /// The class a link points to, for links.
    static var _ceLinkTarget: ObjectBase.Type? { get }
    /// The value of a new object's property or a new element: 0, "", false, nil, ...
    static func _ceDefault() -> Self
    /// The Swift value of a value read from the engine.
    static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self
    /// The Swift value of a value read from the engine for an optional of this type: nil for
    /// null (and, for `FailableCustomPersistable` types, for a value that does not convert).
    static func _ceReadInsideOptional(_ value: ce_value, _ realm: Realm?) -> Self?
    /// The engine value of this value; bytes live in `arena`. Unmanaged objects are added to
    /// `realm` first (links need a managed target).
    func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value
    /// This type from a loosely typed value (`init(value:)`, `create(_:value:)`).
    static func _ceFromAny(_ value: Any) -> Self?
    /// This type from a loosely typed value for an optional of this type: nil when the value
    /// does not convert, `.some(nil)` for a value that reads as nil there (for enums and
    /// `FailableCustomPersistable` types, a persisted value no value of the type has, as Realm
    /// reads it in an optional context).
    static func _ceFromAnyInsideOptional(_ value: Any) -> Self??
}

extension _CValueConvertible {
    public static var _ceNullable: Bool { false }
    public static var _ceLinkTarget: ObjectBase.Type? { nil }
    public static func _ceFromAny(_ value: Any) -> Self? { value as? Self }
    public static func _ceFromAnyInsideOptional(_ value: Any) -> Self?? { _ceFromAny(value).map { .some($0) } }
    public static func _ceReadInsideOptional(_ value: ce_value, _ realm: Realm?) -> Self? {
        value.isNull ? nil : _ceRead(value, realm)
    }
}
