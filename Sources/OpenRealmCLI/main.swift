// main.swift — the openrealm command-line tool.
//
// `demo` shows a small app on the Realm Swift API: models with a primary key, embedded objects, links
// and LinkingObjects, written to an encrypted file, reopened, queried, copied and compacted.
// `info` and `verify` read a plain file through the storage core. Exit status: 0 success, 1 an
// error (its message is printed), 2 a usage error.

import Foundation
import OpenRealm

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

let usage = """
    usage: openrealm <command> [arguments]

    commands:
      demo [FILE]   a small app on the Realm Swift API: writes people with embedded dogs and
                    best-friend links to FILE (default: openrealm-demo.realm in the current
                    directory), encrypted with a demo key; reopens it, queries it, writes a
                    compacted copy (FILE without .realm + .compacted.realm) and compacts FILE on
                    launch. The files of a previous demo run at those paths are replaced.
      info FILE     print the version, sizes, node count, free extents and active versions of FILE
                    (an unencrypted file, opened read-only)
      verify FILE   check the integrity of FILE (unencrypted): prints "ok" (exit 0) or the problem (exit 1)
      --help        print this help

    exit status: 0 success, 1 an error, 2 a usage error.
    """

/// Writes `text` to standard error, unbuffered.
func printError(_ text: String) {
    var bytes = Array(text.utf8)
    if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        offset += written
    }
}

/// Whether something exists at `path`.
func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// The absolute, resolved form of `path` (or `path` itself if it cannot be resolved).
func absolutePath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// `openrealm info FILE`
func info(path: String) throws {
    let engine = try StorageEngine(path: path, options: .init(readOnly: true))
    let stats = try engine.verify()
    print("file: \(absolutePath(engine.path))")
    print("engine: \(StorageEngine.engineVersion)")
    print("version: \(stats.version)")
    print("file size: \(stats.fileSize) bytes")
    print("logical size: \(stats.logicalSize) bytes")
    print("used: \(stats.usedBytes) bytes")
    print("free: \(stats.freeBytes) bytes in \(stats.freeExtentCount) extents")
    print("nodes: \(stats.nodeCount)")
    print("active versions: \(stats.activeVersions)")
}

/// `openrealm verify FILE`
func verify(path: String) throws {
    let engine = try StorageEngine(path: path, options: .init(readOnly: true))
    _ = try engine.verify()
    print("ok")
}

/// Parses the arguments, runs the command and returns the exit status.
func run(_ arguments: [String]) -> Int32 {
    let command: () throws -> Void
    switch arguments.first {
    case "demo" where arguments.count <= 2:
        let path = arguments.count == 2 ? arguments[1] : "openrealm-demo.realm"
        command = { try Demo(path: path).run() }
    case "info" where arguments.count == 2:
        command = { try info(path: arguments[1]) }
    case "verify" where arguments.count == 2:
        command = { try verify(path: arguments[1]) }
    case "--help", "-h", "help":
        print(usage)
        return 0
    default:
        if let first = arguments.first, !["--help", "-h", "help", "demo", "info", "verify"].contains(first) {
            printError("openrealm: unknown command '\(first)'")
        }
        printError(usage)
        return 2
    }
    do {
        try command()
        return 0
    } catch {
        printError("openrealm: \(error)")
        return 1
    }
}

exit(run(Array(CommandLine.arguments.dropFirst())))
