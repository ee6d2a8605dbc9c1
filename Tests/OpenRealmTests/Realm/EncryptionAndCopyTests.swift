// EncryptionAndCopyTests.swift — encrypted Realms (encryptionKey), writeCopy, compaction on launch
// (shouldCompactOnLaunch), fileExists and deleteFiles, with the codes and messages users see.

import Foundation
import Testing

import OpenRealm

/// A 64-byte key whose bytes all depend on `seed`.
private func key(_ seed: UInt8) -> Data {
    Data((0..<64).map { UInt8(truncatingIfNeeded: Int(seed) &* 31 &+ $0 &* 7 &+ 1) })
}

/// A configuration of the file `name` in `directory`, holding dogs.
private func config(_ directory: URL, _ name: String, key: Data? = nil, readOnly: Bool = false) -> Realm.Configuration {
    Realm.Configuration(fileURL: directory.appendingPathComponent(name), encryptionKey: key, readOnly: readOnly,
                        objectTypes: [Dog.self])
}

/// Opens `configuration`, adds dogs named `names`, and closes it again.
private func addDogs(_ configuration: Realm.Configuration, _ names: [String]) throws {
    let realm = try Realm(configuration: configuration)
    try realm.write {
        for (age, name) in names.enumerated() { realm.add(Dog(value: ["name": name, "age": age])) }
    }
}

/// The names of the dogs of `configuration`'s Realm, in creation order.
private func dogNames(_ configuration: Realm.Configuration) throws -> [String] {
    let realm = try Realm(configuration: configuration)
    return realm.objects(Dog.self).map(\.name)
}

/// The dogs of `realm` whose name passes `keep`, read one by one (to set up files; queries are
/// tested elsewhere).
private func dogs(in realm: Realm, _ keep: (String) -> Bool) -> [Dog] {
    Array(realm.objects(Dog.self)).filter { keep($0.name) }
}

/// Deletes every dog of `configuration`'s Realm but the one named `name`.
private func deleteAllDogsBut(_ name: String, _ configuration: Realm.Configuration) throws {
    let realm = try Realm(configuration: configuration)
    try realm.write { realm.delete(dogs(in: realm) { $0 != name }) }
}

/// The size of the file at `url`.
private func fileSize(_ url: URL) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
}

/// Whether `needle` occurs in the bytes of the file at `url`.
private func fileContains(_ url: URL, _ needle: String) throws -> Bool {
    try Data(contentsOf: url).range(of: Data(needle.utf8)) != nil
}

/// Expects opening `configuration` to throw `.invalidDatabase` with `message` (a prefix, or the
/// whole message when `exact`).
private func expectInvalidDatabase(_ configuration: Realm.Configuration, _ message: String, exact: Bool = false,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(sourceLocation: sourceLocation) { _ = try Realm(configuration: configuration) } throws: { error in
        guard let error = error as? Realm.Error else { return false }
        return error.code == .invalidDatabase && (exact ? error.message == message : error.message.hasPrefix(message))
            && error.fileURL == configuration.fileURL
    }
}

@Suite("Encryption")
struct EncryptionTests {
    @Test("a Realm created with a key is encrypted on disk and reopens with the key")
    func createAndReopen() throws {
        try withDirectory { directory in
            let encrypted = config(directory, "secret.realm", key: key(1))
            try addDogs(encrypted, ["Rexanderplatz", "Fido"])
            let url = try #require(encrypted.fileURL)
            #expect(try !fileContains(url, "Rexanderplatz"))
            #expect(try dogNames(encrypted) == ["Rexanderplatz", "Fido"])
            // A plain file of the same data shows the name: the check above can fail.
            let plain = config(directory, "plain.realm")
            try addDogs(plain, ["Rexanderplatz"])
            #expect(try fileContains(try #require(plain.fileURL), "Rexanderplatz"))
        }
    }

