// FileAccessTests.swift — files the tool cannot open as usual: a file in a read-only directory
// (read as an immutable snapshot, without a lock file) and a file of a newer format version
// (a clear error from every subcommand).

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs the tool with `arguments` where `directory` cannot be written, even by root: as another
/// user, `directory` is made 0555 for the run; as root (who ignores permissions), the run happens
/// in a new mount namespace in which `directory` is bind-mounted read-only over itself. nil, and
/// the reason, where neither can be done.
func toolInReadOnlyDirectory(_ arguments: [String], environment: [String: String] = [:], in directory: URL) throws -> (Run?, String) {
    if geteuid() != 0 {
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path) }
        return (try tool(arguments, environment: environment, in: directory), "")
    }
    for program in ["/usr/bin/unshare", "/bin/mount"] where !FileManager.default.isExecutableFile(atPath: program) {
        return (nil, "running as root and \(program) is missing: no way to make a directory read-only for root")
    }
    // The mount hides the directory the process was started in: `cd` into the mount. The probe
    // proves the mount read-only.
    let script = #"mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && cd "$0" && if touch "$0/.probe" 2>/dev/null; then exit 97; fi && exec "$@""#
    let run = try tool(["/bin/sh", "-c", script, directory.path, toolURL.path] + arguments, environment: environment,
                       in: directory, executable: URL(fileURLWithPath: "/usr/bin/unshare"), prefix: ["-m"])
    if run.status == 97 { Issue.record("the read-only bind mount of \(directory.path) is writable"); return (nil, "") }
    if run.stderr.contains("unshare failed") || run.stderr.contains("mount:") {
        return (nil, "running as root, and this machine refuses a private mount namespace or a read-only bind mount: \(run.stderr)")
    }
    return (run, "")
}

