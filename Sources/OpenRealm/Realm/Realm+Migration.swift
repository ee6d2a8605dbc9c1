// Realm+Migration.swift — running a configuration's migration on its own, and reading a file's
// schema version, as in Realm Swift.

import Foundation

/// The schema version of the Realm file at `fileURL` (Realm's `schemaVersionAtURL`): throws if
/// the file cannot be opened, or has no schema yet.
///
///     let version = try schemaVersionAtURL(url)
///     if version < 3 { try Realm.performMigration(for: config) }
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    try RealmCore.schemaVersion(at: fileURL, encryptionKey: encryptionKey)
}

extension Realm {
    /// Opens the Realm of `configuration` once, which runs its migration if the schema version
    /// increased (what opening the Realm does anyway), and closes it again unless other Realms
    /// of this process have it open: to choose when the migration runs.
    ///
    ///     try Realm.performMigration(for: config)
    public static func performMigration(for configuration: Realm.Configuration = Realm.Configuration.defaultConfiguration) throws {
        _ = try Realm(configuration: configuration)
    }
}
