// ActorRealmTests.swift — Realms isolated to actors: opening, isolation, asyncWrite (order,
// cancellation, errors, 1,000 concurrent tasks), asyncRefresh, asyncOpen.

import Dispatch
import Foundation
import OpenRealm
import Testing

@Suite("Actor-isolated Realms")
struct ActorRealmTests {
    @Test("a Realm opened with an actor is used from it, across suspensions and threads")
    func usableAcrossSuspensions() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        try await store.increment()
        // Suspensions let the actor move between threads of the pool: the Realm goes along.
        for _ in 0..<20 {
            try await Task.sleep(nanoseconds: 1_000_000)
            try await store.increment()
        }
        #expect(await store.counterValue() == 21)
    }

    @Test("the same actor and configuration give the same instance; a thread-confined one is another")
    func sameInstance() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        #expect(try await store.reopenIsSame())
        let confinedIsSame = await store.run { store in
            (try? Realm(configuration: store.realm.configuration)) == store.realm
        }
        #expect(!confinedIsSame)
    }

    @Test("asyncWrite: 1,000 concurrent tasks doing read-modify-write give an exact total")
    func thousandTasks() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await store.increment() }
            }
            var seen = Set<Int>()
            for try await value in group { seen.insert(value) }
            // Every task read the value the previous one wrote.
            #expect(seen == Set(1...1_000))
        }
        #expect(await store.counterValue() == 1_000)
    }

    @Test("asyncWrite on a file: 1,000 concurrent tasks from two actors give an exact total")
    func thousandTasksTwoActors() async throws {
        let configuration = asyncTestFileConfiguration()
        defer { removeFiles(configuration) }
        let first = try await RealmStore(configuration)
        let second = try await RealmStore(configuration)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<1_000 {
                let store = index % 2 == 0 ? first : second
                group.addTask { try await store.increment() }
            }
            var seen = Set<Int>()
            for try await value in group { seen.insert(value) }
            #expect(seen == Set(1...1_000))
        }
        _ = await second.run { $0.realm.refresh() }
        #expect(await first.counterValue() == 1_000)
        #expect(await second.counterValue() == 1_000)
    }

    @Test("asyncWrite: a throwing block commits nothing and rethrows")
    func throwingBlock() async throws {
        struct Failure: Error {}
        let store = try await RealmStore(asyncTestConfiguration())
        try await store.increment()
        await #expect(throws: Failure.self) {
            try await store.throwingWrite(Failure())
        }
        #expect(await store.counterValue() == 1)
        #expect(await store.run { !$0.realm.isInWriteTransaction })
        // The next write proceeds.
        try await store.increment()
        #expect(await store.counterValue() == 2)
    }

    @Test("asyncWrite: a task cancelled before its turn throws CancellationError and writes nothing")
    func cancelledBeforeTurn() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        // Hold the write lock in another Realm of the file (a thread of its own), so that the
        // task waits for its turn.
        let configuration = await store.run { $0.realm.configuration }
        let holder = LockHolder(configuration)
        holder.hold()
        let task = Task { try await store.increment() }
        try await Task.sleep(nanoseconds: 50_000_000)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        holder.release()
        #expect(await store.counterValue() == 0)
        try await store.increment()
        #expect(await store.counterValue() == 1)
    }

    @Test("asyncWrite: queued writes of one actor run in the order they were asked for")
    func order() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        await store.run { store in
            // Queued from isolated code without awaiting in between: the order of the calls.
            for index in 0..<50 {
                store.realm.writeAsync {
                    store.realm.create(LogEntry.self, value: ["order": index, "text": "\(index)"])
                }
            }
        }
        try await store.increment()  // queued after the 50 blocks: runs after them
        let log = await store.run { store in
            store.realm.objects(LogEntry.self).map(\.order)
        }
        #expect(log == Array(0..<50))
    }

    @Test("asyncRefresh moves an actor's Realm to another writer's version")
    func asyncRefresh() async throws {
        let configuration = asyncTestConfiguration()
        let store = try await RealmStore(configuration)
        await store.run { store in
            store.realm.autorefresh = false
            _ = store.realm.objects(AsyncCounter.self).count  // begins reading
        }
        let writer = Thread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.create(AsyncCounter.self, value: ["id": 0, "value": 7]) }
        }
        writer.start()
        while await store.run({ _ in RealmStore.writerDone(configuration) }) == false {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(await store.refreshAsync() == true)
        #expect(await store.counterValue() == 7)
        #expect(await store.refreshAsync() == false)
    }

    @Test("the main actor's async init opens a Realm of the main queue with asyncWrite")
    @MainActor
    func mainActor() async throws {
        let realm = try await Realm(configuration: asyncTestConfiguration())
        try await realm.asyncWrite { realm.create(AsyncCounter.self, value: ["id": 0, "value": 3]) }
        #expect(realm.object(ofType: AsyncCounter.self, forPrimaryKey: 0)?.value == 3)
        #expect(await realm.asyncRefresh() == false)
    }

    @Test("an async open of a file that is not a Realm throws .invalidDatabase")
    func asyncInitInvalid() async throws {
        let configuration = asyncTestFileConfiguration()
        defer { removeFiles(configuration) }
        try Data(repeating: 0x5a, count: 8192).write(to: configuration.fileURL!)
        await #expect(throws: Realm.Error.self) {
            _ = try await RealmStore(configuration)
        }
        do {
            _ = try await RealmStore(configuration)
        } catch let error as Realm.Error {
            #expect(error.code == .invalidDatabase)
        }
    }
}

extension RealmStore {
    /// Whether opening the Realm again with this actor gives the same instance.
    func reopenIsSame() async throws -> Bool {
        let again = try await Realm(configuration: realm.configuration, actor: self)
        return again == realm
    }

    func throwingWrite(_ error: some Error) async throws {
        try await realm.asyncWrite {
            let counter = realm.object(ofType: AsyncCounter.self, forPrimaryKey: 0)!
            counter.value = 100
            throw error
        }
    }

    func refreshAsync() async -> Bool {
        await realm.asyncRefresh()
    }

    /// Whether counter 0 exists in the latest version of the file (read on a new thread).
    static func writerDone(_ configuration: Realm.Configuration) -> Bool {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var found = false
        Thread {
            let realm = try! Realm(configuration: configuration)
            found = realm.object(ofType: AsyncCounter.self, forPrimaryKey: 0) != nil
            done.signal()
        }.start()
        done.wait()
        return found
    }
}

/// Holds the write lock of a file in a write transaction on a thread of its own, until
/// released.
final class LockHolder: @unchecked Sendable {
    private let configuration: Realm.Configuration
    private let began = DispatchSemaphore(value: 0)
    private let releasing = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init(_ configuration: Realm.Configuration) { self.configuration = configuration }

    func hold() {
        let configuration = self.configuration
        Thread { [self] in
            let realm = try! Realm(configuration: configuration)
            realm.beginWrite()
            began.signal()
            releasing.wait()
            realm.cancelWrite()
            ended.signal()
        }.start()
        began.wait()
    }

    func release() {
        releasing.signal()
        ended.wait()
    }
}
