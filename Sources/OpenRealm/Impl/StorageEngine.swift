// StorageEngine.swift — the Swift wrapper over the storage core of the C engine (cengine.h).
//
// This is the layer the object API (Realm, Object, Results, ...) will be built on. It is
// `package`-access: users of OpenRealm never see it, the command-line tool and the tests do.

import CEngine
import Foundation

/// An error reported by the C storage engine: its stable numeric code and its message.
///
/// Every fallible call of cengine.h leaves a thread-local last error; the wrapper reads it on the
/// same thread, immediately after the failing call, and throws it as an `EngineError`.
///
///     do {
///         let engine = try StorageEngine(path: "app.realm", options: .init(readOnly: true))
///         _ = engine.latestVersion
///     } catch let error as EngineError where error.code == .fileNotFound {
///         print(error)   // file not found: 'app.realm'
///     }
package struct EngineError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A stable error code of the engine (`ce_error_code`), with Swift names for the C constants.
    ///
    ///     if error.code == .invalidDatabase { ... }
    ///     error.code.cValue == CE_ERR_INVALID_DATABASE   // true
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value of the C constant (`CE_ERR_INVALID_DATABASE` is 12).
        package let rawValue: Int

        /// A code from its numeric value: `EngineError.Code(rawValue: 12) == .invalidDatabase`.
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// A code from the C enum: `EngineError.Code(CE_ERR_READ_ONLY) == .readOnly`.
        package init(_ code: ce_error_code) { self.rawValue = Int(code.rawValue) }

        /// The C enum value: `EngineError.Code.readOnly.cValue == CE_ERR_READ_ONLY`.
        package var cValue: ce_error_code { ce_error_code(rawValue: numericCast(rawValue)) }

        /// The engine's short name of the code: `EngineError.Code.fileNotFound.name == "file not found"`.
        package var name: String { String(cString: ce_error_name(cValue)) }

        /// The same as `name`: `"\(EngineError.Code.readOnly)" == "read-only"`.
        package var description: String { name }

        /// `CE_ERR_FAIL`: a generic failure with a message.
        package static let fail = Code(CE_ERR_FAIL)
        /// `CE_ERR_FILE_ACCESS`: an I/O error on the file.
        package static let fileAccess = Code(CE_ERR_FILE_ACCESS)
        /// `CE_ERR_FILE_PERMISSION_DENIED`: the operating system refused access.
        package static let filePermissionDenied = Code(CE_ERR_FILE_PERMISSION_DENIED)
        /// `CE_ERR_FILE_EXISTS`: the destination exists.
        package static let fileExists = Code(CE_ERR_FILE_EXISTS)
        /// `CE_ERR_FILE_NOT_FOUND`: no such file (read-only or no-create open).
        package static let fileNotFound = Code(CE_ERR_FILE_NOT_FOUND)
        /// `CE_ERR_INCOMPATIBLE_LOCK_FILE`: the lock file has another layout.
        package static let incompatibleLockFile = Code(CE_ERR_INCOMPATIBLE_LOCK_FILE)
        /// `CE_ERR_FILE_FORMAT_UPGRADE_REQUIRED`: the file has a newer or older format.
        package static let fileFormatUpgradeRequired = Code(CE_ERR_FILE_FORMAT_UPGRADE_REQUIRED)
        /// `CE_ERR_ADDRESS_SPACE_EXHAUSTED`: the file cannot be mapped.
        package static let addressSpaceExhausted = Code(CE_ERR_ADDRESS_SPACE_EXHAUSTED)
        /// `CE_ERR_SCHEMA_MISMATCH`: the schema differs from the file's.
        package static let schemaMismatch = Code(CE_ERR_SCHEMA_MISMATCH)
        /// `CE_ERR_INCOMPATIBLE_SESSION`: another process opened the file incompatibly.
        package static let incompatibleSession = Code(CE_ERR_INCOMPATIBLE_SESSION)
        /// `CE_ERR_OUT_OF_DISK_SPACE`: ENOSPC or EDQUOT.
        package static let outOfDiskSpace = Code(CE_ERR_OUT_OF_DISK_SPACE)
        /// `CE_ERR_INVALID_DATABASE`: not a database, or damaged beyond its last good commit.
        package static let invalidDatabase = Code(CE_ERR_INVALID_DATABASE)
        /// `CE_ERR_ALREADY_OPEN`: the file is open elsewhere.
        package static let alreadyOpen = Code(CE_ERR_ALREADY_OPEN)
        /// `CE_ERR_INVALID_ARGUMENT`: a bad option or argument.
        package static let invalidArgument = Code(CE_ERR_INVALID_ARGUMENT)
        /// `CE_ERR_WRONG_TRANSACTION_STATE`: e.g. advancing a write transaction.
        package static let wrongTransactionState = Code(CE_ERR_WRONG_TRANSACTION_STATE)
        /// `CE_ERR_TOO_MANY_VERSIONS`: more versions pinned than `maxActiveVersions`.
        package static let tooManyVersions = Code(CE_ERR_TOO_MANY_VERSIONS)
        /// `CE_ERR_TOO_MANY_READERS`: the reader table is full.
        package static let tooManyReaders = Code(CE_ERR_TOO_MANY_READERS)
        /// `CE_ERR_READ_ONLY`: a write on a read-only handle.
        package static let readOnly = Code(CE_ERR_READ_ONLY)
        /// `CE_ERR_OUT_OF_MEMORY`: an allocation failed.
        package static let outOfMemory = Code(CE_ERR_OUT_OF_MEMORY)
        /// `CE_ERR_CORRUPT`: a check on bytes read from the file failed.
        package static let corrupt = Code(CE_ERR_CORRUPT)
        /// `CE_ERR_INDEX_OUT_OF_BOUNDS`: an index past the end.
        package static let indexOutOfBounds = Code(CE_ERR_INDEX_OUT_OF_BOUNDS)
    }

    /// What went wrong, as a stable code: `error.code == .invalidDatabase`.
    package let code: Code

    /// The engine's sentence naming what went wrong, e.g. `"file not found: 'app.realm'"`.
    package let message: String

    /// An error with a code and a message: `EngineError(code: .readOnly, message: "cannot write")`.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message (or the code's name if the engine gave none): `print(error)`.
    package var description: String { message.isEmpty ? code.name : message }

    /// The last error of the C engine on this thread. Call it right after a C call returned false.
    ///
    ///     guard ce_db_verify(handle, &stats) else { throw EngineError.last() }
    package static func last() -> EngineError {
        let code = ce_last_error_code()
        let message = String(cString: ce_last_error_message())
        if code == CE_OK {
            return EngineError(code: .fail, message: message.isEmpty ? "the engine failed without an error" : message)
        }
        return EngineError(code: Code(code), message: message)
    }
}

