// PersistableEnum.swift — PersistableEnum: enums stored by their raw value.

import Foundation

/// An enum stored by its raw value, as Realm's `PersistableEnum`: declare it with an Int or
/// String raw value and use it in `@Persisted` properties and collections. The default value of
/// a property is the first case; it is stored (and queried) as its raw value, its `PersistedType`.
///
///     enum Status: String, PersistableEnum {
///         case active, archived
///     }
///     class Task: Object {
///         @Persisted var status: Status          // .active by default
///         @Persisted var history: List<Status>
///     }
public protocol PersistableEnum: _Persistable, _RealmCollectionValueInsideOptional, RawRepresentable, CaseIterable
where RawValue: _RealmCollectionValueInsideOptional, PersistedType == RawValue {}

