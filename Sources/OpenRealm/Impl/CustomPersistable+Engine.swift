// CustomPersistable+Engine.swift — _CustomPersistable (what CustomPersistable and
// FailableCustomPersistable share) and how their values reach the engine: as their persisted
// value, through the persisted type's own conversions.

import CEngine
import Foundation

/// What `CustomPersistable` and `FailableCustomPersistable` share: the type is stored as its
/// `PersistedType`, one of the stored types that may also be optional. Internal machinery of
/// OpenRealm: applications conform to the two public protocols.
public protocol _CustomPersistable: _Persistable, _RealmCollectionValueInsideOptional
where PersistedType: _Persistable & _RealmCollectionValueInsideOptional {}

extension _CustomPersistable {
    public static var _ceType: ce_type { PersistedType._ceType }
}

extension CustomPersistable {
    public static func _ceDefault() -> Self { Self(persistedValue: PersistedType._ceDefault()) }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        Self(persistedValue: PersistedType._ceRead(value, realm))
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { persistableValue._ceValue(arena, realm) }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let same = value as? Self { return same }
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
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        let persistedValue = PersistedType._ceRead(value, realm)
        if let result = Self(persistedValue: persistedValue) { return result }
        throwRealmException("Failed to convert persisted value '\(persistedValue)' to type '\(Self.self)' in a non-optional context.")
    }
    /// In an optional context a value that does not convert reads as nil.
    public static func _ceReadInsideOptional(_ value: ce_value, _ realm: Realm?) -> Self? {
        value.isNull ? nil : Self(persistedValue: PersistedType._ceRead(value, realm))
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { persistableValue._ceValue(arena, realm) }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let same = value as? Self { return same }
        return PersistedType._ceFromAny(value).flatMap(Self.init(persistedValue:))
    }
    /// Hashes the persisted value.
    public func hash(into hasher: inout Hasher) { persistableValue.hash(into: &hasher) }
}