/// One open database file of the storage engine: an owned `ce_db` handle, closed on deinit.
///
/// The storage core as the command-line tool uses it: transactions begin, commit and roll back,
/// and the file can be verified. Objects go through `Realm` instead.
///
///     let engine = try StorageEngine(path: "app.realm")
///     try engine.write { txn in /* changes */ }       // committed, durable on return
///     let version = try engine.read { txn in txn.version }
///     let stats = try engine.verify()
///
/// Thread safety: the class is `@unchecked Sendable` because its only state is the immutable
/// `ce_db` pointer and path, and cengine.h documents that a database handle may be shared by
/// threads (the engine guards its own state with a mutex and shared-memory atomics). Transaction
/// handles are not thread-safe; they are only ever handed to `read`/`write` closures as a borrowed,
/// non-copyable, non-`Sendable` `Transaction`, so they cannot be stored, returned or sent to
/// another thread, and every one has ended before the method returns. Hence no transaction is open
/// when the last reference goes away and `deinit` can always close the handle.
package final class StorageEngine: @unchecked Sendable {
    /// How much a commit waits for the disk (`ce_durability`).
    ///
    ///     StorageEngine.Options(durability: .unsafeNoSync)
    package enum Durability: Sendable, Equatable {
        /// The commit is on stable storage when `write` returns (`CE_DURABILITY_FULL`).
        case full
        /// The file lives only while open and is removed when the last handle closes; commits never
        /// fsync (`CE_DURABILITY_MEMORY_ONLY`, Realm's in-memory realms).
        case memoryOnly
        /// Commits reach the page cache but are not fsynced: a power failure may lose the latest
        /// commits, never consistency (`CE_DURABILITY_UNSAFE_NO_SYNC`).
        case unsafeNoSync

        fileprivate var cValue: ce_durability {
            switch self {
            case .full: CE_DURABILITY_FULL
            case .memoryOnly: CE_DURABILITY_MEMORY_ONLY
            case .unsafeNoSync: CE_DURABILITY_UNSAFE_NO_SYNC
            }
        }
    }

    /// How to open a database (`ce_db_options`). The defaults: read-write, create if missing,
    /// full durability, no limit on active versions.
    ///
    ///     let options = StorageEngine.Options(readOnly: true)
    package struct Options: Sendable, Equatable {
        /// Open without writing anything; the file must exist.
        package var readOnly: Bool
        /// Create the file if it is missing (false: fail with `.fileNotFound`).
        package var createIfMissing: Bool
        /// How much a commit waits for the disk.
        package var durability: Durability
        /// Beginning a write fails with `.tooManyVersions` while more than this many versions are
        /// live (the latest one plus each older one pinned by a read transaction); 0 means no limit.
        package var maxActiveVersions: UInt64
        /// The 64-byte key of an encrypted file (a new file is created encrypted with it), or nil
        /// for a plain file. Another length fails with `.invalidArgument`.
        package var encryptionKey: [UInt8]?
        /// Open an immutable snapshot without a lock file (`ce_db_options.immutable`): read-only,
        /// at the newest whole version, for a file nobody writes while it is open (a read-only
        /// directory or file system, where no lock file can be created).
        package var immutable: Bool

        /// Options with the given values: `StorageEngine.Options(createIfMissing: false)`.
        package init(
            readOnly: Bool = false,
            createIfMissing: Bool = true,
            durability: Durability = .full,
            maxActiveVersions: UInt64 = 0,
            encryptionKey: [UInt8]? = nil,
            immutable: Bool = false
        ) {
            self.readOnly = readOnly
            self.createIfMissing = createIfMissing
            self.durability = durability
            self.maxActiveVersions = maxActiveVersions
            self.encryptionKey = encryptionKey
            self.immutable = immutable
        }
    }

    /// Integrity statistics of the latest version (`ce_db_stats`), from `verify()`.
    ///
    ///     let stats = try engine.verify()
    ///     print(stats.usedBytes + stats.freeBytes == stats.logicalSize)   // true
    package struct Stats: Sendable, Equatable {
        /// The latest committed version.
        package var version: UInt64
        /// Bytes the file occupies on disk.
        package var fileSize: UInt64
        /// Bytes up to the end of the last node.
        package var logicalSize: UInt64
        /// Bytes in reachable nodes, plus the header.
        package var usedBytes: UInt64
        /// Bytes in the free lists.
        package var freeBytes: UInt64
        /// Reachable nodes.
        package var nodeCount: UInt64
        /// Ranges in the free lists.
        package var freeExtentCount: UInt64
        /// Distinct live versions: the latest one plus each older one a reader still pins.
        package var activeVersions: UInt64

        /// Stats from the C struct: `StorageEngine.Stats(cStats)`.
        package init(_ stats: ce_db_stats) {
            version = stats.version
            fileSize = stats.file_size
            logicalSize = stats.logical_size
            usedBytes = stats.used_bytes
            freeBytes = stats.free_bytes
            nodeCount = stats.node_count
            freeExtentCount = stats.free_extent_count
            activeVersions = stats.active_versions
        }
    }

    /// A transaction, lent to a `read` or `write` closure (a `ce_txn` handle).
    ///
    /// It is non-copyable and only ever borrowed, so it cannot outlive the closure; it is not
    /// `Sendable`, so it stays on the thread that began it.
    ///
    ///     try engine.read { txn in print(txn.version, txn.isWrite) }
    package struct Transaction: ~Copyable {
        /// The `ce_txn` handle, for layers that call the C API directly. Valid only inside the
        /// closure the transaction was lent to: `ce_txn_version(txn.handle)`.
        package let handle: OpaquePointer

        fileprivate init(_ handle: OpaquePointer) { self.handle = handle }

        /// The version the transaction sees; for a write, the version it commits on (the new
        /// version is this plus one): `try engine.read { $0.version }`.
        package var version: UInt64 { ce_txn_version(handle) }

        /// Whether this is a write transaction: `try engine.write { $0.isWrite }` is true.
        package var isWrite: Bool { ce_txn_is_write(handle) }

        /// Moves a read transaction to the latest committed version (a write transaction throws
        /// `.wrongTransactionState`).
        ///
        ///     try engine.read { txn in
        ///         try engine.write { _ in }
        ///         try txn.advance()          // now sees the write
        ///     }
        package func advance() throws(EngineError) {
            guard ce_txn_advance(handle) else { throw EngineError.last() }
        }
    }

    /// The `ce_db` handle, for layers that call the C API directly: `ce_db_path(engine.handle)`.
    package let handle: OpaquePointer

    /// The path of the database file (for an in-memory identifier: the file the engine made for it).
    ///
    ///     try StorageEngine(path: "app.realm").path   // "app.realm"
    package let path: String

    /// Opens (or creates) the database file at `path`, and its lock file `<path>.lock`.
    ///
    ///     let engine = try StorageEngine(path: "app.realm")
    ///     let reader = try StorageEngine(path: "app.realm", options: .init(readOnly: true))
    ///
    /// Throws `.fileNotFound` (missing and read-only or not created), `.filePermissionDenied`,
    /// `.invalidDatabase` (not a database, or damaged), `.fileFormatUpgradeRequired`, `.fileAccess`.
    package convenience init(path: String, options: Options = Options()) throws(EngineError) {
        try self.init(path: path, inMemoryIdentifier: nil, options: options)
    }

    /// Opens (or creates) the in-memory database named `identifier` within the machine: handles
    /// with the same identifier share it, and its files are removed when the last one closes.
    ///
    ///     let engine = try StorageEngine(inMemoryIdentifier: "cache")
    package convenience init(
        inMemoryIdentifier identifier: String, maxActiveVersions: UInt64 = 0, encryptionKey: [UInt8]? = nil
    ) throws(EngineError) {
        let options = Options(durability: .memoryOnly, maxActiveVersions: maxActiveVersions, encryptionKey: encryptionKey)
        try self.init(path: nil, inMemoryIdentifier: identifier, options: options)
    }

    private init(path: String?, inMemoryIdentifier: String?, options: Options) throws(EngineError) {
        var cOptions = ce_db_options()
        ce_db_options_init(&cOptions)
        cOptions.read_only = options.readOnly
        cOptions.no_create = !options.createIfMissing
        cOptions.durability = options.durability.cValue
        cOptions.max_active_versions = options.maxActiveVersions
        cOptions.immutable = options.immutable
        var db: OpaquePointer?
        let opened = Self.withOptionalCString(path) { cPath in
            Self.withOptionalCString(inMemoryIdentifier) { cIdentifier in
                Self.withOptionalKey(options.encryptionKey) { key, size in
                    cOptions.in_memory_identifier = cIdentifier
                    cOptions.encryption_key = key
                    cOptions.encryption_key_size = size
                    return ce_db_open(cPath, &cOptions, &db)
                }
            }
        }
        guard opened, let db else { throw EngineError.last() }
        handle = db
        self.path = String(cString: ce_db_path(db))
    }

    private static func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let string else { return body(nil) }
        return string.withCString { body($0) }
    }

    /// Calls `body` with the address and size of `key` (nil and 0 without a key).
    private static func withOptionalKey<R>(_ key: [UInt8]?, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
        guard let key else { return body(nil, 0) }
        return key.withUnsafeBytes { body($0.baseAddress, $0.count) }
    }

    deinit {
        // A weak reference to this engine already reads nil while the handle below is still open
        // (its file lock held): the close is announced so that a first open of the same file in
        // this process can wait for it (`waitForClosing(path:)`).
        Self.closing.begin(path)
        defer { Self.closing.end(path) }
        // Transactions cannot outlive the `read`/`write` call that began them, so none is open and
        // closing cannot fail with CE_ERR_WRONG_TRANSACTION_STATE (its only failure).
        let closed = ce_db_close(handle)
        assert(closed, "ce_db_close failed: \(EngineError.last())")
    }

    /// The closes of this process that are running, by file path.
    private static let closing = ClosingFiles()

    /// Returns once no engine of `path` is closing on another thread. The first open of a file in
    /// the process calls it before it compacts or deletes the file, which need the process's last
    /// handle of the file to be gone, not only unreachable.
    ///
    ///     StorageEngine.waitForClosing(path: url.path)
    package static func waitForClosing(path: String) { closing.wait(path) }

    /// The engine's version string: `StorageEngine.engineVersion == "0.1.0"`.
    package static var engineVersion: String { String(cString: ce_engine_version()) }

    /// The latest committed version of the database, without a transaction (a new file starts at 1).
    ///
    ///     let before = engine.latestVersion
    ///     try engine.write { _ in }
    ///     engine.latestVersion == before + 1   // true
    package var latestVersion: UInt64 {
        var version: UInt64 = 0
        // Fails only for NULL arguments, which this wrapper never passes.
        let ok = ce_db_latest_version(handle, &version)
        precondition(ok, "ce_db_latest_version failed: \(EngineError.last())")
        return version
    }

    /// Runs `body` in the write transaction and commits it when `body` returns: the commit is
    /// durable (with `.full` durability) when `write` returns. If `body` throws, the transaction is
    /// rolled back and the error rethrown; if the commit fails, nothing a reader sees has changed
    /// and the engine's error is thrown. Waits while another thread or process writes.
    ///
    ///     let committedOn = try engine.write { txn in txn.version }   // new version: committedOn + 1
    ///
    /// Do not call `write` on the same engine from inside `body`: the engine waits for the
    /// outer write to end, forever.
    package func write<Result>(_ body: (borrowing Transaction) throws -> Result) throws -> Result {
        var raw: OpaquePointer?
        guard ce_txn_begin_write(handle, &raw), let raw else { throw EngineError.last() }
        let result: Result
        do {
            result = try body(Transaction(raw))
        } catch {
            ce_txn_end(raw)
            throw error
        }
        // A successful ce_txn_commit ends the transaction; a failed one leaves it to be ended.
        guard ce_txn_commit(raw) else {
            let error = EngineError.last()
            ce_txn_end(raw)
            throw error
        }
        return result
    }

    /// Runs `body` in a read transaction: a snapshot of the latest committed version that later
    /// commits do not change (until `advance()`). Never blocks.
    ///
    ///     let version = try engine.read { txn in txn.version }
    package func read<Result>(_ body: (borrowing Transaction) throws -> Result) throws -> Result {
        var raw: OpaquePointer?
        guard ce_txn_begin_read(handle, &raw), let raw else { throw EngineError.last() }
        defer { ce_txn_end(raw) }
        return try body(Transaction(raw))
    }

    /// Proves the latest version of the file sound (every reachable node and free range checked,
    /// nothing overlapping, nothing leaked) and returns its statistics. Throws `.corrupt` or
    /// `.invalidDatabase` with a message naming the offset when it is not.
    ///
    ///     let stats = try engine.verify()
    ///     print("\(stats.nodeCount) nodes, \(stats.freeBytes) bytes free")
    package func verify() throws(EngineError) -> Stats {
        var stats = ce_db_stats()
        guard ce_db_verify(handle, &stats) else { throw EngineError.last() }
        return Stats(stats)
    }
}

