// StorageEngineTests.swift — the Swift wrapper of the storage core, and the openrealm tool.
//
// Each test works in its own temporary directory, removed when it ends.

import CEngine
import Foundation
import Testing

import OpenRealm

// MARK: - Helpers

/// Runs `body` with a new empty directory, removed afterwards.
private func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("openrealm-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// The async form of `withTemporaryDirectory`.
private func withTemporaryDirectory<R>(_ body: (URL) async throws -> R) async throws -> R {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("openrealm-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// An error thrown from inside a write block.
private struct Rollback: Error, Equatable {}

/// Opens `path`, runs `body`, and closes the engine before returning (the engine does not escape).
private func withEngine<R>(
    _ path: String, _ options: StorageEngine.Options = .init(), _ body: (StorageEngine) throws -> R
) throws -> R {
    let engine = try StorageEngine(path: path, options: options)
    return try withExtendedLifetime(engine) { try body(engine) }
}

/// Writes `bytes` over the file at `path` starting at `offset`.
private func overwrite(_ path: String, at offset: UInt64, with bytes: [UInt8]) throws {
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: offset)
    try handle.write(contentsOf: Data(bytes))
}

private let headerSize = 16_384  // CE_HEADER_SIZE: the fixed header before the first node

/// The top ref of the newest header slot (docs/FORMAT.md: slots at 4096 and 8192,
/// version at +8, top ref at +16): where a file's data certainly is.
private func newestTopRef(_ path: String) throws -> UInt64 {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    func field(_ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
    return field(4096 + 8) > field(8192 + 8) ? field(4096 + 16) : field(8192 + 16)
}

// MARK: - Opening, versions and transactions

@Suite("StorageEngine")
struct StorageEngineTests {
    @Test("a new file starts at version 1, and its version persists across reopening")
    func createThenReopen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("app.realm").path
            let committed = try withEngine(path) { engine in
                #expect(engine.path == path)
                #expect(engine.latestVersion == 1)
                try engine.write { _ in }
                try engine.write { _ in }
                return engine.latestVersion
            }
            #expect(committed == 3)
            #expect(FileManager.default.fileExists(atPath: path))
            try withEngine(path) { engine in
                #expect(engine.latestVersion == committed)
                let seen = try engine.read { $0.version }
                #expect(seen == committed)
            }
            try withEngine(path, .init(readOnly: true)) { engine in
                #expect(engine.latestVersion == committed)
            }
        }
    }

    @Test("each commit increments the version by one")
    func commitIncrementsVersion() throws {
        try withTemporaryDirectory { directory in
            try withEngine(directory.appendingPathComponent("a.realm").path) { engine in
                for _ in 0..<5 {
                    let before = engine.latestVersion
                    let (base, isWrite) = try engine.write { txn in (txn.version, txn.isWrite) }
                    #expect(isWrite)
                    #expect(base == before)
                    #expect(engine.latestVersion == before + 1)
                }
                #expect(engine.latestVersion == 6)
                #expect(try engine.read { $0.isWrite } == false)
            }
        }
    }

    @Test("a read transaction keeps its snapshot while a write commits, until it advances")
    func readSnapshotIsStable() throws {
        try withTemporaryDirectory { directory in
            try withEngine(directory.appendingPathComponent("a.realm").path) { engine in
                try engine.read { txn in
                    let pinned = txn.version
                    try engine.write { _ in }
                    try engine.write { _ in }
                    #expect(txn.version == pinned)
                    #expect(engine.latestVersion == pinned + 2)
                    #expect(try engine.verify().activeVersions == 2)  // the latest and the pinned one
                    try txn.advance()
                    #expect(txn.version == pinned + 2)
                }
                #expect(try engine.verify().activeVersions == 1)
            }
        }
    }

    @Test("a throwing write block rolls back, rethrows, and releases the writer")
    func throwingWriteRollsBack() throws {
        try withTemporaryDirectory { directory in
            try withEngine(directory.appendingPathComponent("a.realm").path) { engine in
                let before = engine.latestVersion
                #expect(throws: Rollback()) {
                    try engine.write { _ in throw Rollback() }
                }
                #expect(engine.latestVersion == before)
                try engine.write { _ in }  // the write lock was released
                #expect(engine.latestVersion == before + 1)
                _ = try engine.verify()
            }
        }
    }

    @Test("advancing a write transaction is a wrong-transaction-state error")
    func advanceInWrite() throws {
        try withTemporaryDirectory { directory in
            try withEngine(directory.appendingPathComponent("a.realm").path) { engine in
                let error = #expect(throws: EngineError.self) {
                    try engine.write { txn in try txn.advance() }
                }
                #expect(error?.code == .wrongTransactionState)
                #expect(engine.latestVersion == 1)
            }
        }
    }

    // MARK: Errors

    @Test("opening a file that is not a database throws invalidDatabase with a message")
    func notADatabase() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("notes.txt").path
            let text = String(repeating: "This is not a database. ", count: 2_000)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            for options in [StorageEngine.Options(), StorageEngine.Options(readOnly: true)] {
                let error = #expect(throws: EngineError.self) { try StorageEngine(path: path, options: options) }
                #expect(error?.code == .invalidDatabase)
                #expect(error?.code.cValue == CE_ERR_INVALID_DATABASE)
                #expect(error?.message.contains("invalid database") == true)
                #expect(error?.message.contains(path) == true)
                #expect(error?.description == error?.message)
            }
            // The file is left as it was.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(text.utf8))
        }
    }

    @Test("a file too small to be a database throws invalidDatabase")
    func tooSmall() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("small.realm").path
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: EngineError.self) { try StorageEngine(path: path) }
            #expect(error?.code == .invalidDatabase)
            #expect(error?.message.isEmpty == false)
        }
    }

    @Test("opening a missing file read-only (or without create) throws fileNotFound and creates nothing")
    func missingFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("missing.realm").path
            for options in [StorageEngine.Options(readOnly: true), StorageEngine.Options(createIfMissing: false)] {
                let error = #expect(throws: EngineError.self) { try StorageEngine(path: path, options: options) }
                #expect(error?.code == .fileNotFound)
                #expect(error?.code.cValue == CE_ERR_FILE_NOT_FOUND)
                #expect(error?.message.contains(path) == true)
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("a write on a read-only handle throws readOnly")
    func writeOnReadOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a.realm").path
            try withEngine(path) { engine in try engine.write { _ in } }
            try withEngine(path, .init(readOnly: true)) { engine in
                let error = #expect(throws: EngineError.self) { try engine.write { _ in } }
                #expect(error?.code == .readOnly)
                #expect(engine.latestVersion == 2)
                let seen = try engine.read { $0.version }
                #expect(seen == 2)
            }
        }
    }

    @Test("maxActiveVersions refuses a write while too many versions are pinned")
    func maxActiveVersions() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a.realm").path
            try withEngine(path, .init(maxActiveVersions: 1)) { engine in
                try engine.read { _ in
                    try engine.write { _ in }  // one live version when it begins: allowed
                    let error = #expect(throws: EngineError.self) { try engine.write { _ in } }
                    #expect(error?.code == .tooManyVersions)
                }
                try engine.write { _ in }  // the reader has ended
                #expect(engine.latestVersion == 3)
            }
        }
    }

    @Test("error codes carry the engine's names and numeric values")
    func errorCodes() {
        #expect(EngineError.Code.invalidDatabase.rawValue == 12)
        #expect(EngineError.Code(rawValue: 5) == .fileNotFound)
        #expect(EngineError.Code(CE_ERR_READ_ONLY) == .readOnly)
        #expect(EngineError.Code.fileNotFound.name == "file not found")
        #expect("\(EngineError.Code.invalidDatabase)" == "invalid database")
        #expect("\(EngineError(code: .corrupt, message: ""))" == "corrupt data")
        #expect("\(EngineError(code: .fail, message: "it broke"))" == "it broke")
    }

    // MARK: In-memory databases

    @Test("in-memory databases are shared by identifier and their files disappear after close")
    func inMemory() throws {
        let identifier = "openrealm-test-\(UUID().uuidString)"
        var path = ""
        do {
            let first = try StorageEngine(inMemoryIdentifier: identifier)
            path = first.path
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(FileManager.default.fileExists(atPath: path + ".lock"))
            try first.write { _ in }
            try first.write { _ in }
            let second = try StorageEngine(inMemoryIdentifier: identifier)
            #expect(second.path == path)
            #expect(second.latestVersion == 3)
            try second.write { _ in }
            #expect(first.latestVersion == 4)
            _ = try second.verify()
            withExtendedLifetime(first) {}
        }
        #expect(!path.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
        // A new handle with the identifier starts afresh.
        let fresh = try StorageEngine(inMemoryIdentifier: identifier)
        #expect(fresh.latestVersion == 1)
    }

    @Test("an in-memory database cannot be opened read-only")
    func inMemoryReadOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a.realm").path
            let error = #expect(throws: EngineError.self) {
                try StorageEngine(path: path, options: .init(readOnly: true, durability: .memoryOnly))
            }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test("a file opened with memoryOnly durability is removed when it closes")
    func memoryOnlyPath() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("scratch.realm").path
            try withEngine(path, .init(durability: .memoryOnly)) { engine in
                try engine.write { _ in }
                #expect(engine.latestVersion == 2)
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
        }
    }

    // MARK: Verify

    @Test("verify returns consistent statistics")
    func verifyStats() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a.realm").path
            try withEngine(path, .init(durability: .unsafeNoSync)) { engine in
                for _ in 0..<20 { try engine.write { _ in } }
                let stats = try engine.verify()
                #expect(stats.version == engine.latestVersion)
                #expect(stats.version == 21)
                #expect(stats.usedBytes + stats.freeBytes <= stats.logicalSize)
                #expect(stats.usedBytes + stats.freeBytes == stats.logicalSize)  // verify proves no leak
                #expect(stats.usedBytes >= UInt64(headerSize))
                #expect(stats.logicalSize <= stats.fileSize)
                #expect(stats.nodeCount >= 1)
                #expect((stats.freeBytes == 0) == (stats.freeExtentCount == 0))
                #expect(stats.activeVersions == 1)
                let onDisk = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
                #expect(onDisk?.uint64Value == stats.fileSize)
            }
        }
    }

    @Test("empty commits reuse freed space: the file does not grow without bound")
    func spaceIsReused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a.realm").path
            try withEngine(path, .init(durability: .unsafeNoSync)) { engine in
                for _ in 0..<10 { try engine.write { _ in } }
                let early = try engine.verify()
                for _ in 0..<200 { try engine.write { _ in } }
                let late = try engine.verify()
                #expect(late.version == early.version + 200)
                #expect(late.logicalSize <= early.logicalSize + 4096)
            }
        }
    }

    @Test("verify of a damaged file throws an engine error, never crashes")
    func verifyDamaged() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a.realm").path
            let logicalSize = try withEngine(path) { engine in
                try engine.write { _ in }
                return try engine.verify().logicalSize
            }
            let damage = [UInt8](repeating: 0xFF, count: Int(logicalSize) - headerSize)
            try overwrite(path, at: UInt64(headerSize), with: damage)
            let error = #expect(throws: EngineError.self) {
                try withEngine(path, .init(readOnly: true)) { engine in _ = try engine.verify() }
            }
            #expect(error.map { [.invalidDatabase, .corrupt].contains($0.code) } == true)
            #expect(error?.message.isEmpty == false)
        }
    }

    // MARK: Threads

    @Test("one engine is shared by concurrent tasks: every commit lands, in order")
    func concurrentWriters() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a.realm").path
            let engine = try StorageEngine(path: path, options: .init(durability: .unsafeNoSync))
            let tasks = 6, writesPerTask = 10
            let bases = try await withThrowingTaskGroup(of: [UInt64].self) { group in
                for _ in 0..<tasks {
                    group.addTask {
                        var bases: [UInt64] = []
                        for _ in 0..<writesPerTask {
                            bases.append(try engine.write { $0.version })
                            _ = try engine.read { $0.version }
                        }
                        return bases
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            // Every write began on a distinct version: none was lost or merged.
            #expect(Set(bases).count == tasks * writesPerTask)
            #expect(Set(bases) == Set(1...UInt64(tasks * writesPerTask)))
            #expect(engine.latestVersion == UInt64(tasks * writesPerTask) + 1)
            #expect(try engine.verify().version == engine.latestVersion)
        }
    }
}

