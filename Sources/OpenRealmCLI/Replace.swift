// Replace.swift — what encrypt, decrypt and rekey share: a file replaced by a copy of itself
// with another key, through a verified copy and an atomic rename.

import Foundation
import OpenRealm

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Replaces the file at `path` (`file`, opened read-write and the only handle) by a copy encrypted with `newKey` (plain
/// without one): refused while another process has it open (the engine's compaction, which
/// needs the only handle, is the check, and leaves the file compacted); the copy is written
/// beside it, verified with the new key, and renamed over it, unless another process committed
/// meanwhile.
func replaceThroughCopy(_ file: DynamicFile, _ path: String, newKey: [UInt8]?, label: String) throws {
    let temporary = path + ".\(label)-\(getpid())"
    var replaced = false
    defer {
        if !replaced { unlink(temporary) }
        unlink(temporary + ".lock")
    }
    do {
        try exclusive(path) { try file.compact() }
        let version = file.engine.latestVersion
        let progress = Progress(label)
        try file.writeCopy(to: temporary, encryptionKey: newKey) { progress.update($0, $1) }
        do {
            let copy = try DynamicFile(path: temporary, encryptionKey: newKey, readOnly: true)
            _ = try copy.engine.verify()
        }
        guard file.engine.latestVersion == version else {
            throw ToolError.failure("'\(path)' was changed by another process meanwhile: nothing was replaced")
        }
        guard rename(temporary, path) == 0 else {
            throw ToolError.failure("cannot rename '\(temporary)' to '\(path)': \(String(cString: strerror(errno)))")
        }
        replaced = true
        let directory = open((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
