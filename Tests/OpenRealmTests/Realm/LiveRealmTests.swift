// LiveRealmTests.swift — live Realms: autorefresh on a queue, a thread's run loop, another
// process's and an encrypted file's commits arriving as notifications, .refreshRequired.

import Foundation
import Testing

import OpenRealm

/// A serial queue and a queue-confined Realm opened on it, with its Realm.observe log.
final class QueueRealm: @unchecked Sendable {
    let queue = DispatchQueue(label: "live-realm")
    let log = NotificationLog()
    private let marker = DispatchSpecificKey<Int>()
    // Touched only in blocks of `queue`.
    private var realm: Realm?
    private var token: NotificationToken?

    init(_ configuration: Realm.Configuration, autorefresh: Bool = true) throws {
        queue.setSpecific(key: marker, value: 1)
        try queue.sync {
            let realm = try Realm(configuration: configuration, queue: queue)
            realm.autorefresh = autorefresh
            _ = realm.objects(Dog.self).count
            self.realm = realm
            token = realm.observe { [log, marker] notification, realm in
                // Where the block runs: on the queue, or the test records it.
                let onQueue = DispatchQueue.getSpecific(key: marker) == 1
                log.append("\(notification.name) \(realm.objects(Dog.self).count)\(onQueue ? "" : " off the queue")")
            }
        }
    }

    /// Runs `body` with the Realm in a block of the queue.
    func sync<R>(_ body: (Realm) throws -> R) rethrows -> R {
        try queue.sync { try body(realm!) }
    }

    func close() {
        queue.sync {
            token?.invalidate()
            token = nil
            realm = nil
        }
    }
}

/// Adds a dog with a new Realm instance on a thread of its own.
func addDogOnOtherThread(_ configuration: Realm.Configuration, name: String = "Rex") throws {
    try onOtherThread {
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Dog(value: ["name": name])) }
    }
}

@Suite("Live Realms")
struct LiveRealmTests {
    @Test("autorefresh: another thread's commit arrives on the Realm's queue as .didChange")
    func autorefreshOnQueue() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "live-\(UUID())", objectTypes: [Dog.self])
        let live = try QueueRealm(configuration)
        defer { live.close() }
        try addDogOnOtherThread(configuration)
        #expect(live.log.wait(for: 1))
        #expect(live.log.all == ["didChange 1"])
        #expect(live.sync { $0.objects(Dog.self).count } == 1)
    }

    @Test("after a commit of its own, the Realm still hears of other threads' commits")
    func localThenOtherCommit() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "live-\(UUID())", objectTypes: [Dog.self])
        let live = try QueueRealm(configuration)
        defer { live.close() }
        try live.sync { realm in try realm.write { realm.add(Dog()) } }
        try addDogOnOtherThread(configuration)
        #expect(live.log.wait(for: 2))
        #expect(live.log.all == ["didChange 1", "didChange 2"])
    }

    @Test("autorefresh false: .refreshRequired, and the Realm stays at its version until refresh()")
    func refreshRequired() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "live-\(UUID())", objectTypes: [Dog.self])
        let live = try QueueRealm(configuration, autorefresh: false)
        defer { live.close() }
        try addDogOnOtherThread(configuration)
        #expect(live.log.wait(for: 1))
        #expect(live.log.all == ["refreshRequired 0"])
        #expect(live.sync { $0.objects(Dog.self).count } == 0)
        #expect(live.sync { $0.refresh() })
        #expect(live.log.all == ["refreshRequired 0", "didChange 1"])
    }

    @Test("turning autorefresh on again: the next commit refreshes the Realm")
    func autorefreshBackOn() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "live-\(UUID())", objectTypes: [Dog.self])
        let live = try QueueRealm(configuration, autorefresh: false)
        defer { live.close() }
        try addDogOnOtherThread(configuration)
        #expect(live.log.wait(for: 1))
        live.sync { $0.autorefresh = true }
        try addDogOnOtherThread(configuration, name: "Fido")
        #expect(live.log.wait(for: 2))
        #expect(live.log.all == ["refreshRequired 0", "didChange 2"])
    }

    @Test("a Realm opened on the main actor gets the notifications on the main queue")
    func mainQueue() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "live-\(UUID())", objectTypes: [Dog.self])
        let log = NotificationLog()
        // Under swift test on Linux the main queue's blocks may run on another thread than the
        // main thread: a queue-specific value tells where the block runs.
        let mainKey = DispatchSpecificKey<Int>()
        DispatchQueue.main.setSpecific(key: mainKey, value: 1)
        defer { DispatchQueue.main.setSpecific(key: mainKey, value: nil) }
        let token = try await MainActor.run {
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(Dog.self).count
            return realm.observe { notification, realm in
                let onMain = Thread.isMainThread || DispatchQueue.getSpecific(key: mainKey) == 1
                log.append("\(notification.name) \(realm.objects(Dog.self).count)\(onMain ? "" : " off the main queue")")
            }
        }
        try addDogOnOtherThread(configuration)
        for _ in 0..<1000 where log.all.isEmpty {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(log.all == ["didChange 1"])
        await MainActor.run { token.invalidate() }
    }

    @Test("a thread that runs its run loop gets the notifications there")
    func runLoopThread() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "live-\(UUID())", objectTypes: [Dog.self])
        let log = NotificationLog()
        let ready = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let realm = try! Realm(configuration: configuration)
            _ = realm.objects(Dog.self).count
            let observing = Thread.current
            let token = realm.observe { notification, realm in
                log.append("\(notification.name) \(realm.objects(Dog.self).count)\(Thread.current == observing ? "" : " off the thread")")
            }
            ready.signal()
            let deadline = Date().addingTimeInterval(10)
            while log.all.isEmpty && Date() < deadline {
                _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.1))
            }
            token.invalidate()
            done.signal()
        }
        thread.start()
        ready.wait()
        try addDogOnOtherThread(configuration)
        done.wait()
        #expect(log.all == ["didChange 1"])
    }

    @Test("a thread that does not run its run loop gets them at refresh()")
    func threadWithoutRunLoop() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "live-\(UUID())", objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        _ = realm.objects(Dog.self).count
        let log = NotificationLog()
        let token = realm.observe { notification, realm in
            log.append("\(notification.name) \(realm.objects(Dog.self).count)")
        }
        try addDogOnOtherThread(configuration)
        // The notifier has signalled by now or soon; nothing runs on this thread by itself.
        usleep(100_000)
        #expect(log.all.isEmpty)
        #expect(realm.objects(Dog.self).count == 0)
        #expect(realm.refresh())
        #expect(log.all == ["didChange 1"])
        token.invalidate()
    }

    @Test("when the last instance goes away, the notifier stops and the file closes")
    func notifierStops() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("live-close-\(UUID()).realm")
        let configuration = Realm.Configuration(fileURL: url, objectTypes: [Dog.self])
        let live = try QueueRealm(configuration)
        try addDogOnOtherThread(configuration)
        #expect(live.log.wait(for: 1))
        live.close()
        waitUntilClosedEverywhere(url)
        #expect(try Realm.deleteFiles(for: configuration))
    }

    @Test("an encrypted Realm: another thread's commit arrives as .didChange")
    func encrypted() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("live-encrypted-\(UUID()).realm")
        let configuration = Realm.Configuration(fileURL: url, encryptionKey: Data((0..<64).map { UInt8($0) }), objectTypes: [Dog.self])
        defer { _ = try? Realm.deleteFiles(for: configuration) }
        let live = try QueueRealm(configuration)
        try addDogOnOtherThread(configuration)
        #expect(live.log.wait(for: 1))
        #expect(live.log.all == ["didChange 1"])
        live.close()
    }
}

