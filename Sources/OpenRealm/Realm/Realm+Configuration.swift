// Realm+Configuration.swift — Realm.Configuration: where a Realm lives and how it is opened.

import Foundation
import Synchronization

extension Realm {
    /// How a Realm is opened: its file (or in-memory identifier), schema version, the model
    /// classes it holds, and options. A value type: change a copy, then open with it.
    ///
    ///     var config = Realm.Configuration.defaultConfiguration
    ///     config.fileURL = URL(fileURLWithPath: "/data/app.realm")
    ///     config.schemaVersion = 2
    ///     config.objectTypes = [Person.self, Dog.self]
    ///     let realm = try Realm(configuration: config)
    public struct Configuration: Sendable, CustomStringConvertible {
        // MARK: Default configuration

        private static let defaultStorage = Mutex<Configuration?>(nil)

        /// The configuration `Realm()` uses. Unless set, it opens `default.realm` in the current
        /// directory. Setting it changes what later `Realm()` calls open.
        ///
        ///     Realm.Configuration.defaultConfiguration = .init(inMemoryIdentifier: "cache")
        ///     let realm = try Realm()            // the in-memory realm "cache"
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.withLock { $0 } ?? Configuration() }
            set { defaultStorage.withLock { $0 = newValue } }
        }

        /// The URL of `default.realm` in the current directory.
        @usableFromInline static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
                .appendingPathComponent("default.realm", isDirectory: false)
        }

        // MARK: Properties

        private var _fileURL: URL?
        private var _inMemoryIdentifier: String?

        /// The file of the Realm. Setting it clears `inMemoryIdentifier`; it is nil while the
        /// configuration names an in-memory Realm.
        ///
        ///     config.fileURL = URL(fileURLWithPath: "app.realm")
        public var fileURL: URL? {
            get { _fileURL }
            set {
                _fileURL = newValue
                if newValue != nil { _inMemoryIdentifier = nil }
            }
        }

        /// The name of an in-memory Realm: Realms opened with the same identifier in this process
        /// share their data, which is lost when the last of them closes. Setting it clears
        /// `fileURL` and `seedFilePath` (Realm's rule).
        ///
        ///     config.inMemoryIdentifier = "test"
        public var inMemoryIdentifier: String? {
            get { _inMemoryIdentifier }
            set {
                _inMemoryIdentifier = newValue
                if newValue != nil {
                    _fileURL = nil
                    seedFilePath = nil
                }
            }
        }

        /// A Realm file copied to `fileURL` when the Realm is opened and no file exists there
        /// yet (a database shipped with the app, for example); an existing file is opened as it
        /// is. A seed that cannot be copied (it does not exist) throws `.fileAccess` ("Unable to
        /// copy seed file ..."). An encrypted seed needs the configuration's `encryptionKey`. Not
        /// for in-memory Realms: setting `inMemoryIdentifier` clears it, and opening a
        /// configuration that has both throws `.fail`.
        ///
        ///     var config = Realm.Configuration(fileURL: documents.appendingPathComponent("app.realm"))
        ///     config.seedFilePath = Bundle.main.url(forResource: "seed", withExtension: "realm")
        ///     let realm = try Realm(configuration: config)
        public var seedFilePath: URL?

        /// The 64-byte key of an encrypted Realm, or nil for a plain file. A new file is created
        /// encrypted with it (every page AES-256-GCM, under keys derived from all 64 bytes); an
        /// existing file opens only with the key it was created with. Keep the key somewhere safe
        /// (a keychain, a secrets store): without it the data cannot be read.
        ///
        ///     var key = Data(count: 64)
        ///     key.withUnsafeMutableBytes { _ = getentropy($0.baseAddress, 64) }
        ///     var config = Realm.Configuration(fileURL: url, encryptionKey: key)
        ///     let realm = try Realm(configuration: config)
        ///
        /// A key of another length is a programmer error ("Encryption key must be exactly 64
        /// bytes long"). A wrong key, a key for a plain file, or no key for an encrypted file
        /// throws `.invalidDatabase` ("... Realm file decryption failed ..."). In-memory Realms
        /// may have a key too (their backing file is encrypted).
        public var encryptionKey: Data?

        /// Open the file without writing to it: writes are programmer errors, the file must
        /// exist (else `.fileNotFound`), and its schema must match the models.
        ///
        ///     let reader = try Realm(configuration: .init(fileURL: url, readOnly: true))
        public var readOnly: Bool

        /// The version of the models. A change to the models (a new or removed property) needs a
        /// higher version than the file's; additive changes are then applied on open.
        ///
        ///     config.schemaVersion = 3
        public var schemaVersion: UInt64

        /// Runs when the file's schema version is lower than `schemaVersion`, after the tables
        /// were brought in line with the models, in the same write transaction: copy, convert or
        /// compute the values the new schema needs from the objects as they were.
        ///
        ///     config.migrationBlock = { migration, oldSchemaVersion in
        ///         migration.renameProperty(onType: "Person", from: "name", to: "fullName")
        ///     }
        public var migrationBlock: MigrationBlock?

        /// Delete the file and start empty when its schema needs a migration, instead of throwing
        /// `.schemaMismatch`.
        ///
        ///     config.deleteRealmIfMigrationNeeded = true
        public var deleteRealmIfMigrationNeeded: Bool

        /// Decides whether to compact the file when it is first opened in the process: called with
        /// the file's size on disk (`totalBytes`) and about the size of its live data
        /// (`usedBytes`); returning true compacts the file in place (a copy of the live data
        /// renamed over it, keeping its key) before the Realm is returned. Skipped when another
        /// process has the file open, when a Realm of the file is already open in this process
        /// (the block is not called), and for in-memory Realms.
        ///
        ///     config.shouldCompactOnLaunch = { totalBytes, usedBytes in
        ///         totalBytes > 100 * 1024 * 1024 && Double(usedBytes) / Double(totalBytes) < 0.5
        ///     }
        ///
        /// Setting it together with `readOnly` is a programmer error ("Cannot set
        /// `shouldCompactOnLaunch` when `readOnly` is set.").
        public var shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)?

        /// The model classes the Realm holds. nil: every class the program uses (a class gets its
        /// table when first used). With a list, using another class is a programmer error.
        ///
        ///     config.objectTypes = [Person.self, Dog.self, Address.self]
        public var objectTypes: [ObjectBase.Type]? {
            get { _objectTypes?.types }
            set { _objectTypes = newValue.map(ObjectTypes.init) }
        }
        private var _objectTypes: ObjectTypes?

        /// Beginning a write fails when more versions than this are pinned by readers (a guard
        /// against a reader that never ends). nil: no limit.
        ///
        ///     config.maximumNumberOfActiveVersions = 64
        public var maximumNumberOfActiveVersions: UInt?

        /// A configuration with the given options. By default: `default.realm` in the current
        /// directory, schema version 0, every model class, read-write.
        ///
        ///     let config = Realm.Configuration(inMemoryIdentifier: "test", objectTypes: [Person.self])
        public init(
            fileURL: URL? = Configuration.defaultFileURL,
            inMemoryIdentifier: String? = nil,
            encryptionKey: Data? = nil,
            readOnly: Bool = false,
            schemaVersion: UInt64 = 0,
            migrationBlock: MigrationBlock? = nil,
            deleteRealmIfMigrationNeeded: Bool = false,
            shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)? = nil,
            objectTypes: [ObjectBase.Type]? = nil,
            maximumNumberOfActiveVersions: UInt? = nil,
            seedFilePath: URL? = nil
        ) {
            self._fileURL = fileURL
            self._inMemoryIdentifier = nil
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self._objectTypes = objectTypes.map(ObjectTypes.init)
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.seedFilePath = seedFilePath
            if let inMemoryIdentifier { self.inMemoryIdentifier = inMemoryIdentifier }
        }

        /// Realm's form (its RLMRealmConfiguration's, renamed): one line per setting, nil as
        /// `(null)` and flags as `0`/`1`; with `objectTypes`, their schema as `customSchema`.
        ///
        ///     Realm.Configuration {
        ///         fileURL = file:///path/default.realm;
        ///         inMemoryIdentifier = (null);
        ///         ...
        ///     }
        ///
        /// A key is described by its length, a closure as `<closure>` (Realm gives Objective-C's
        /// descriptions of its NSData and blocks).
        public var description: String {
            let customSchema = objectTypes.map { types in
                Schema(objectSchema: RealmCore.closure(types.map(ObjectSchemaInfo.of)).map(\.publicSchema)).description
            }
            let settings: [(String, String?)] = [
                ("fileURL", inMemoryIdentifier == nil ? (fileURL ?? Configuration.defaultFileURL).absoluteString : nil),
                ("inMemoryIdentifier", inMemoryIdentifier),
                ("encryptionKey", encryptionKey.map { "{length = \($0.count)}" }),
                ("readOnly", readOnly ? "1" : "0"),
                ("schemaVersion", String(schemaVersion)),
                ("migrationBlock", migrationBlock == nil ? nil : "<closure>"),
                ("deleteRealmIfMigrationNeeded", deleteRealmIfMigrationNeeded ? "1" : "0"),
                ("shouldCompactOnLaunch", shouldCompactOnLaunch == nil ? nil : "<closure>"),
                ("dynamic", "0"),
                ("customSchema", customSchema),
            ]
            let lines = settings.map { name, value in
                "\t\(name) = \((value ?? "(null)").split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n\t"));\n"
            }
            return "Realm.Configuration {\n\(lines.joined())}"
        }

        /// Copies `seedFilePath` to the file when the file does not exist (Realm copies the seed
        /// only then); nothing without a seed.
        func copySeedFileIfNeeded() throws(Realm.Error) {
            guard let seedFilePath else { return }
            if inMemoryIdentifier != nil {
                throw Realm.Error(code: .fail, message: "Cannot use `seedFilePath` with an in-memory Realm (`inMemoryIdentifier` is set).")
            }
            let url = fileURL ?? Configuration.defaultFileURL
            if FileManager.default.fileExists(atPath: url.path) { return }
            // A directory (or other non-file) as the seed: copyItem would copy the whole tree to
            // the Realm's path (into itself, when the file is inside it).
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: seedFilePath.path, isDirectory: &isDirectory), isDirectory.boolValue {
                throw Realm.Error(code: .fileAccess, message: "Unable to copy seed file '\(seedFilePath.path)' to '\(url.path)': it is a directory",
                                  fileURL: seedFilePath)
            }
            // Copied beside the file under a temporary name, then linked into place (link(2) never
            // replaces a file): a process killed during the copy leaves no partial Realm file, and
            // of two that copy at once the first wins and the other opens its file.
            let temporary = url.deletingLastPathComponent()
                .appendingPathComponent(".\(url.lastPathComponent).seed-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: temporary) }
            do {
                try FileManager.default.copyItem(at: seedFilePath, to: temporary)
            } catch {
                let reason = FileManager.default.fileExists(atPath: seedFilePath.path)
                    ? error.localizedDescription : "no file exists at '\(seedFilePath.path)'"
                throw Realm.Error(code: .fileAccess, message: "Unable to copy seed file '\(seedFilePath.path)' to '\(url.path)': \(reason)",
                                  fileURL: seedFilePath)
            }
            if link(temporary.path, url.path) != 0 {
                let code = errno
                // Another thread or process copied it first: open what is there.
                if code == EEXIST { return }
                throw Realm.Error(code: .fileAccess,
                                  message: "Unable to copy seed file '\(seedFilePath.path)' to '\(url.path)': \(String(cString: strerror(code)))",
                                  fileURL: seedFilePath)
            }
        }

        /// The key of the open database: the absolute path, or the in-memory identifier.
        var storageKey: String {
            if let inMemoryIdentifier { return "memory:" + inMemoryIdentifier }
            return "file:" + (fileURL ?? Configuration.defaultFileURL).standardizedFileURL.path
        }
    }
}

/// The list of model classes, kept as a Sendable value (class metatypes are immutable).
private struct ObjectTypes: @unchecked Sendable {
    let types: [ObjectBase.Type]
}