    @Test("a wrong key, no key and a key on a plain file: .invalidDatabase with Realm's messages; the file is unharmed")
    func wrongKeys() throws {
        try withDirectory { directory in
            let encrypted = config(directory, "secret.realm", key: key(1))
            try addDogs(encrypted, ["Rex"])
            let path = try #require(encrypted.fileURL).path
            let before = try Data(contentsOf: try #require(encrypted.fileURL))

            var wrong = encrypted
            wrong.encryptionKey = key(2)
            expectInvalidDatabase(wrong, "Failed to open Realm file at path '\(path)': Realm file decryption failed (")
            var noKey = encrypted
            noKey.encryptionKey = nil
            expectInvalidDatabase(noKey, "Failed to open Realm file at path '\(path)': header has invalid mnemonic. "
                + "The file is either not a Realm file, is an encrypted Realm file but no encryption key was supplied, or is corrupted.",
                exact: true)

            let plain = config(directory, "plain.realm")
            try addDogs(plain, ["Fido"])
            var keyOnPlain = plain
            keyOnPlain.encryptionKey = key(1)
            let plainPath = try #require(plain.fileURL).path
            expectInvalidDatabase(keyOnPlain,
                "Failed to open Realm file at path '\(plainPath)': Realm file decryption failed (Decryption failed: the file is not encrypted")

            // Nothing was written by the failed attempts.
            #expect(try Data(contentsOf: try #require(encrypted.fileURL)) == before)
            #expect(try dogNames(encrypted) == ["Rex"])
            #expect(try dogNames(plain) == ["Fido"])
        }
    }

    @Test("a second key for a file open on this thread stops, as Realm's cache of the thread's Realms")
    func differentKeyOnThisThread() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString).realm")
            let first = Realm.Configuration(fileURL: url, encryptionKey: Data(repeating: 1, count: 64))
            let realm = try Realm(configuration: first)
            var second = first
            second.encryptionKey = Data(repeating: 2, count: 64)
            _ = try Realm(configuration: second)
            withExtendedLifetime(realm) {}
        }
        expectStop("already opened with different encryption key", result)
    }

    @Test("a second key for a file open on another thread: .fail, as in Realm")
    func differentKeyWhileOpen() throws {
        try withDirectory { directory in
            let first = config(directory, "open.realm", key: key(1))
            let realm = try Realm(configuration: first)
            var second = first
            second.encryptionKey = key(2)
            // The file's handle is shared by the threads: realm-core's error.
            let other = second
            let message = try onOtherThread { () -> String in
                do {
                    _ = try Realm(configuration: other)
                    return "opened"
                } catch {
                    return "\(error)"
                }
            }
            #expect(message.hasSuffix("already opened with a different encryption key."))
            withExtendedLifetime(realm) {}
        }
    }

    @Test("an in-memory Realm with a key works; its key must match while it is open")
    func inMemoryWithKey() throws {
        let identifier = "enc-\(UUID().uuidString)"
        let configuration = Realm.Configuration(inMemoryIdentifier: identifier, encryptionKey: key(3), objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
        #expect(realm.objects(Dog.self).first?.name == "Rex")
        var other = configuration
        other.encryptionKey = key(4)
        let otherKey = other
        let code = try onOtherThread { () -> Realm.Error.Code? in
            do {
                _ = try Realm(configuration: otherKey)
                return nil
            } catch {
                return (error as? Realm.Error)?.code
            }
        }
        #expect(code == .fail)
        withExtendedLifetime(realm) {}
    }

    @Test("readOnly opens an encrypted file with its key, and refuses it without")
    func readOnlyEncrypted() throws {
        try withDirectory { directory in
            let encrypted = config(directory, "secret.realm", key: key(5))
            try addDogs(encrypted, ["Rex", "Fido", "Laika"])
            let reader = config(directory, "secret.realm", key: key(5), readOnly: true)
            let realm = try Realm(configuration: reader)
            #expect(realm.objects(Dog.self).map(\.name) == ["Rex", "Fido", "Laika"])
            #expect(realm.configuration.readOnly)
            var noKey = reader
            noKey.encryptionKey = nil
            // Open already with its key (on another thread: on this one it is a programmer
            // error): refused before the file is read.
            let withoutKey = noKey
            let message = try onOtherThread { () -> String in
                do {
                    _ = try Realm(configuration: withoutKey)
                    return "opened"
                } catch {
                    return (error as? Realm.Error)?.code == .fail ? "\(error)" : "other error"
                }
            }
            #expect(message.hasSuffix("already opened with a different encryption key."))
            withExtendedLifetime(realm) {}
        }
        try withDirectory { directory in
            let encrypted = config(directory, "secret.realm", key: key(5))
            try addDogs(encrypted, ["Rex"])
            var noKey = config(directory, "secret.realm", readOnly: true)
            noKey.encryptionKey = nil
            expectInvalidDatabase(noKey, "Failed to open Realm file at path '\(try #require(encrypted.fileURL).path)': header has invalid mnemonic.")
        }
    }
}