/// A file that this test process and an exit test's child both name (through the parent's pid).
private func liveSharedURL(_ name: String, pid: pid_t) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-live-\(name)-\(pid).realm")
}

/// The key of the encrypted file the child process commits to.
private func liveKey() -> Data { Data((0..<64).map { UInt8(255 - $0) }) }

@Suite("Live Realms and other processes")
struct LiveRealmProcessTests {
    @Test("another process's commit arrives as .didChange")
    func otherProcess() async throws {
        let configuration = Realm.Configuration(fileURL: liveSharedURL("process", pid: getpid()), objectTypes: [Dog.self])
        _ = try? Realm.deleteFiles(for: configuration)
        defer { _ = try? Realm.deleteFiles(for: configuration) }
        let live = try QueueRealm(configuration)
        await #expect(processExitsWith: .success) {
            let configuration = Realm.Configuration(fileURL: liveSharedURL("process", pid: getppid()), objectTypes: [Dog.self])
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(Dog(value: ["name": "from the child"])) }
        }
        #expect(live.log.wait(for: 1))
        #expect(live.log.all == ["didChange 1"])
        #expect(live.sync { $0.objects(Dog.self).first?.name } == "from the child")
        live.close()
    }

    @Test("another process's commit to an encrypted file arrives as .didChange")
    func otherProcessEncrypted() async throws {
        let configuration = Realm.Configuration(fileURL: liveSharedURL("process-encrypted", pid: getpid()), encryptionKey: liveKey(),
                                                objectTypes: [Dog.self])
        _ = try? Realm.deleteFiles(for: configuration)
        defer { _ = try? Realm.deleteFiles(for: configuration) }
        let live = try QueueRealm(configuration)
        await #expect(processExitsWith: .success) {
            let configuration = Realm.Configuration(fileURL: liveSharedURL("process-encrypted", pid: getppid()), encryptionKey: liveKey(),
                                                    objectTypes: [Dog.self])
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(Dog(value: ["name": "secret"])) }
        }
        #expect(live.log.wait(for: 1))
        #expect(live.log.all == ["didChange 1"])
        #expect(live.sync { $0.objects(Dog.self).first?.name } == "secret")
        live.close()
    }
}
