// PersistableEnum.swift — PersistableEnum: enums stored by their raw value.

import CEngine
import Foundation

/// An enum stored by its raw value, as Realm's `PersistableEnum`: declare it with an Int or
/// String raw value and use it in `@Persisted` properties and collections. The default value of
/// a property is the first case.
///
///     enum Status: String, PersistableEnum {
///         case active, archived
///     }
///     class Task: Object {
///         @Persisted var status: Status          // .active by default
///         @Persisted var history: List<Status>
///     }
public protocol PersistableEnum: _Persistable, RealmCollectionValue, RawRepresentable, CaseIterable
where RawValue: _CValueConvertible {}

extension PersistableEnum {
    public static var _ceType: ce_type { RawValue._ceType }
    public static func _ceDefault() -> Self {
        guard let first = allCases.first else { throwRealmException("PersistableEnum '\(Self.self)' has no cases.") }
        return first
    }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        let raw = RawValue._ceRead(value, realm)
        guard let result = Self(rawValue: raw) else {
            throwRealmException("The stored value '\(raw)' is not a raw value of '\(Self.self)'.")
        }
        return result
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { rawValue._ceValue(arena, realm) }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let same = value as? Self { return same }
        return RawValue._ceFromAny(value).flatMap(Self.init(rawValue:))
    }
}