@Suite("openrealm file access") struct FileAccessTests {
    /// Every reading subcommand works on a file whose directory cannot hold its lock file, says
    /// on standard error that it read an immutable snapshot, and creates nothing; writing ones
    /// fail with the engine's message.
    @Test func readOnlyDirectory() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = try tool(["export", "d.realm", "--key-file", "k.bin"], in: directory)
        #expect(expected.status == 0)
        let outside = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outside) }
        let copy = outside.appendingPathComponent("copy.realm").path
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".lock") {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let note = "reading it as an immutable snapshot; nothing may write it meanwhile"
        let environment = ["OPENREALM_KEY": demoKeyHex]
        let cases: [([String], (Run) -> Bool)] = [
            (["info", "d.realm"], { $0.stdout.contains("encrypted: yes") }),
            (["schema", "d.realm"], { $0.stdout.contains("class Person") }),
            (["verify", "d.realm"], { $0.stdout == "ok\n" }),
            (["query", "d.realm", "Person", "age > 30"], { $0.stdout.contains("Alice") }),
            (["export", "d.realm"], { $0.stdout == expected.stdout }),
            (["copy", "d.realm", copy], { _ in FileManager.default.fileExists(atPath: copy) }),
        ]
        for (arguments, check) in cases {
            let (result, reason) = try toolInReadOnlyDirectory(arguments, environment: environment, in: directory)
            guard let run = result else {
                print("SKIPPED readOnlyDirectory: \(reason)")
                return
            }
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(check(run), "\(arguments): \(run.stdout)")
            #expect(run.stderr.contains(note), "\(arguments): \(run.stderr)")
        }
        let (compact, _) = try toolInReadOnlyDirectory(["compact", "d.realm"], environment: environment, in: directory)
        if let compact {
            #expect(compact.status == 1, "\(compact.stderr)")
            #expect(compact.stderr.contains("lock file") && !compact.stderr.contains(note), "\(compact.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
        #expect(try tool(["export", copy, "--key-file", "k.bin"], in: directory).stdout == expected.stdout)
    }

    /// A file whose static page names format version 2 (checksum updated): every subcommand that
    /// opens it fails with exit status 1 and a message naming the versions.
    @Test func newerFormatVersion() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let export = try tool(["export", "d.realm", "--key-file", "k.bin"], in: directory)
        try Data(export.stdout.utf8).write(to: directory.appendingPathComponent("e.json"))
        #expect(try tool(["import", "n.realm", "e.json"], in: directory).status == 0)
        try Data(String(repeating: "a1", count: 64).utf8).write(to: directory.appendingPathComponent("a.hex"))
        let path = directory.appendingPathComponent("n.realm")
        var bytes = [UInt8](try Data(contentsOf: path))
        bytes[8] = 2
        let checksum = headerChecksum(Array(bytes[0..<64]), seed: 0x5354_4154)
        for index in 0..<8 { bytes[64 + index] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt64(index))) }
        try Data(bytes).write(to: path)
        let message = "has file format version 2; this engine reads version 1"
        let commands: [[String]] = [
            ["demo", "n.realm"], ["info", "n.realm"], ["schema", "n.realm"], ["verify", "n.realm"],
            ["query", "n.realm", "Person"], ["export", "n.realm"], ["import", "n.realm", "e.json"],
            ["copy", "n.realm", "c.realm"], ["compact", "n.realm"], ["encrypt", "n.realm", "--new-key", "a.hex"],
            ["decrypt", "n.realm", "--key-file", "a.hex"], ["rekey", "n.realm", "--key-file", "a.hex", "--new-key", "a.hex"],
        ]
        for arguments in commands {
            let run = try tool(arguments, in: directory)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            // The demo says instead that it leaves the file alone and needs another path.
            let advice = arguments[0] == "demo" ? "give the demo another path" : "upgrade openrealm to read it"
            #expect(run.stderr.contains(advice), "\(arguments): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("c.realm").path))
        #expect(try Data(contentsOf: path) == Data(bytes))
    }

    /// Standard output on a full disk (/dev/full): info, schema and verify, whose output is
    /// printed, fail with exit status 1 and one line saying so (they exited 0, the output lost).
    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
    func printedOutputToAFullDiskFails() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in ["info", "schema", "verify"] {
            let process = Process()
            process.executableURL = toolURL
            process.arguments = [command, "d.realm", "--key-file", "k.bin"]
            process.currentDirectoryURL = directory
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
            let err = Pipe()
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1, "\(command): \(stderr)")
            // One line of error (verify's progress, on standard error too, aside).
            let lines = stderr.split(separator: "\n").filter { !$0.contains("% ") }
            #expect(lines == ["openrealm \(command): cannot write the output: \(String(cString: strerror(ENOSPC)))"], "\(command): \(stderr)")
        }
    }

    /// An empty file: every subcommand that reads or rewrites a database fails with exit status 1
    /// and one line naming the file, and leaves it empty (a read-write open would make it a new
    /// database).
    @Test func emptyFileIsRefusedAndStaysEmpty() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(String(repeating: "a1", count: 64).utf8).write(to: directory.appendingPathComponent("a.hex"))
        let path = directory.appendingPathComponent("empty.realm")
        try Data().write(to: path)
        let commands: [[String]] = [
            ["info", "empty.realm"], ["schema", "empty.realm"], ["verify", "empty.realm"], ["query", "empty.realm", "Person"],
            ["export", "empty.realm"], ["copy", "empty.realm", "c.realm"], ["compact", "empty.realm"],
            ["encrypt", "empty.realm", "--new-key", "a.hex"], ["decrypt", "empty.realm"],
            ["rekey", "empty.realm", "--key-file", "a.hex", "--new-key", "a.hex"],
        ]
        for arguments in commands {
            let run = try tool(arguments, in: directory)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("'empty.realm' is empty"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
            #expect(try Data(contentsOf: path).isEmpty, "\(arguments) changed the file")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("c.realm").path))
    }
}

/// The engine's header checksum (CEngine/src/base/checksum.c), for patching a header in tests.
func headerChecksum(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
    let primeA: UInt64 = 0x9E37_79B1_85EB_CA87, primeB: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    let primeC: UInt64 = 0x1656_67B1_9E37_79F9, primeD: UInt64 = 0x85EB_CA77_C2B2_AE63
    func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 { (value << bits) | (value >> (64 - bits)) }
    func absorb(_ lane: UInt64, _ input: UInt64) -> UInt64 { rotate(lane &+ input &* primeB, 31) &* primeA }
    func word(_ offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) } }
    var lanes = [seed &+ primeA &+ primeB, seed &+ primeB, seed, seed &- primeA]
    var offset = 0
    while offset + 32 <= bytes.count {
        for lane in 0..<4 { lanes[lane] = absorb(lanes[lane], word(offset + 8 * lane)) }
        offset += 32
    }
    var hash = rotate(lanes[0], 1) &+ rotate(lanes[1], 7) &+ rotate(lanes[2], 12) &+ rotate(lanes[3], 18)
    for lane in lanes { hash = (hash ^ absorb(0, lane)) &* primeA &+ primeD }
    hash &+= UInt64(bytes.count)
    while offset + 8 <= bytes.count {
        hash = rotate(hash ^ absorb(0, word(offset)), 27) &* primeA &+ primeD
        offset += 8
    }
    while offset < bytes.count {
        hash = rotate(hash ^ (UInt64(bytes[offset]) &* primeC), 11) &* primeA
        offset += 1
    }
    hash ^= hash >> 33
    hash &*= primeB
    hash ^= hash >> 29
    hash &*= primeC
    hash ^= hash >> 32
    return hash
}
