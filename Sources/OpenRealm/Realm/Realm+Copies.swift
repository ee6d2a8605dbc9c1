// Realm+Copies.swift — copies and files of a Realm: writeCopy, fileExists, deleteFiles.

import Foundation

extension Realm {
    // MARK: Copies and files

    /// Writes a compacted copy of the Realm to a new file at `fileURL`: only the live data, with
    /// no free space, encrypted with `encryptionKey` (64 bytes), or a plain copy without one,
    /// whether or not this Realm is encrypted. The copy holds the version this Realm reads; called
    /// inside a write transaction, the *current* data, with the changes not committed yet (the
    /// write goes on). Other threads and processes go on writing meanwhile. The file appears
    /// only once it is whole.
    ///
    ///     try realm.writeCopy(toFile: URL(fileURLWithPath: "backup.realm"))
    ///     try realm.writeCopy(toFile: URL(fileURLWithPath: "secret.realm"), encryptionKey: key)
    ///
    /// Throws `.fileExists` if something exists at `fileURL` (it is never replaced),
    /// `.fileNotFound` if its directory does not exist, `.outOfDiskSpace`, `.fileAccess`. A key
    /// that is not 64 bytes is a programmer error ("Encryption key must be exactly 64 bytes
    /// long").
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        try core.writeCopy(to: fileURL, encryptionKey: encryptionKey)
    }

    /// Writes a compacted copy of the Realm to the file of `configuration`, encrypted with its
    /// `encryptionKey` (or plain without one); open it afterwards with that configuration. As
    /// `writeCopy(toFile:encryptionKey:)`; a configuration of an in-memory Realm throws `.fail`.
    ///
    ///     var backup = Realm.Configuration(fileURL: URL(fileURLWithPath: "backup.realm"))
    ///     backup.encryptionKey = key
    ///     try realm.writeCopy(configuration: backup)
    ///     let copy = try Realm(configuration: backup)
    public func writeCopy(configuration: Realm.Configuration) throws {
        guard configuration.inMemoryIdentifier == nil else {
            RealmCore.validateEncryptionKey(configuration.encryptionKey)
            throw Realm.Error(code: .fail, message:
                "Cannot write a copy to the in-memory Realm '\(configuration.inMemoryIdentifier ?? "")': writeCopy needs a configuration with a fileURL.")
        }
        try core.writeCopy(
            to: configuration.fileURL ?? Configuration.defaultFileURL, encryptionKey: configuration.encryptionKey)
    }

    /// Whether the file of `config` exists (false for an in-memory configuration).
    ///
    ///     if !Realm.fileExists(for: config) { print("first launch") }
    public static func fileExists(for config: Realm.Configuration) -> Bool {
        guard config.inMemoryIdentifier == nil else { return false }
        return FileManager.default.fileExists(atPath: (config.fileURL ?? Configuration.defaultFileURL).path)
    }

    /// Deletes the file of `config` and every file the engine keeps beside it (the lock file, and
    /// what an interrupted compaction or copy left); returns whether the Realm file existed.
    /// Throws `.alreadyOpen` ("Cannot delete files of an open Realm: '...' is still in use.") if
    /// the file is open in this process or another, and `Realm.Error` if a file cannot be removed.
    /// In-memory configurations have no files: it returns false.
    ///
    ///     try Realm.deleteFiles(for: config)
    @discardableResult
    public static func deleteFiles(for config: Realm.Configuration) throws -> Bool {
        guard config.inMemoryIdentifier == nil else { return false }
        let path = (config.fileURL ?? Configuration.defaultFileURL).path
        if RealmCore.isOpen(config) {
            throw Realm.Error(code: .alreadyOpen, message:
                "Cannot delete files of an open Realm: '\(path)' is still in use.", fileURL: config.fileURL)
        }
        return try RealmCore.deleteFiles(atPath: path, fileURL: config.fileURL)
    }
}
