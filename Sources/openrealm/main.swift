// main.swift — the openrealm command-line tool.
//
// Only the storage core exists so far, so the tool offers what it can do: a demo that commits
// transactions, `info` and `verify`. Exit status: 0 success, 1 an engine error (its message is
// printed), 2 a usage error.

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
      demo [FILE]   open or create FILE (default: default.realm in the current directory),
                    commit three write transactions, read the latest version back and verify it
      info FILE     print the version, sizes, node count, free extents and active versions of FILE
                    (opened read-only)
      verify FILE   check the integrity of FILE: prints "ok" (exit 0) or the problem (exit 1)
      --help        print this help

    this demo shows the storage core; the Realm demo (models, queries, encryption, a compacted copy) is not written yet.
    exit status: 0 success, 1 an error from the engine, 2 a usage error.
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

/// `openrealm demo [FILE]`
func demo(path: String) throws {
    let existed = fileExists(path)
    let engine = try StorageEngine(path: path)
    let before = engine.latestVersion
    var committed: [UInt64] = []
    for _ in 0..<3 {
        let base = try engine.write { txn in txn.version }
        committed.append(base + 1)
    }
    let after = engine.latestVersion
    let seen = try engine.read { txn in txn.version }
    let stats = try engine.verify()
    print("openrealm \(StorageEngine.engineVersion) demo")
    print("file: \(absolutePath(engine.path)) (\(existed ? "opened" : "created"))")
    print("version before: \(before)")
    print("committed 3 write transactions: versions \(committed.map(String.init).joined(separator: ", "))")
    print("version after: \(after) (a read transaction sees version \(seen))")
    print("file size: \(stats.fileSize) bytes (logical size \(stats.logicalSize) bytes)")
    print("used: \(stats.usedBytes) bytes, free: \(stats.freeBytes) bytes in \(stats.freeExtentCount) extents")
    print("nodes: \(stats.nodeCount)")
    print("verify: ok")
    print("this demo shows the storage core; the Realm demo (models, queries, encryption, a compacted copy) is not written yet")
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
        let path = arguments.count == 2 ? arguments[1] : "default.realm"
        command = { try demo(path: path) }
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