// MARK: - The openrealm tool

/// The `openrealm` executable next to the test bundle in the build directory, if it was built.
private let openrealmBinary: String? = {
    #if os(Linux)
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    #else
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    #endif
    var directory = me.deletingLastPathComponent()
    for _ in 0..<4 {  // macOS: <build>/OpenRealmPackageTests.xctest/Contents/MacOS/<binary>
        let candidate = directory.appendingPathComponent("openrealm").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return nil
}()

private struct ToolResult {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs `openrealm` with `arguments` in `directory`.
private func runTool(_ arguments: [String], in directory: URL) throws -> ToolResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(openrealmBinary))
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ToolResult(
        status: process.terminationStatus,
        output: String(decoding: outputData, as: UTF8.self),
        errors: String(decoding: errorData, as: UTF8.self))
}

@Suite("openrealm tool", .enabled(if: openrealmBinary != nil, "the openrealm executable was not built"))
struct ToolTests {
    @Test("demo writes an encrypted Realm, queries it, copies and compacts it; a second run replaces its files; info and verify read the copy")
    func demoInfoVerify() throws {
        try withTemporaryDirectory { directory in
            let demo = try runTool(["demo"], in: directory)
            #expect(demo.status == 0, "\(demo.errors)")
            let expected = [
                "1. previous run: none",
                "2. created openrealm-demo.realm, encrypted",
                "with a DEMO key",
                "wrote 6 people (primary key id), 8 embedded dogs, 6 best-friend links",
                "3. added 3000 visitors with a dog each, then deleted them: 6 people",
                "4. reopening without the key fails: Realm.Error.invalidDatabase",
                "reopened with the key: 6 people: Alice, Bob, Carol, Dave, Erin, Frank",
                "5. queries (Results.filter and where",
                "filter(\"age >= %@\", 30), sorted by age: Alice (34), Erin (37), Carol (41), Frank (52)",
                "filter(\"ANY dogs.name BEGINSWITH[c] %@\", \"r\"): Alice (34), Carol (41), Frank (52)",
                "filter(\"bestFriend.name == %@\", \"Alice\"): Bob (29), Carol (41)",
                "where { $0.bestFriendOf.count >= 2 } (LinkingObjects, type-safe): Alice (34), Carol (41)",
                "Alice's LinkingObjects bestFriendOf: Bob, Carol",
                "6. writeCopy(toFile: openrealm-demo.compacted.realm) without a key",
                "6 people in the copy",
                "7. reopened with shouldCompactOnLaunch: called with totalBytes",
                "-> compact",
                "done:",
            ]
            for line in expected { #expect(demo.output.contains(line), "missing: \(line)\n\(demo.output)") }
            let file = directory.appendingPathComponent("openrealm-demo.realm")
            let copy = directory.appendingPathComponent("openrealm-demo.compacted.realm")
            // Encrypted: the names are not in the file; the decrypted copy has them.
            #expect(try Data(contentsOf: file).range(of: Data("Carol".utf8)) == nil)
            #expect(try Data(contentsOf: copy).range(of: Data("Carol".utf8)) != nil)

            let again = try runTool(["demo", "openrealm-demo.realm"], in: directory)
            #expect(again.status == 0, "\(again.errors)")
            #expect(again.output.contains("1. previous run: removed openrealm-demo.realm, openrealm-demo.compacted.realm"))
            #expect(again.output.contains("reopened with the key: 6 people:"))

            let info = try runTool(["info", copy.lastPathComponent], in: directory)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("nodes: "))
            #expect(info.output.contains("active versions: 1"))
            let verify = try runTool(["verify", copy.path], in: directory)
            #expect(verify.status == 0)
            #expect(verify.output == "ok\n")
            let encrypted = try runTool(["verify", file.path], in: directory)
            #expect(encrypted.status == 1)
            #expect(encrypted.errors.contains("decryption failed"), "\(encrypted.errors)")
        }
    }