@Suite("writeCopy")
struct WriteCopyTests {
    @Test("plain → encrypted → another key → plain: each copy opens with its key and holds the objects")
    func copyChain() throws {
        try withDirectory { directory in
            let plain = config(directory, "plain.realm")
            try addDogs(plain, ["Rex", "Fido"])
            let first = config(directory, "first.realm", key: key(1))
            let second = config(directory, "second.realm", key: key(2))
            let last = config(directory, "last.realm")
            try Realm(configuration: plain).writeCopy(toFile: try #require(first.fileURL), encryptionKey: key(1))
            #expect(try dogNames(first) == ["Rex", "Fido"])
            #expect(try !fileContains(try #require(first.fileURL), "Fido"))
            try Realm(configuration: first).writeCopy(toFile: try #require(second.fileURL), encryptionKey: key(2))
            #expect(try dogNames(second) == ["Rex", "Fido"])
            var secondWithFirstKey = second
            secondWithFirstKey.encryptionKey = key(1)
            expectInvalidDatabase(secondWithFirstKey, "Failed to open Realm file at path")
            try Realm(configuration: second).writeCopy(toFile: try #require(last.fileURL))
            #expect(try dogNames(last) == ["Rex", "Fido"])
            #expect(try fileContains(try #require(last.fileURL), "Fido"))
        }
    }

    @Test("writeCopy(configuration:) writes with the configuration's key; the copy is compacted")
    func copyToConfiguration() throws {
        try withDirectory { directory in
            let source = config(directory, "source.realm")
            try addDogs(source, (0..<3000).map { "dog \($0) " + String(repeating: "x", count: 40) })
            do {
                let realm = try Realm(configuration: source)
                try realm.write { realm.delete(dogs(in: realm) { $0 != "dog 7 " + String(repeating: "x", count: 40) }) }
            }
            let destination = config(directory, "copy.realm", key: key(9))
            try Realm(configuration: source).writeCopy(configuration: destination)
            #expect(try dogNames(destination) == ["dog 7 " + String(repeating: "x", count: 40)])
            #expect(try fileSize(try #require(destination.fileURL)) < fileSize(try #require(source.fileURL)) / 4)
        }
    }

    @Test("an existing destination: .fileExists, and the file is left as it was")
    func destinationExists() throws {
        try withDirectory { directory in
            let source = config(directory, "source.realm")
            try addDogs(source, ["Rex"])
            let target = directory.appendingPathComponent("taken.realm")
            try Data("keep me".utf8).write(to: target)
            let realm = try Realm(configuration: source)
            #expect { try realm.writeCopy(toFile: target) } throws: { error in
                guard let error = error as? Realm.Error else { return false }
                return error.code == .fileExists && error.message == "File at path '\(target.path)' already exists."
                    && error.fileURL == target
            }
            #expect(try Data(contentsOf: target) == Data("keep me".utf8))
            // A copy onto the source itself is refused the same way.
            #expect { try realm.writeCopy(toFile: try #require(source.fileURL)) } throws: { ($0 as? Realm.Error)?.code == .fileExists }
        }
    }

    @Test("a missing directory: .fileNotFound; nothing is created")
    func missingDirectory() throws {
        try withDirectory { directory in
            let realm = try Realm(configuration: config(directory, "source.realm"))
            let target = directory.appendingPathComponent("no/such/dir/copy.realm")
            #expect { try realm.writeCopy(toFile: target) } throws: { ($0 as? Realm.Error)?.code == .fileNotFound }
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("no").path))
        }
    }

