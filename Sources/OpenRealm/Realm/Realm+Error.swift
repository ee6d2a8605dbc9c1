// Realm+Error.swift — Realm.Error: the errors users catch, mapped from the engine's codes.

import Foundation

extension Realm {
    /// An error thrown by OpenRealm for a runtime condition: a file that cannot be opened, a
    /// schema that needs a migration, a full disk. Its `code` is one of Realm's `Code`s.
    ///
    /// Programmer errors (a write outside a write transaction, a nested write, modifying a
    /// deleted object) are not thrown: they stop the program with a precondition failure and
    /// Realm's message, as Realm's exceptions do.
    ///
    ///     do {
    ///         let realm = try Realm(configuration: .init(fileURL: url, readOnly: true))
    ///     } catch Realm.Error.fileNotFound {
    ///         print("no such file")
    ///     } catch let error as Realm.Error where error.code == .schemaMismatch {
    ///         print(error.localizedDescription)   // Migration is required due to the following errors: ...
    ///     }
    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
        /// Realm's error codes (`RLMError.Code`), with Realm's numeric values.
        ///
        ///     error.code == .fileNotFound
        public enum Code: Int, Sendable, Hashable {
            /// A generic failure; the message says what failed.
            case fail = 1
            /// An I/O error on the file.
            case fileAccess = 2
            /// The operating system refused access to the file.
            case filePermissionDenied = 3
            /// The destination file exists already.
            case fileExists = 4
            /// The file does not exist (opening read-only, or a missing directory).
            case fileNotFound = 5
            /// The file has a format this version cannot open without an upgrade.
            case fileFormatUpgradeRequired = 6
            /// The lock file was made by a process that cannot share it with this one.
            case incompatibleLockFile = 8
            /// The file cannot be mapped into memory.
            case addressSpaceExhausted = 9
            /// The models differ from the file's schema, and a migration is required.
            case schemaMismatch = 10
            /// The operation cannot be performed on a file that is open.
            case alreadyOpen = 12
            /// An input value was invalid.
            case invalidInput = 13
            /// A write failed for lack of disk space.
            case outOfDiskSpace = 14
            /// Another process opened the file in a way that cannot be shared.
            case incompatibleSession = 15
            /// A file operation failed in a way no other code describes.
            case fileOperationFailed = 19
            /// The file is not a Realm database, or is damaged.
            case invalidDatabase = 20
        }

        /// What went wrong, as a stable code: `error.code == .schemaMismatch`.
        public let code: Code

        /// The sentence describing the error, e.g. `"file not found: '/data/app.realm'"`.
        public let message: String

        /// The file the error concerns, when it concerns one.
        ///
        ///     error.fileURL?.lastPathComponent   // "app.realm"
        public let fileURL: URL?

        /// An error with a code and a message.
        ///
        ///     throw Realm.Error(code: .fail, message: "cannot do that")
        public init(code: Code, message: String, fileURL: URL? = nil) {
            self.code = code
            self.message = message
            self.fileURL = fileURL
        }

        /// The message: `print(error)`.
        public var description: String { message }

        /// The message, as `error.localizedDescription` shows it.
        public var errorDescription: String? { message }

        /// `Realm.Error.fail`, for `catch Realm.Error.fail`.
        public static var fail: Code { .fail }
        /// `Realm.Error.fileAccess`, for `catch Realm.Error.fileAccess`.
        public static var fileAccess: Code { .fileAccess }
        /// `Realm.Error.filePermissionDenied`, for `catch Realm.Error.filePermissionDenied`.
        public static var filePermissionDenied: Code { .filePermissionDenied }
        /// `Realm.Error.fileExists`, for `catch Realm.Error.fileExists`.
        public static var fileExists: Code { .fileExists }
        /// `Realm.Error.fileNotFound`, for `catch Realm.Error.fileNotFound`.
        public static var fileNotFound: Code { .fileNotFound }
        /// `Realm.Error.fileFormatUpgradeRequired`, for `catch Realm.Error.fileFormatUpgradeRequired`.
        public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
        /// `Realm.Error.incompatibleLockFile`, for `catch Realm.Error.incompatibleLockFile`.
        public static var incompatibleLockFile: Code { .incompatibleLockFile }
        /// `Realm.Error.addressSpaceExhausted`, for `catch Realm.Error.addressSpaceExhausted`.
        public static var addressSpaceExhausted: Code { .addressSpaceExhausted }
        /// `Realm.Error.schemaMismatch`, for `catch Realm.Error.schemaMismatch`.
        public static var schemaMismatch: Code { .schemaMismatch }
        /// `Realm.Error.alreadyOpen`, for `catch Realm.Error.alreadyOpen`.
        public static var alreadyOpen: Code { .alreadyOpen }
        /// `Realm.Error.invalidInput`, for `catch Realm.Error.invalidInput`.
        public static var invalidInput: Code { .invalidInput }
        /// `Realm.Error.outOfDiskSpace`, for `catch Realm.Error.outOfDiskSpace`.
        public static var outOfDiskSpace: Code { .outOfDiskSpace }
        /// `Realm.Error.incompatibleSession`, for `catch Realm.Error.incompatibleSession`.
        public static var incompatibleSession: Code { .incompatibleSession }
        /// `Realm.Error.fileOperationFailed`, for `catch Realm.Error.fileOperationFailed`.
        public static var fileOperationFailed: Code { .fileOperationFailed }
        /// `Realm.Error.invalidDatabase`, for `catch Realm.Error.invalidDatabase`.
        public static var invalidDatabase: Code { .invalidDatabase }

