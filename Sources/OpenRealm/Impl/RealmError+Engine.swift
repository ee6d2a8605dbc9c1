// RealmError+Engine.swift — how the engine's errors become Realm.Errors: the Realm code of each
// engine code, and the engine's last error as a Realm.Error.

import CEngine
import Foundation

extension Realm.Error {
    /// The Realm code of an engine code.
    static func code(for engineCode: ce_error_code) -> Code {
        switch engineCode {
        case CE_ERR_FILE_ACCESS, CE_ERR_READ_ONLY: .fileAccess
        case CE_ERR_FILE_PERMISSION_DENIED: .filePermissionDenied
        case CE_ERR_FILE_EXISTS: .fileExists
        case CE_ERR_FILE_NOT_FOUND: .fileNotFound
        case CE_ERR_INCOMPATIBLE_LOCK_FILE: .incompatibleLockFile
        case CE_ERR_FILE_FORMAT_UPGRADE_REQUIRED: .fileFormatUpgradeRequired
        case CE_ERR_ADDRESS_SPACE_EXHAUSTED: .addressSpaceExhausted
        case CE_ERR_SCHEMA_MISMATCH: .schemaMismatch
        case CE_ERR_INCOMPATIBLE_SESSION: .incompatibleSession
        case CE_ERR_OUT_OF_DISK_SPACE: .outOfDiskSpace
        case CE_ERR_INVALID_DATABASE, CE_ERR_CORRUPT: .invalidDatabase
        case CE_ERR_ALREADY_OPEN: .alreadyOpen
        case CE_ERR_INVALID_ARGUMENT: .invalidInput
        default: .fail
        }
    }

    /// The engine's last error on this thread as a Realm.Error.
    static func last(fileURL: URL? = nil) -> Realm.Error {
        let engine = EngineError.last()
        return Realm.Error(code: code(for: engine.code.cValue), message: engine.message, fileURL: fileURL)
    }

    /// An engine error as a Realm.Error.
    init(_ engine: EngineError, fileURL: URL? = nil) {
        self.init(code: Realm.Error.code(for: engine.code.cValue), message: engine.message, fileURL: fileURL)
    }
}
