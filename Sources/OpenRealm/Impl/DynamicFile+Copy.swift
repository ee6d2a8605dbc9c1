// DynamicFile+Copy.swift — copies, compaction and verification of a DynamicFile with progress
// reports.
//
// Owns: ce_db_write_copy, ce_db_compact and ce_db_verify_with_progress with a Swift progress
// closure (what `openrealm copy`, `compact`, `encrypt`, `decrypt`, `rekey` and `verify` call).
// Never: replacing files (the tool renames its copies itself), Realm instances.

import CEngine

/// A progress closure kept alive for the C callback: `done` of `total` bytes copied or checked.
private final class ProgressBox {
    let report: (UInt64, UInt64) -> Void
    init(_ report: @escaping (UInt64, UInt64) -> Void) { self.report = report }

    /// The C callback: `context` is an unretained ProgressBox.
    static let callback: ce_progress_fn = { context, done, total in
        guard let context else { return }
        Unmanaged<ProgressBox>.fromOpaque(context).takeUnretainedValue().report(done, total)
    }
}

private func withCopyOptions<R>(key: [UInt8]?, progress: ((UInt64, UInt64) -> Void)?,
                                _ body: (UnsafePointer<ce_copy_options>) -> R) -> R {
    var options = ce_copy_options()
    ce_copy_options_init(&options)
    let box = progress.map(ProgressBox.init)
    return withExtendedLifetime(box) {
        if let box {
            options.progress = ProgressBox.callback
            options.progress_context = Unmanaged.passUnretained(box).toOpaque()
        }
        guard let key else { return body(&options) }
        return key.withUnsafeBytes { bytes in
            options.encryption_key = bytes.baseAddress
            options.encryption_key_size = bytes.count
            return body(&options)
        }
    }
}

extension DynamicFile {
    /// Writes a compacted copy of the latest version to a new file at `path` (which must not
    /// exist): encrypted with `encryptionKey`, or plain without one (Realm's
    /// `writeCopy(toFile:encryptionKey:)`). `progress` is called about every megabyte with the
    /// bytes copied and the total, last with done == total.
    ///
    ///     try file.writeCopy(to: "backup.realm", encryptionKey: nil) { done, total in print(done, total) }
    package func writeCopy(to path: String, encryptionKey: [UInt8]?, progress: ((UInt64, UInt64) -> Void)? = nil) throws(EngineError) {
        let ok = withCopyOptions(key: encryptionKey, progress: progress) { ce_db_write_copy(engine.handle, path, $0) }
        guard ok else { throw EngineError.last() }
    }

    /// Compacts the file in place, keeping its key; throws `.alreadyOpen` (nothing changed)
    /// while another handle or process has it open.
    ///
    ///     try file.compact { done, total in print(done, total) }
    package func compact(progress: ((UInt64, UInt64) -> Void)? = nil) throws(EngineError) {
        let ok = withCopyOptions(key: nil, progress: progress) { ce_db_compact(engine.handle, $0) }
        guard ok else { throw EngineError.last() }
    }

    /// Proves the latest version of the file sound, as `engine.verify()`, calling `progress`
    /// about every megabyte with the bytes checked and the total (the logical size), last with
    /// done == total once the file proved sound. Throws `.corrupt` naming the offset when not.
    ///
    ///     let stats = try file.verify { done, total in print(done, total) }
    @discardableResult
    package func verify(progress: @escaping (UInt64, UInt64) -> Void) throws(EngineError) -> StorageEngine.Stats {
        let box = ProgressBox(progress)
        var stats = ce_db_stats()
        let ok = withExtendedLifetime(box) {
            ce_db_verify_with_progress(engine.handle, &stats, ProgressBox.callback, Unmanaged.passUnretained(box).toOpaque())
        }
        guard ok else { throw EngineError.last() }
        return StorageEngine.Stats(stats)
    }
}