    @Test("inside a write transaction: the current data, uncommitted changes included; the write goes on")
    func insideWrite() throws {
        try withDirectory { directory in
            let source = config(directory, "source.realm", key: key(1))
            try addDogs(source, ["Rex", "Fido"])
            let realm = try Realm(configuration: source)
            let target = directory.appendingPathComponent("copy.realm")
            realm.beginWrite()
            realm.add(Dog(value: ["name": "Laika"]))
            realm.objects(Dog.self)[0].age = 99
            realm.delete(realm.objects(Dog.self)[1])
            try realm.writeCopy(toFile: target, encryptionKey: key(2))
            realm.add(Dog(value: ["name": "After the copy"]))
            realm.cancelWrite()
            // The source never had the changes; the copy has them all.
            #expect(realm.objects(Dog.self).map(\.name) == ["Rex", "Fido"])
            let copy = try Realm(configuration: config(directory, "copy.realm", key: key(2)))
            #expect(copy.objects(Dog.self).map(\.name) == ["Rex", "Laika"])
            #expect(copy.objects(Dog.self)[0].age == 99)
        }
    }

    @Test("the copy is the version the Realm reads, not a later commit of another thread")
    func readVersion() throws {
        try withDirectory { directory in
            let source = config(directory, "source.realm")
            try addDogs(source, ["Rex"])
            let realm = try Realm(configuration: source)
            #expect(realm.objects(Dog.self).count == 1)  // pins the version it reads
            try onOtherThread { try addDogs(source, ["Fido"]) }
            try realm.writeCopy(toFile: directory.appendingPathComponent("then.realm"))
            #expect(try dogNames(config(directory, "then.realm")) == ["Rex"])
            realm.refresh()
            try realm.writeCopy(toFile: directory.appendingPathComponent("now.realm"))
            #expect(try dogNames(config(directory, "now.realm")) == ["Rex", "Fido"])
        }
    }

    @Test("a read-only Realm can be copied; an in-memory destination is refused")
    func readOnlySource() throws {
        try withDirectory { directory in
            try addDogs(config(directory, "source.realm", key: key(1)), ["Rex"])
            let reader = try Realm(configuration: config(directory, "source.realm", key: key(1), readOnly: true))
            try reader.writeCopy(toFile: directory.appendingPathComponent("copy.realm"))
            #expect(try dogNames(config(directory, "copy.realm")) == ["Rex"])
            #expect { try reader.writeCopy(configuration: .init(inMemoryIdentifier: "nowhere")) } throws: { ($0 as? Realm.Error)?.code == .fail }
        }
    }
}

/// Records the arguments `shouldCompactOnLaunch` was called with.
private final class CompactCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var _calls: [(total: Int, used: Int)] = []
    var calls: [(total: Int, used: Int)] { lock.withLock { _calls } }
    func record(_ total: Int, _ used: Int) { lock.withLock { _calls.append((total, used)) } }
}

