// Realm+Configuration+Equatable.swift — when two configurations are equal, as in Realm Swift.

import Foundation

extension Realm.Configuration: Equatable {
    /// Whether two configurations open the same Realm the same way: the same file or in-memory
    /// identifier, encryption key, read-only mode and schema version (Realm's comparison: the
    /// blocks and object types are not compared).
    ///
    ///     Realm.Configuration(fileURL: url) == Realm.Configuration(fileURL: url)   // true
    public static func == (lhs: Realm.Configuration, rhs: Realm.Configuration) -> Bool {
        lhs.encryptionKey == rhs.encryptionKey && lhs.fileURL == rhs.fileURL
            && lhs.inMemoryIdentifier == rhs.inMemoryIdentifier && lhs.readOnly == rhs.readOnly
            && lhs.schemaVersion == rhs.schemaVersion
    }
}