extension StorageEngine {
    /// Writes a compacted copy of what the transaction `txn` sees (a `ce_txn`; for a write
    /// transaction, with its uncommitted changes) to a new file at `path`, which must not exist
    /// (`.fileExists`): encrypted with `encryptionKey`, or plain without one, whatever the source
    /// is. The transaction stays open; the file appears at `path` only once it is whole.
    ///
    ///     try engine.read { txn in try StorageEngine.writeCopy(of: txn.handle, to: "backup.realm", encryptionKey: nil) }
    package static func writeCopy(of txn: OpaquePointer, to path: String, encryptionKey: [UInt8]?) throws(EngineError) {
        var options = ce_copy_options()
        ce_copy_options_init(&options)
        let ok = withOptionalKey(encryptionKey) { key, size in
            options.encryption_key = key
            options.encryption_key_size = size
            return ce_txn_write_copy(txn, path, &options)
        }
        guard ok else { throw EngineError.last() }
    }

    /// Compacts the file in place, keeping its key: throws `.alreadyOpen` (nothing changed) when
    /// another handle or process has it open, `.wrongTransactionState` while a transaction of
    /// this handle is open, `.readOnly` on a read-only handle.
    ///
    ///     try engine.compact()
    package func compact() throws(EngineError) {
        guard ce_db_compact(handle, nil) else { throw EngineError.last() }
    }

