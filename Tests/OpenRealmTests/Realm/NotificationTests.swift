// NotificationTests.swift — Realm-level notifications (Realm.observe, .didChange,
// .refreshRequired), autorefresh, refresh, withoutNotifying, token invalidation.

import Foundation
import Testing

import OpenRealm

/// What notification blocks received, in order (blocks of one test, on one thread or queue at a
/// time; read after the deliveries, or under the lock).
final class NotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []

    func append(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    /// Waits (at most `seconds`) until `count` entries arrived; whether they did.
    func wait(for count: Int, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while all.count < count {
            if Date() > deadline { return false }
            usleep(1000)
        }
        return true
    }
}

extension Realm.Notification {
    var name: String { self == .didChange ? "didChange" : "refreshRequired" }
}

@Suite("Realm notifications")
struct RealmNotificationTests {
    @Test("autorefresh is true by default, and can be turned off")
    func autorefreshDefault() throws {
        let realm = try memoryRealm([Dog.self])
        #expect(realm.autorefresh)
        realm.autorefresh = false
        #expect(!realm.autorefresh)
        #expect(!realm.freeze().autorefresh)
    }

    @Test("a commit of the instance calls its observe blocks before commitWrite returns")
    func localCommitIsSynchronous() throws {
        let realm = try memoryRealm([Dog.self])
        let log = NotificationLog()
        let token = realm.observe { notification, observed in
            log.append("\(notification.name) \(observed.objects(Dog.self).count)")
        }
        try realm.write { realm.add(Dog()) }
        #expect(log.all == ["didChange 1"])
        realm.beginWrite()
        realm.add(Dog())
        try realm.commitWrite()
        #expect(log.all == ["didChange 1", "didChange 2"])
        token.invalidate()
    }

    @Test("a cancelled write notifies nothing")
    func cancelledWrite() throws {
        let realm = try memoryRealm([Dog.self])
        let log = NotificationLog()
        let token = realm.observe { notification, _ in log.append(notification.name) }
        realm.beginWrite()
        realm.add(Dog())
        realm.cancelWrite()
        #expect(log.all.isEmpty)
        token.invalidate()
    }

    @Test("withoutNotifying skips the given tokens for that commit only")
    func withoutNotifying() throws {
        let realm = try memoryRealm([Dog.self])
        let log = NotificationLog()
        let skipped = realm.observe { _, _ in log.append("skipped") }
        let other = realm.observe { _, _ in log.append("other") }
        try realm.write(withoutNotifying: [skipped]) { realm.add(Dog()) }
        #expect(log.all == ["other"])
        try realm.write { realm.add(Dog()) }
        #expect(log.all == ["other", "skipped", "other"])
        realm.beginWrite()
        realm.add(Dog())
        try realm.commitWrite(withoutNotifying: [other])
        #expect(log.all == ["other", "skipped", "other", "skipped"])
        skipped.invalidate()
        other.invalidate()
    }

    @Test("invalidate() stops the notifications; a second call does nothing")
    func invalidateStops() throws {
        let realm = try memoryRealm([Dog.self])
        let log = NotificationLog()
        let token = realm.observe { _, _ in log.append("block") }
        try realm.write { realm.add(Dog()) }
        token.invalidate()
        token.invalidate()
        try realm.write { realm.add(Dog()) }
        #expect(log.all == ["block"])
    }

    @Test("invalidate() from another thread stops the notifications")
    func invalidateFromOtherThread() throws {
        let realm = try memoryRealm([Dog.self])
        let log = NotificationLog()
        let token = realm.observe { _, _ in log.append("block") }
        try onOtherThread { token.invalidate() }
        try realm.write { realm.add(Dog()) }
        #expect(log.all.isEmpty)
    }

    @Test("releasing the token stops the notifications")
    func releasedToken() throws {
        let realm = try memoryRealm([Dog.self])
        let log = NotificationLog()
        do {
            let token = realm.observe { _, _ in log.append("block") }
            withExtendedLifetime(token) {}
        }
        try realm.write { realm.add(Dog()) }
        #expect(log.all.isEmpty)
    }

    @Test("refresh() delivers another thread's commit before it returns")
    func refreshDelivers() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "refresh-\(UUID())", objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(Dog.self).isEmpty)
        let log = NotificationLog()
        let token = realm.observe { notification, observed in
            log.append("\(notification.name) \(observed.objects(Dog.self).count)")
        }
        try onOtherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.add(Dog()) }
        }
        #expect(realm.refresh())
        #expect(log.all == ["didChange 1"])
        #expect(!realm.refresh())
        #expect(log.all == ["didChange 1"])
        token.invalidate()
    }

    @Test("beginWrite() first moves to the latest version, delivering")
    func beginWriteDelivers() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "beginWrite-\(UUID())", objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(Dog.self).isEmpty)
        let log = NotificationLog()
        let token = realm.observe { notification, observed in
            log.append("\(notification.name) \(observed.objects(Dog.self).count) \(observed.isInWriteTransaction)")
        }
        try onOtherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.add(Dog()) }
        }
        realm.beginWrite()
        #expect(log.all == ["didChange 1 false"])
        realm.add(Dog())
        try realm.commitWrite()
        #expect(log.all == ["didChange 1 false", "didChange 2 false"])
        token.invalidate()
    }

    @Test("refresh() from a notification block does nothing")
    func nestedRefresh() throws {
        let realm = try memoryRealm([Dog.self])
        let log = NotificationLog()
        let token = realm.observe { _, observed in log.append("refresh \(observed.refresh())") }
        try realm.write { realm.add(Dog()) }
        #expect(log.all == ["refresh false"])
        token.invalidate()
    }

    @Test("a block that writes does not notify the blocks again")
    func writeInBlock() throws {
        let realm = try memoryRealm([Dog.self])
        let log = NotificationLog()
        let token = realm.observe { _, observed in
            log.append("block")
            if observed.objects(Dog.self).count == 1 {
                try! observed.write { observed.add(Dog()) }
            }
        }
        try realm.write { realm.add(Dog()) }
        #expect(log.all == ["block"])
        #expect(realm.objects(Dog.self).count == 2)
        token.invalidate()
    }
}

