// AsyncWriteTests.swift — writeAsync, beginAsyncWrite, commitAsyncWrite, cancelAsyncWrite,
// isPerformingAsynchronousWriteOperations: Realm's ordering, cancellation and completion rules.

import Dispatch
import Foundation
import OpenRealm
import Synchronization
import Testing

/// The events of a RealmStore's test, kept isolated to the store (its blocks run there).
nonisolated(unsafe) private var eventsByStore: [ObjectIdentifier: [String]] = [:]
private let eventsLock = NSLock()

extension RealmStore {
    /// Records an event (called from blocks and completions, which run isolated to the store).
    func record(_ event: String) {
        eventsLock.lock()
        eventsByStore[ObjectIdentifier(self), default: []].append(event)
        eventsLock.unlock()
    }

    /// The events recorded so far, in order.
    var events: [String] {
        eventsLock.lock()
        defer { eventsLock.unlock() }
        return eventsByStore[ObjectIdentifier(self)] ?? []
    }
}

extension RealmStore {
    /// While another thread holds the file's write lock, starts an asyncWrite in another task of
    /// the actor, lets it queue, then writes synchronously (the lock is released 50 ms after
    /// that write began); returns the counter and the log afterwards.
    func synchronousWriteWhileTaskWaits() async throws -> (Int, [String]) {
        let holder = LockHolder(realm.configuration)
        holder.hold()
        let pending = Task { try await self.increment() }
        await Task.yield()
        // The task's transaction cannot have been handed out yet (the lock is held until after
        // this write began, however long the yield took): this write waits for it, then the
        // task gets the next one.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { holder.release() }
        try realm.write { realm.create(LogEntry.self, value: ["order": 0, "text": "sync"]) }
        _ = try await pending.value
        return (counterValue(), log())
    }
}