    /// The size of the file on disk and about the size a compacted copy would have
    /// (Realm's `shouldCompactOnLaunch` arguments).
    ///
    ///     let (total, used) = try engine.sizeInfo()
    package func sizeInfo() throws(EngineError) -> (totalBytes: UInt64, usedBytes: UInt64) {
        var total: UInt64 = 0
        var used: UInt64 = 0
        guard ce_db_size_info(handle, &total, &used) else { throw EngineError.last() }
        return (total, used)
    }
}

@available(*, unavailable, message: "a transaction belongs to the thread that began it")
extension StorageEngine.Transaction: Sendable {}

/// Counts the engines of each file path whose `deinit` is closing the handle, and lets a thread
/// wait until there are none.
private final class ClosingFiles: @unchecked Sendable {
    // Guarded by `condition`.
    private var counts: [String: Int] = [:]
    private let condition = NSCondition()

    func begin(_ path: String) {
        condition.lock()
        counts[path, default: 0] += 1
        condition.unlock()
    }

    func end(_ path: String) {
        condition.lock()
        if let count = counts[path], count > 1 { counts[path] = count - 1 } else { counts[path] = nil }
        condition.broadcast()
        condition.unlock()
    }

    func wait(_ path: String) {
        condition.lock()
        while counts[path] != nil { condition.wait() }
        condition.unlock()
    }
}