        /// An error from opening the file at `path` (nil: an in-memory Realm): as `init(_:fileURL:)`,
        /// except that a key that does not fit the file gets Realm's `.invalidDatabase` messages:
        /// "Realm file decryption failed" for a wrong key or a key on a plain file, and the
        /// "invalid mnemonic" message that names a missing key for an encrypted file opened without.
        init(opening engine: EngineError, path: String?, fileURL: URL?) {
            let message = engine.message
            if let path, let failure = FileFailure(message) {
                self.init(openingFile: path, failure, code: Realm.Error(engine).code, fileURL: fileURL)
                return
            }
            if let path, engine.code == .fileNotFound {
                // A missing file opened read-only (the engine's "file not found: '…'").
                self.init(openingFile: path, FileFailure(path: path, reason: String(cString: strerror(ENOENT))),
                          code: .fileNotFound, fileURL: fileURL)
                return
            }
            guard engine.code == .invalidDatabase, let range = message.range(of: "decryption failed: ") else {
                self.init(engine, fileURL: fileURL)
                return
            }
            let prefix = path.map { "Failed to open Realm file at path '\($0)': " } ?? "Failed to open the in-memory Realm: "
            let reason: String
            if message.contains("is encrypted and no encryption key was given") {
                self.init(code: .invalidDatabase, message: prefix
                    + "header has invalid mnemonic. The file is either not a Realm file, is an encrypted Realm file but no encryption key was supplied, or is corrupted.",
                    fileURL: fileURL)
                return
            } else if message.contains("is not encrypted, but an encryption key was given") {
                reason = "Decryption failed: the file is not encrypted, but an encryption key was given"
            } else if message.contains("the encryption key is not the key of") {
                reason = "Decryption failed: the encryption key is incorrect"
            } else {
                reason = "Decryption failed: " + message[range.upperBound...]
            }
            self.init(code: .invalidDatabase, message: prefix + "Realm file decryption failed (\(reason))", fileURL: fileURL)
        }
    }
}

/// A system call's failure on a file, from the engine's message "<call> failed for '<path>':
/// <reason>" (the reason is strerror's text).
private struct FileFailure {
    let path: String
    let reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init?(_ message: String) {
        guard let start = message.range(of: " failed for '"),
              let end = message.range(of: "': ", range: start.upperBound..<message.endIndex) else { return nil }
        path = String(message[start.upperBound..<end.lowerBound])
        reason = String(message[end.upperBound...])
    }
}

extension Realm.Error {
    /// A file error from opening the Realm at `path`, worded and coded as Realm's: the lock file's
    /// errors name the lock file ("Failed to open file at path '….lock': parent path is not a
    /// directory", `.fileOperationFailed`), the Realm file's name the Realm file ("Failed to open
    /// Realm file at path '…': …"), with Realm's advice when permission is denied.
    fileprivate init(openingFile path: String, _ failure: FileFailure, code: Code, fileURL: URL?) {
        if failure.path != path {
            switch failure.reason {
            case String(cString: strerror(ENOTDIR)):
                self.init(code: .fileOperationFailed,
                          message: "Failed to open file at path '\(failure.path)': parent path is not a directory",
                          fileURL: URL(fileURLWithPath: failure.path))
            case String(cString: strerror(ENOENT)):
                self.init(code: .fileNotFound,
                          message: "Failed to open file at path '\(failure.path)': parent directory does not exist",
                          fileURL: URL(fileURLWithPath: failure.path))
            default:
                self.init(code: code == .fileAccess ? .fileOperationFailed : code,
                          message: "Failed to open file at path '\(failure.path)': \(failure.reason)"
                              + (code == .filePermissionDenied ? permissionAdvice : ""),
                          fileURL: URL(fileURLWithPath: failure.path))
            }
            return
        }
        var message = "Failed to open Realm file at path '\(path)': \(failure.reason)"
        if code == .filePermissionDenied { message += permissionAdvice }
        self.init(code: code, message: message, fileURL: fileURL ?? URL(fileURLWithPath: path))
    }
}

/// What Realm adds to a permission error.
private let permissionAdvice = ". Please use a path where your app has read-write permissions."

/// Matches an error against a Realm error code, so that `catch Realm.Error.fileNotFound` works.
///
///     catch Realm.Error.schemaMismatch { ... }
public func ~= (code: Realm.Error.Code, error: any Swift.Error) -> Bool {
    (error as? Realm.Error)?.code == code
}