@Suite("Asynchronous writes: writeAsync, beginAsyncWrite, commitAsyncWrite")
struct AsyncWriteTests {
    @Test("writeAsync blocks run in call order; completions follow their commits, in order")
    func orderAndCompletions() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        await store.run { store in
            for index in 0..<10 {
                store.realm.writeAsync({
                    store.record("b\(index)")
                    store.realm.create(LogEntry.self, value: ["order": index, "text": "\(index)"])
                }, onComplete: { error in
                    #expect(error == nil)
                    store.record("c\(index)")
                })
            }
            #expect(store.realm.isPerformingAsynchronousWriteOperations)
        }
        try await store.drain()
        let events = await store.events
        #expect(events.filter { $0.hasPrefix("b") } == (0..<10).map { "b\($0)" })
        #expect(events.filter { $0.hasPrefix("c") } == (0..<10).map { "c\($0)" })
        for index in 0..<10 {
            #expect(events.firstIndex(of: "b\(index)")! < events.firstIndex(of: "c\(index)")!)
        }
        #expect(await store.run { $0.realm.objects(LogEntry.self).map(\.order) } == Array(0..<10))
        #expect(await store.run { !$0.realm.isPerformingAsynchronousWriteOperations })
    }

    @Test("cancelAsyncWrite before the block runs cancels the transaction entirely")
    func cancelBegin() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        await store.run { store in
            store.realm.writeAsync { store.realm.create(LogEntry.self, value: ["order": 0, "text": "kept"]) }
            let id = store.realm.writeAsync({ store.realm.create(LogEntry.self, value: ["order": 1, "text": "cancelled"]) },
                                            onComplete: { _ in store.record("completed") })
            store.realm.writeAsync { store.realm.create(LogEntry.self, value: ["order": 2, "text": "kept too"]) }
            try! store.realm.cancelAsyncWrite(id)
        }
        try await store.drain()
        #expect(await store.log() == ["kept", "kept too"])
        #expect(await store.events.isEmpty)
    }

    @Test("cancelAsyncWrite of a commit drops its callback, not the commit; inside the block it is a no-op")
    func cancelCommit() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        await store.run { store in
            var ownId: AsyncTransactionId = 0
            ownId = store.realm.beginAsyncWrite {
                try! store.realm.cancelAsyncWrite(ownId)  // the running block: nothing happens
                store.realm.create(LogEntry.self, value: ["order": 0, "text": "committed"])
                let commitId = store.realm.commitAsyncWrite { _ in store.record("callback") }
                try! store.realm.cancelAsyncWrite(commitId)
            }
        }
        try await store.drain()
        #expect(await store.log() == ["committed"])
        #expect(await store.events.isEmpty)
    }

    @Test("a beginAsyncWrite block that returns without committing is cancelled")
    func returnWithoutCommit() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        await store.run { store in
            store.realm.beginAsyncWrite {
                store.realm.create(LogEntry.self, value: ["order": 0, "text": "dropped"])
            }
            store.realm.beginAsyncWrite {
                store.realm.create(LogEntry.self, value: ["order": 1, "text": "committed"])
                store.realm.commitAsyncWrite()
            }
        }
        try await store.drain()
        #expect(await store.log() == ["committed"])
    }

    @Test("a block may queue more asynchronous writes; they run after it, in order")
    func nested() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        await store.run { store in
            store.realm.writeAsync {
                store.realm.create(LogEntry.self, value: ["order": 0, "text": "outer"])
                store.realm.writeAsync { store.realm.create(LogEntry.self, value: ["order": 2, "text": "inner"]) }
            }
            store.realm.writeAsync { store.realm.create(LogEntry.self, value: ["order": 1, "text": "second"]) }
        }
        try await store.drain()
        let created = await store.run { $0.realm.objects(LogEntry.self).map(\.text) }
        #expect(created == ["outer", "second", "inner"])
    }

    @Test("a synchronous write first runs the asynchronous writes queued before it")
    func synchronousWriteWaits() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        let texts = await store.run { store in
            store.realm.writeAsync { store.realm.create(LogEntry.self, value: ["order": 0, "text": "async 1"]) }
            store.realm.writeAsync { store.realm.create(LogEntry.self, value: ["order": 1, "text": "async 2"]) }
            try! store.realm.write { store.realm.create(LogEntry.self, value: ["order": 2, "text": "sync"]) }
            return Array(store.realm.objects(LogEntry.self).map(\.text))
        }
        #expect(texts == ["async 1", "async 2", "sync"])
        try await store.drain()
    }

    @Test("a synchronous write while an asyncWrite task waits for its turn: both happen, no deadlock")
    func synchronousWriteWhileTaskWaits() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        for _ in 0..<5 {
            let (counter, log) = try await store.synchronousWriteWhileTaskWaits()
            #expect(log.count == counter)
        }
        #expect(await store.counterValue() == 5)
    }

    @Test("commitAsyncWrite after beginWrite: visible at once, completion later on the Realm's actor")
    func commitAfterBeginWrite() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        let visible = await store.run { store in
            store.realm.beginWrite()
            store.realm.create(LogEntry.self, value: ["order": 0, "text": "x"])
            store.realm.commitAsyncWrite { error in
                // Runs isolated to the store: the Realm is usable here.
                store.record("done \(error == nil) \(store.realm.objects(LogEntry.self).count)")
            }
            return (store.realm.isInWriteTransaction, store.realm.objects(LogEntry.self).count, store.events)
        }
        #expect(visible.0 == false && visible.1 == 1 && visible.2.isEmpty)
        try await store.drain()
        #expect(await store.events == ["done true 1"])
    }

    @Test("grouped commits: completions in commit order, each commit durable when its completion runs")
    func grouped() async throws {
        let configuration = asyncTestFileConfiguration()
        defer { removeFiles(configuration) }
        let store = try await RealmStore(configuration)
        let seen = Mutex<[Int]>([])
        await store.run { store in
            for index in 0..<100 {
                store.realm.beginAsyncWrite {
                    store.realm.create(LogEntry.self, value: ["order": index, "text": "\(index)"])
                    store.realm.commitAsyncWrite(allowGrouping: true) { error in
                        #expect(error == nil)
                        seen.withLock { $0.append(index) }
                    }
                }
            }
        }
        try await store.drain()
        #expect(seen.withLock { $0 } == Array(0..<100))
        let count = try await Task.detached { () throws -> Int in
            let realm = try Realm(configuration: configuration)
            return realm.objects(LogEntry.self).count
        }.value
        #expect(count == 100)
    }

    @Test("writeAsync on a queue-confined Realm: the block and the completion run on the queue")
    func queueConfined() async throws {
        let configuration = asyncTestConfiguration()
        let queue = DispatchQueue(label: "async-write-queue")
        let result: [String] = await withCheckedContinuation { continuation in
            queue.async {
                let realm = try! Realm(configuration: configuration, queue: queue)
                nonisolated(unsafe) var events: [String] = []
                realm.writeAsync({
                    events.append("block \(realm.isInWriteTransaction)")
                    realm.create(LogEntry.self, value: ["order": 0, "text": "q"])
                }, onComplete: { error in
                    events.append("complete \(error == nil) \(realm.objects(LogEntry.self).count)")
                    continuation.resume(returning: events)
                })
            }
        }
        #expect(result == ["block true", "complete true 1"])
    }
}
