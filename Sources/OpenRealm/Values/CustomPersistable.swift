// CustomPersistable.swift — CustomPersistable: a type stored as another type that Realm stores.

import Foundation

/// A type that Realm does not store itself, mapped to and from one it does (Realm's protocol of
/// the same name). Declare the `PersistedType` it is stored as (a stored type: `String`, `Int`,
/// `Data`, `Date`, `UUID`, `ObjectId`, `Decimal128`, ...), the initialiser from that type and the
/// property giving it; the type can then be a `@Persisted` property (optional or not) and an
/// element of `List`, `MutableSet` and `Map`:
///
///     struct Email: CustomPersistable, Hashable {
///         typealias PersistedType = String
///         var address: String
///         init(persistedValue: String) { address = persistedValue }
///         var persistableValue: String { address }
///     }
///     class Contact: Object {
///         @Persisted var email: Email
///         @Persisted var others: List<Email>
///     }
///
/// Queries work on the persisted type: a value in a query is the custom type
/// (`$0.email == someEmail`) or its persisted value (`filter("email == %@", someEmail.persistableValue)`).
/// When the conversion from the persisted type may fail, use `FailableCustomPersistable`.
public protocol CustomPersistable: _CustomPersistable {
    /// Construct an instance of this type from the persisted type.
    init(persistedValue: PersistedType)
    /// Construct an instance of the persisted type from this type.
    var persistableValue: PersistedType { get }
}
