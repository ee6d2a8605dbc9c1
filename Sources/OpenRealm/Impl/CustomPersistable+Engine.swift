// CustomPersistable+Engine.swift — _CustomPersistable (what CustomPersistable and
// FailableCustomPersistable share) and how their values reach the engine: as their persisted
// value, through the persisted type's own conversions.

import CEngine
import Foundation

/// What `CustomPersistable` and `FailableCustomPersistable` share: the type is stored as its
/// `PersistedType`, one of the stored types that may also be optional, or an `EmbeddedObject`
/// subclass (a link to an embedded object). Internal machinery of OpenRealm: applications
/// conform to the two public protocols.
public protocol _CustomPersistable: _Persistable, _RealmCollectionValueInsideOptional
where PersistedType: _RealmCollectionValueInsideOptional {
    /// The persisted value, boxed (`persistableValue`).
    var _rlmPersistableValue: Any { get }
}

extension _CustomPersistable {
    public static var _ceType: ce_type { PersistedType._ceType }
    public static var _ceLinkTarget: ObjectBase.Type? { PersistedType._ceLinkTarget }
    /// Mapped to an embedded object, the property is a link, which may be null: as in Realm, it
    /// is optional in the schema whether the Swift type is or not (null reads as the default).
    public static func _rlmShape() -> _PropertyShape {
        var shape = _PropertyShape(Self.self)
        if _ceLinkTarget != nil { shape.nullable = true }
        return shape
    }
}

extension CustomPersistable {
    public var _rlmPersistableValue: Any { persistableValue }
    public static func _ceDefault() -> Self { Self(persistedValue: PersistedType._ceDefault()) }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        // No embedded object: the persisted type's default (a new unmanaged object), as Realm.
        if value.isNull && PersistedType._ceLinkTarget != nil { return _ceDefault() }
        return Self(persistedValue: PersistedType._ceRead(value, realm))
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { persistableValue._ceValue(arena, realm) }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let same = value as? Self { return same }
        // Mapped to an embedded object, null is no embedded object: the default, as reading it.
        if value is NSNull && PersistedType._ceLinkTarget != nil { return _ceDefault() }
        return PersistedType._ceFromAny(value).map(Self.init(persistedValue:))
    }
    /// Hashes the persisted value.
    public func hash(into hasher: inout Hasher) { persistableValue.hash(into: &hasher) }
}

extension FailableCustomPersistable {
    public static func _ceDefault() -> Self {
        if let value = Self(persistedValue: PersistedType._ceDefault()) { return value }
        throwRealmException("Failed to default construct a \(Self.self) using the default value for persisted type \(PersistedType.self). "
            + "This conversion must either succeed, the property must be optional, or you must explicitly specify a default value for the property.")
    }
    public var _rlmPersistableValue: Any { persistableValue }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        if value.isNull && PersistedType._ceLinkTarget != nil { return _ceDefault() }
        let persistedValue = PersistedType._ceRead(value, realm)
        if let result = Self(persistedValue: persistedValue) { return result }
        throwRealmException("Failed to convert persisted value '\(persistedValue)' to type '\(Self.self)' in a non-optional context.")
    }
    /// In an optional context a value that does not convert reads as nil.
    public static func _ceReadInsideOptional(_ value: ce_value, _ realm: Realm?) -> Self? {
        value.isNull ? nil : Self(persistedValue: PersistedType._ceRead(value, realm))
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { persistableValue._ceValue(arena, realm) }
    /// A persisted value that does not convert stops with Realm's message (where the type is not
    /// optional: see `_ceFromAnyInsideOptional`).
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let same = value as? Self { return same }
        if value is NSNull && PersistedType._ceLinkTarget != nil { return _ceDefault() }
        guard let persisted = PersistedType._ceFromAny(value) else { return nil }
        guard let converted = Self(persistedValue: persisted) else {
            throwRealmException("Could not convert value '\(persisted)' to type '\(Self.self)'.")
        }
        return converted
    }
    /// In an optional context a persisted value that does not convert is nil (Realm reads it so).
    public static func _ceFromAnyInsideOptional(_ value: Any) -> Self?? {
        if let same = value as? Self { return .some(same) }
        guard let persisted = PersistedType._ceFromAny(value) else { return nil }
        return .some(Self(persistedValue: persisted))
    }
    /// Hashes the persisted value.
    public func hash(into hasher: inout Hasher) { persistableValue.hash(into: &hasher) }
}