@Suite("Queue-confined Realms")
struct QueueConfinedRealmTests {
    @Test("blocks of one serial queue running on different threads use one instance")
    func blocksOnSeveralThreads() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "queue-\(UUID())", objectTypes: [Dog.self])
        let queue = DispatchQueue(label: "queue-confined")
        let log = NotificationLog()
        final class Shared: @unchecked Sendable {
            var realm: Realm?
            var token: NotificationToken?
            var threads: [Thread] = []  // kept alive: two live objects are two threads
        }
        let shared = Shared()
        // queue.sync runs the block on the calling thread: two threads, one queue.
        try onOtherThread {
            try queue.sync {
                let realm = try Realm(configuration: configuration, queue: queue)
                shared.realm = realm
                shared.token = realm.observe { notification, observed in
                    log.append("\(notification.name) \(observed.objects(Dog.self).count)")
                }
                shared.threads.append(Thread.current)
                try realm.write { realm.add(Dog()) }
            }
        }
        try onOtherThread {
            try queue.sync {
                let realm = try Realm(configuration: configuration, queue: queue)
                #expect(realm == shared.realm)
                shared.threads.append(Thread.current)
                #expect(realm.objects(Dog.self).count == 1)
                try realm.write { realm.add(Dog()) }
            }
        }
        queue.async {
            try! shared.realm!.write { shared.realm!.add(Dog()) }
        }
        queue.sync {
            #expect(shared.realm!.objects(Dog.self).count == 3)
            shared.token!.invalidate()
            shared.token = nil
            shared.realm = nil
        }
        #expect(shared.threads.count == 2 && shared.threads[0] !== shared.threads[1])
        #expect(log.all == ["didChange 1", "didChange 2", "didChange 3"])
    }

    @Test("Realm(queue:) opens the default configuration on the queue")
    func defaultConfigurationOnQueue() async {
        // In a child process: the test changes the process's default configuration.
        await #expect(processExitsWith: .success) {
            Realm.Configuration.defaultConfiguration = .init(inMemoryIdentifier: "default-on-queue", objectTypes: [Dog.self])
            let queue = DispatchQueue(label: "default-configuration")
            let identifier = try queue.sync { try Realm(queue: queue).configuration.inMemoryIdentifier }
            exit(identifier == "default-on-queue" ? 0 : 2)
        }
    }
}

@Suite("Notifications and queues: programmer errors stop with Realm's message")
struct NotificationProgrammerErrorTests {
    @Test("opening a queue-confined Realm outside its queue")
    func openedOutsideQueue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "exit-queue"), queue: DispatchQueue(label: "other"))
        }
        expectStop("Realm opened from incorrect dispatch queue.", result)
    }

    @Test("confining a Realm to a global (concurrent) queue")
    func globalQueue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "exit-global-queue"), queue: DispatchQueue.global())
        }
        expectStop("Invalid queue 'com.apple.root.default-qos' (OS_dispatch_queue_global): Realms can only be confined to serial queues or the main queue.", result)
    }

    @Test("using a queue-confined Realm outside its queue")
    func usedOutsideQueue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = DispatchQueue(label: "confining")
            let realm = try queue.sync { try Realm(configuration: .init(inMemoryIdentifier: "exit-queue-use"), queue: queue) }
            _ = realm.isEmpty
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }

    @Test("observing a frozen Realm")
    func observeFrozen() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "exit-frozen"))
            _ = realm.freeze().observe { _, _ in }
        }
        expectStop("Frozen Realms do not change and do not have change notifications.", result)
    }

    @Test("observing a read-only Realm")
    func observeReadOnly() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("exit-readonly-\(getpid()).realm")
            try Realm(configuration: .init(fileURL: url, objectTypes: [Dog.self])).write {}
            _ = try Realm(configuration: .init(fileURL: url, readOnly: true, objectTypes: [Dog.self])).observe { _, _ in }
        }
        expectStop("Read-only Realms do not change and do not have change notifications.", result)
    }

    @Test("enabling autorefresh on a frozen Realm")
    func autorefreshFrozen() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "exit-frozen-autorefresh"))
            realm.freeze().autorefresh = true
        }
        expectStop("Auto-refresh cannot be enabled for frozen Realms.", result)
    }

    @Test("skipping a token of another Realm")
    func tokenOfOtherRealm() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let first = try Realm(configuration: .init(inMemoryIdentifier: "exit-skip-a"))
            let second = try Realm(configuration: .init(inMemoryIdentifier: "exit-skip-b"))
            let token = second.observe { _, _ in }
            try first.write(withoutNotifying: [token]) {}
        }
        expectStop("Incorrect Realm: only notifications for the Realm being modified can be skipped.", result)
    }
}
