// Realm+OpenBehavior.swift — Realm.OpenBehavior: when an asynchronously opened Realm first
// downloads from a server, as in Realm Swift (accepted; it matters only with sync).

extension Realm {
    /// When opening a synchronized Realm should first download all data from the server
    /// (Realm's `OpenBehavior`). OpenRealm has no sync: every value opens the local file as
    /// `.never` does.
    ///
    ///     let realm = try await Realm(configuration: configuration, actor: db, downloadBeforeOpen: .never)
    @frozen public enum OpenBehavior: Sendable {
        /// Return the Realm as the synchronous initializer would.
        case never
        /// Download all data from the server before returning the Realm (sync only).
        case always
        /// Download before returning the first time the Realm is opened on this device (sync
        /// only).
        case once
    }
}
