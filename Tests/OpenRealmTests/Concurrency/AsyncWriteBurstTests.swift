// AsyncWriteBurstTests.swift — a burst of asynchronous writes from one actor: while the write
// lock is free the queued blocks run on the Realm's actor without the file's lock thread, in
// order, and grouped commits share syncs; while another thread holds the lock they wait for it
// through the lock thread, still in order.

import Dispatch
import Foundation
@testable import OpenRealm
import Synchronization
import Testing

extension RealmStore {
    /// Queues `count` beginAsyncWrite blocks, each creating LogEntry `index` and committing
    /// with `commitAsyncWrite(allowGrouping: grouped)`; `completed` gets the index of each
    /// completion and whether the Realm had moved past the commit's version when it ran.
    func queueBurst(_ count: Int, grouped: Bool, _ completed: LockedValue<[Int]>) {
        for index in 0..<count {
            realm.beginAsyncWrite {
                self.realm.create(LogEntry.self, value: ["order": index, "text": "\(index)"])
                self.realm.commitAsyncWrite(allowGrouping: grouped) { error in
                    #expect(error == nil)
                    completed.withLock { $0.append(index) }
                }
            }
        }
    }

    /// The file's write-lock thread's counters: transactions it handed out, syncs it made.
    func lockCounters() -> (grants: Int, syncs: Int) {
        let lock = AsyncWriteLock.of(realm.core.engine)
        return (lock.grantsHandedOut, lock.syncsMade)
    }
}

@Suite("Asynchronous writes in bursts: blocks back to back on the Realm's context, shared syncs")
struct AsyncWriteBurstTests {
    @Test("a burst of grouped writes on a free lock: no lock-thread hand-off, in order, all durable")
    func burstOnFreeLock() async throws {
        let configuration = asyncTestFileConfiguration()
        defer { removeFiles(configuration) }
        let store = try await RealmStore(configuration)
        let completed = LockedValue<[Int]>([])
        let count = 400
        await store.queueBurst(count, grouped: true, completed)
        try await store.drain()
        #expect(completed.withLock { $0 } == Array(0..<count))
        #expect(await store.run { $0.realm.objects(LogEntry.self).map(\.order) } == Array(0..<count))
        let (grants, syncs) = await store.lockCounters()
        // Nobody else held the lock: every transaction was begun on the actor.
        #expect(grants == 0)
        #expect(syncs >= 1 && syncs <= count)
        // Durable: another handle of the file sees every commit.
        let persisted = try await Task.detached { () throws -> Int in
            try Realm(configuration: configuration).objects(LogEntry.self).count
        }.value
        #expect(persisted == count)
    }

    @Test("one sync makes a whole group durable: its completions run together, then the blocks waiting for room go on")
    func oneSyncPerGroup() async throws {
        let configuration = asyncTestFileConfiguration()
        defer { removeFiles(configuration) }
        let store = try await RealmStore(configuration)
        let lock = await store.run { AsyncWriteLock.of($0.realm.core.engine) }
        // The syncer is held up: grouped commits wait for their completions.
        let gate = DispatchSemaphore(value: 0)
        lock.syncQueue.async { gate.wait() }
        let count = 100
        let limit = AsyncWriteState.maxPendingCompletions
        let completed = LockedValue<[Int]>([])
        let syncsSeen = LockedValue<[Int]>([])
        await store.run { store in
            for index in 0..<count {
                store.realm.beginAsyncWrite {
                    store.realm.create(LogEntry.self, value: ["order": index, "text": "\(index)"])
                    store.realm.commitAsyncWrite(allowGrouping: true) { error in
                        #expect(error == nil)
                        completed.withLock { $0.append(index) }
                        syncsSeen.withLock { $0.append(lock.syncsMade) }
                    }
                }
            }
        }
        // `limit` blocks run, then the rest wait for room.
        #expect(await eventually { await store.run { $0.realm.objects(LogEntry.self).count } == limit })
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(await store.run { $0.realm.objects(LogEntry.self).count } == limit)
        #expect(completed.withLock { $0 }.isEmpty)
        #expect(lock.syncsMade == 0)
        gate.signal()
        try await store.drain()
        #expect(completed.withLock { $0 } == Array(0..<count))
        #expect(await store.run { $0.realm.objects(LogEntry.self).map(\.order) } == Array(0..<count))
        // The first sync covered the whole group: each of its completions ran before any other
        // sync (the next blocks only ran once they had).
        #expect(Array(syncsSeen.withLock { $0 }.prefix(limit)) == Array(repeating: 1, count: limit))
        #expect(lock.grantsHandedOut == 0)
    }

    @Test("while another thread holds the lock, queued blocks wait through the lock thread and keep their order")
    func burstOnBusyLock() async throws {
        let configuration = asyncTestFileConfiguration()
        defer { removeFiles(configuration) }
        let store = try await RealmStore(configuration)
        let holder = LockHolder(configuration)
        holder.hold()
        let completed = LockedValue<[Int]>([])
        await store.queueBurst(50, grouped: true, completed)
        // The blocks cannot run: the lock is held (their job found it busy).
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(await store.run { $0.realm.objects(LogEntry.self).count } == 0)
        #expect(await store.run { $0.realm.isPerformingAsynchronousWriteOperations })
        holder.release()
        try await store.drain()
        #expect(completed.withLock { $0 } == Array(0..<50))
        #expect(await store.run { $0.realm.objects(LogEntry.self).map(\.order) } == Array(0..<50))
        // The first transaction came from the lock's thread (it waited for the holder).
        #expect(await store.lockCounters().grants >= 1)
    }

    @Test("writeAsync bursts (durable commits, no grouping) run in order, each completion after its commit")
    func writeAsyncBurst() async throws {
        let configuration = asyncTestFileConfiguration()
        defer { removeFiles(configuration) }
        let store = try await RealmStore(configuration)
        let events = Mutex<[String]>([])
        await store.run { store in
            for index in 0..<100 {
                store.realm.writeAsync({
                    events.withLock { $0.append("b\(index)") }
                    store.realm.create(LogEntry.self, value: ["order": index, "text": "\(index)"])
                }, onComplete: { error in
                    #expect(error == nil)
                    events.withLock { $0.append("c\(index)") }
                })
            }
        }
        try await store.drain()
        let log = events.withLock { $0 }
        #expect(log.filter { $0.hasPrefix("b") } == (0..<100).map { "b\($0)" })
        #expect(log.filter { $0.hasPrefix("c") } == (0..<100).map { "c\($0)" })
        for index in 0..<100 { #expect(log.firstIndex(of: "b\(index)")! < log.firstIndex(of: "c\(index)")!) }
        #expect(await store.lockCounters().grants == 0)
    }
}
