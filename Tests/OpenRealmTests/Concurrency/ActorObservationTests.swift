// ActorObservationTests.swift — the actor forms of `observe` and the AsyncSequences of changes
// (`changes`), which end when the iterating task is cancelled.

import Foundation
import OpenRealm
import Testing

/// An actor that receives notifications.
actor Watcher {
    var counts: [Int] = []
    var changes: [String] = []

    func recordCount(_ count: Int) { counts.append(count) }
    func recordChange(_ change: String) { changes.append(change) }
}

extension RealmStore {
    /// Observes the counters on `watcher`, recording their count at each delivery.
    func watchCounters(on watcher: Watcher) async -> NotificationToken {
        await realm.objects(AsyncCounter.self).observe(on: watcher) { watcher, change in
            switch change {
            case .initial(let counters): watcher.recordCount(counters.count)
            case .update(let counters, _, _, _): watcher.recordCount(counters.count)
            case .error: break
            }
        }
    }

    /// Observes counter 0 on `watcher`, recording each change.
    func watchCounter(on watcher: Watcher) async -> NotificationToken {
        let counter = realm.object(ofType: AsyncCounter.self, forPrimaryKey: 0)!
        return await counter.observe(keyPaths: ["value"], on: watcher) { (watcher, change: ObjectChange<AsyncCounter>) in
            switch change {
            case .change(let object, let properties):
                watcher.recordChange("\(properties.map(\.name)) \(object.value)")
            case .deleted: watcher.recordChange("deleted")
            case .error: break
            }
        }
    }

    /// Iterates the counters' changes until `limit` deliveries; their counts.
    func collectCounts(_ limit: Int) async -> [Int] {
        var counts: [Int] = []
        for await change in realm.objects(AsyncCounter.self).changes {
            switch change {
            case .initial(let counters), .update(let counters, _, _, _): counts.append(counters.count)
            case .error: break
            }
            if counts.count == limit { break }
        }
        return counts
    }

    /// Iterates the counters' changes until the task is cancelled; how many it got.
    func iterateUntilCancelled(_ started: @Sendable () -> Void) async -> Int {
        var deliveries = 0
        started()
        for await _ in realm.objects(AsyncCounter.self).changes { deliveries += 1 }
        return deliveries
    }

    /// Iterates counter 0's changes until `limit` of them; the values seen.
    func collectCounterValues(_ limit: Int) async -> [String] {
        let counter = realm.object(ofType: AsyncCounter.self, forPrimaryKey: 0)!
        var seen: [String] = []
        for await change in counter.changes {
            switch change {
            case .change(let object, _): seen.append("\(object.value)")
            case .deleted: seen.append("deleted")
            case .error: break
            }
            if seen.count == limit { break }
        }
        return seen
    }

    func addCounter(_ id: Int) async throws {
        try await realm.asyncWrite { realm.create(AsyncCounter.self, value: ["id": id]) }
    }

    func deleteCounter(_ id: Int) async throws {
        try await realm.asyncWrite { realm.delete(realm.object(ofType: AsyncCounter.self, forPrimaryKey: id)!) }
    }
}

@Suite("Notifications on actors and AsyncSequences of changes")
struct ActorObservationTests {
    @Test("a collection observed on another actor: .initial, then updates, isolated to it")
    func collectionOnActor() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        let watcher = Watcher()
        let token = await store.watchCounters(on: watcher)
        #expect(await eventually { await watcher.counts == [0] })
        try await store.addCounter(1)
        try await store.addCounter(2)
        #expect(await eventually { await watcher.counts.last == 2 })
        // A token invalidated from another actor (here: the test's task) stops the deliveries.
        token.invalidate()
        let before = await watcher.counts
        try await store.addCounter(3)
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(await watcher.counts == before)
    }

    @Test("an object observed on another actor: changes of its key paths, then .deleted")
    func objectOnActor() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        try await store.increment()
        let watcher = Watcher()
        let token = await store.watchCounter(on: watcher)
        try await store.increment()
        #expect(await eventually { await watcher.changes == ["[\"value\"] 2"] })
        try await store.deleteCounter(0)
        #expect(await eventually { await watcher.changes == ["[\"value\"] 2", "deleted"] })
        withExtendedLifetime(token) {}
    }

    @Test("results.changes yields .initial then an update per commit")
    func resultsChanges() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        let collecting = Task { await store.collectCounts(3) }
        // The sequence registers when the task reads it: wait for .initial first by writing
        // only once the iteration has begun (the writes below are delivered as updates either
        // way; .initial may include them).
        try await Task.sleep(nanoseconds: 20_000_000)
        try await store.addCounter(1)
        try await Task.sleep(nanoseconds: 20_000_000)
        try await store.addCounter(2)
        let counts = await collecting.value
        #expect(counts == [0, 1, 2])
    }

    @Test("object.changes yields each change, then .deleted")
    func objectChanges() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        try await store.increment()
        let collecting = Task { await store.collectCounterValues(3) }
        try await Task.sleep(nanoseconds: 20_000_000)
        try await store.increment()
        try await Task.sleep(nanoseconds: 20_000_000)
        try await store.increment()
        try await Task.sleep(nanoseconds: 20_000_000)
        try await store.deleteCounter(0)
        #expect(await collecting.value == ["2", "3", "deleted"])
    }

    @Test("an AsyncSequence of changes ends when its task is cancelled")
    func endsOnCancellation() async throws {
        let store = try await RealmStore(asyncTestConfiguration())
        let started = AsyncStream.makeStream(of: Void.self)
        let iterating = Task {
            await store.iterateUntilCancelled { started.continuation.yield() }
        }
        for await _ in started.stream { break }
        try await store.addCounter(1)
        try await Task.sleep(nanoseconds: 20_000_000)
        iterating.cancel()
        let deliveries = await iterating.value
        #expect(deliveries >= 1)
        // The store goes on; nothing waits for the ended sequence.
        try await store.addCounter(2)
        #expect(await store.run { $0.realm.objects(AsyncCounter.self).count } == 2)
    }
}
