// FailableCustomPersistable.swift — FailableCustomPersistable: a type stored as another type
// that Realm stores, whose conversion from it may fail.

import Foundation

/// A type mapped to and from one that Realm stores, as `CustomPersistable`, but whose
/// initialiser from the persisted value may fail (Realm's protocol of the same name):
///
///     extension URL: FailableCustomPersistable {
///         public typealias PersistedType = String
///         public init?(persistedValue: String) { self.init(string: persistedValue) }
///         public var persistableValue: String { absoluteString }
///     }
///
/// A stored value that does not convert stops the program when read in a non-optional context
/// (`@Persisted var url: URL`) and reads as nil in an optional one (`@Persisted var url: URL?`,
/// `List<URL?>`).
public protocol FailableCustomPersistable: _CustomPersistable {
    /// Construct an instance of the this type from the persisted type,
    /// returning nil if the conversion is not possible.
    ///
    /// This function must not return `nil` when given a default-initalized
    /// `PersistedType()`.
    init?(persistedValue: PersistedType)
    /// Construct an instance of the persisted type from this type.
    var persistableValue: PersistedType { get }
}