    @Test("missing, foreign and damaged files: exit 1 with the engine's message")
    func failures() throws {
        try withTemporaryDirectory { directory in
            let missing = try runTool(["verify", "missing.realm"], in: directory)
            #expect(missing.status == 1)
            #expect(missing.errors.contains("file not found: 'missing.realm'"))
            let missingInfo = try runTool(["info", "missing.realm"], in: directory)
            #expect(missingInfo.status == 1)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing.realm").path))

            let junkData = Data(repeating: 0x42, count: 40_000)
            try junkData.write(to: directory.appendingPathComponent("junk.bin"))
            for command in ["verify", "info"] {
                let junk = try runTool([command, "junk.bin"], in: directory)
                #expect(junk.status == 1, "\(command)")
                #expect(junk.errors.contains("invalid database"), "\(command): \(junk.errors)")
                #expect(junk.output.isEmpty)
            }
            // The demo replaces only files of an earlier demo run: anything else is left alone.
            let demo = try runTool(["demo", "junk.bin"], in: directory)
            #expect(demo.status == 1)
            #expect(demo.errors.contains("exists and is not a file of an earlier demo run"), "\(demo.errors)")
            #expect(try Data(contentsOf: directory.appendingPathComponent("junk.bin")) == junkData)

            let damaged = directory.appendingPathComponent("damaged.realm").path
            try withEngine(damaged) { engine in _ = try engine.write { txn in txn.version } }
            try overwrite(damaged, at: try newestTopRef(damaged), with: [UInt8](repeating: 0xFF, count: 8))
            let verify = try runTool(["verify", "damaged.realm"], in: directory)
            #expect(verify.status == 1)
            #expect(verify.errors.contains("invalid database") || verify.errors.contains("corrupt"), "\(verify.errors)")
        }
    }

    @Test("--help prints the usage to stdout and exits 0")
    func help() throws {
        try withTemporaryDirectory { directory in
            for arguments in [["--help"], ["-h"], ["help"]] {
                let result = try runTool(arguments, in: directory)
                #expect(result.status == 0, "\(arguments)")
                #expect(result.output.contains("usage: openrealm"), "\(arguments)")
                #expect(result.errors.isEmpty)
            }
        }
    }

    @Test("no command and unknown commands print the usage to stderr and exit 2")
    func usage() throws {
        try withTemporaryDirectory { directory in
            for arguments in [[], ["frobnicate"], ["info"], ["verify", "a", "b"], ["demo", "a", "b"]] {
                let result = try runTool(arguments, in: directory)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.errors.contains("usage: openrealm"), "\(arguments)")
                #expect(result.output.isEmpty)
            }
            #expect(try runTool(["frobnicate"], in: directory).errors.contains("unknown command 'frobnicate'"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }
}