@Suite("shouldCompactOnLaunch")
struct CompactOnLaunchTests {
    /// A file that held many dogs, most of them deleted since: much free space.
    private func sparseFile(_ directory: URL, key: Data? = nil) throws -> Realm.Configuration {
        let configuration = config(directory, "sparse.realm", key: key)
        try addDogs(configuration, (0..<4000).map { "dog \($0) " + String(repeating: "y", count: 60) })
        try autoreleasepoolish {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.delete(dogs(in: realm) { !$0.hasPrefix("dog 1 ") }) }
        }
        // Closed here; compaction on launch needs it closed in every process too.
        waitUntilClosedEverywhere(configuration.fileURL!)
        return configuration
    }

    @Test("called with the file's total and used bytes; returning true compacts it before the Realm is returned")
    func compacts() throws {
        try withDirectory { directory in
            var configuration = try sparseFile(directory)
            let url = try #require(configuration.fileURL)
            let before = try fileSize(url)
            let calls = CompactCalls()
            configuration.shouldCompactOnLaunch = { total, used in
                calls.record(total, used)
                return true
            }
            let realm = try Realm(configuration: configuration)
            let call = try #require(calls.calls.first)
            #expect(calls.calls.count == 1)
            #expect(call.total == before)
            #expect(call.used > 0 && call.used <= call.total)
            #expect(call.used < call.total / 4, "most of the file is free space")
            #expect(try fileSize(url) < before / 4)
            #expect(try fileSize(url) >= call.used / 2)
            #expect(realm.objects(Dog.self).map(\.name) == ["dog 1 " + String(repeating: "y", count: 60)])
            // Writes go on in the compacted file.
            try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
            #expect(realm.objects(Dog.self).count == 2)
        }
    }

    @Test("returning false leaves the file as it is")
    func declines() throws {
        try withDirectory { directory in
            var configuration = try sparseFile(directory)
            let url = try #require(configuration.fileURL)
            let before = try Data(contentsOf: url)
            let calls = CompactCalls()
            configuration.shouldCompactOnLaunch = { total, used in
                calls.record(total, used)
                return false
            }
            let realm = try Realm(configuration: configuration)
            #expect(calls.calls.count == 1)
            #expect(try Data(contentsOf: url) == before)
            #expect(realm.objects(Dog.self).count == 1)
        }
    }

    @Test("not called while the file is open in this process, on this thread or another")
    func notCalledWhenOpen() throws {
        try withDirectory { directory in
            let plain = try sparseFile(directory)
            let open = try Realm(configuration: plain)
            let calls = CompactCalls()
            var configuration = plain
            configuration.shouldCompactOnLaunch = { total, used in
                calls.record(total, used)
                return true
            }
            let url = try #require(configuration.fileURL)
            let before = try fileSize(url)
            let other = configuration
            let count = try onOtherThread { try Realm(configuration: other).objects(Dog.self).count }
            #expect(count == 1)
            #expect(calls.calls.isEmpty)
            #expect(try fileSize(url) == before)
            withExtendedLifetime(open) {}
        }
    }

    @Test("an encrypted file is compacted with its key kept")
    func encryptedKeepsKey() throws {
        try withDirectory { directory in
            var configuration = try sparseFile(directory, key: key(7))
            let url = try #require(configuration.fileURL)
            let before = try fileSize(url)
            configuration.shouldCompactOnLaunch = { _, _ in true }
            #expect(try Realm(configuration: configuration).objects(Dog.self).count == 1)
            #expect(try fileSize(url) < before / 4)
            var noKey = configuration
            noKey.encryptionKey = nil
            noKey.shouldCompactOnLaunch = nil
            expectInvalidDatabase(noKey, "Failed to open Realm file at path '\(url.path)': header has invalid mnemonic.")
        }
    }

    @Test("not called for an in-memory Realm")
    func inMemory() throws {
        let calls = CompactCalls()
        var configuration = Realm.Configuration(inMemoryIdentifier: "compact-\(UUID().uuidString)", objectTypes: [Dog.self])
        configuration.shouldCompactOnLaunch = { total, used in
            calls.record(total, used)
            return true
        }
        let realm = try Realm(configuration: configuration)
        #expect(realm.isEmpty)
        #expect(calls.calls.isEmpty)
    }
}

@Suite("fileExists and deleteFiles")
struct FileManagementTests {
    @Test("fileExists follows the file; deleteFiles removes the file and its lock file, refusing while open")
    func existsAndDelete() throws {
        try withDirectory { directory in
            let configuration = config(directory, "files.realm", key: key(1))
            let url = try #require(configuration.fileURL)
            #expect(!Realm.fileExists(for: configuration))
            #expect(try !Realm.deleteFiles(for: configuration))
            do {
                let realm = try Realm(configuration: configuration)
                #expect(Realm.fileExists(for: configuration))
                #expect { try Realm.deleteFiles(for: configuration) } throws: { error in
                    guard let error = error as? Realm.Error else { return false }
                    return error.code == .alreadyOpen
                        && error.message == "Cannot delete files of an open Realm: '\(url.path)' is still in use."
                }
                #expect(FileManager.default.fileExists(atPath: url.path))
                withExtendedLifetime(realm) {}
            }
            // What an interrupted compaction leaves goes too.
            try Data().write(to: URL(fileURLWithPath: url.path + ".compact"))
            waitUntilClosedEverywhere(url)
            #expect(try Realm.deleteFiles(for: configuration))
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left.isEmpty, "\(left)")
            #expect(!Realm.fileExists(for: configuration))
            #expect(try !Realm.deleteFiles(for: configuration))
            // The path opens anew, empty, with any key.
            var fresh = configuration
            fresh.encryptionKey = key(2)
            #expect(try Realm(configuration: fresh).isEmpty)
        }
    }

    @Test("in-memory configurations have no files")
    func inMemory() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "files-\(UUID().uuidString)")
        let realm = try Realm(configuration: configuration)
        #expect(!Realm.fileExists(for: configuration))
        #expect(try !Realm.deleteFiles(for: configuration))
        withExtendedLifetime(realm) {}
    }
}

/// What a stopped child process wrote to stderr ("" if it did not stop).
private func standardError(_ result: ExitTest.Result?) -> String {
    guard let result else { return "" }
    return String(decoding: result.standardErrorContent, as: UTF8.self)
}

/// A file that this test process and the child process of an exit test both name: the child
/// finds it through its parent's pid (an exit test's body captures nothing).
private func sharedPath(_ name: String, pid: pid_t) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-\(name)-\(pid).realm")
}

@Suite("Another process has the file open")
struct OtherProcessTests {
    @Test("shouldCompactOnLaunch: the file opens as it is (Realm skips compaction then)")
    func compactionSkipped() async throws {
        let url = sharedPath("compact-busy", pid: getpid())
        let configuration = Realm.Configuration(fileURL: url, objectTypes: [Dog.self])
        _ = try? Realm.deleteFiles(for: configuration)
        defer { _ = try? Realm.deleteFiles(for: configuration) }
        try addDogs(configuration, (0..<3000).map { "dog \($0) " + String(repeating: "z", count: 50) })
        try deleteAllDogsBut("dog 0 " + String(repeating: "z", count: 50), configuration)
        // This process holds the file open across the await (a handle, not a thread-bound Realm).
        let holder = try StorageEngine(path: url.path)
        let before = try fileSize(url)
        // The child asks to compact; the open handle of this process makes it skip.
        await #expect(processExitsWith: .success) {
            var configuration = Realm.Configuration(fileURL: sharedPath("compact-busy", pid: getppid()), objectTypes: [Dog.self])
            configuration.shouldCompactOnLaunch = { _, _ in true }
            let realm = try Realm(configuration: configuration)
            guard realm.objects(Dog.self).count == 1 else { exit(2) }
        }
        #expect(try fileSize(url) == before)
        withExtendedLifetime(holder) {}
    }

    @Test("deleteFiles: .alreadyOpen, nothing deleted")
    func deleteRefused() async throws {
        let url = sharedPath("delete-busy", pid: getpid())
        let configuration = Realm.Configuration(fileURL: url, objectTypes: [Dog.self])
        _ = try? Realm.deleteFiles(for: configuration)
        defer { _ = try? Realm.deleteFiles(for: configuration) }
        try addDogs(configuration, ["Rex"])
        let holder = try StorageEngine(path: url.path)
        await #expect(processExitsWith: .success) {
            let url = sharedPath("delete-busy", pid: getppid())
            do {
                try Realm.deleteFiles(for: Realm.Configuration(fileURL: url))
                exit(2)
            } catch let error as Realm.Error {
                let expected = "Cannot delete files of an open Realm: '\(url.path)' is still in use."
                exit(error.code == .alreadyOpen && error.message == expected ? 0 : 3)
            }
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        withExtendedLifetime(holder) {}
        #expect(try dogNames(configuration) == ["Rex"])
    }
}

@Suite("Encryption and compaction: programmer errors stop with Realm's message")
struct EncryptionProgrammerErrorTests {
    @Test("a 63-byte key")
    func shortKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-shortKey", encryptionKey: Data(count: 63)))
        }
        #expect(standardError(result).contains("Encryption key must be exactly 64 bytes long"))
    }

    @Test("a 65-byte key")
    func longKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-longKey", encryptionKey: Data(count: 65)))
        }
        #expect(standardError(result).contains("Encryption key must be exactly 64 bytes long"))
    }

    @Test("writeCopy with a 63-byte key")
    func shortCopyKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-shortCopyKey"))
            try realm.writeCopy(toFile: URL(fileURLWithPath: "/nonexistent/never-written.realm"), encryptionKey: Data(count: 63))
        }
        #expect(standardError(result).contains("Encryption key must be exactly 64 bytes long"))
    }

    @Test("shouldCompactOnLaunch with readOnly")
    func compactReadOnly() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: "/nonexistent/read-only.realm"), readOnly: true)
            configuration.shouldCompactOnLaunch = { _, _ in true }
            _ = try Realm(configuration: configuration)
        }
        #expect(standardError(result).contains("Cannot set `shouldCompactOnLaunch` when `readOnly` is set."))
    }
}

