// RealmObserverTests.swift — the internal interface collection and object observation build on:
// RealmCore.addObserver, RealmObserver.realmDidChange (old transaction, change set), perform,
// withoutNotifying, and where and when deliveries happen.

import CEngine
import Foundation
import Testing

@testable import OpenRealm

/// Records each delivery as "+inserted -deleted ~modified" of the Dog table, checking that the
/// old transaction reads an older version than the instance's current one.
final class DogObserver: RealmObserver {
    var log: [String] = []
    var onChange: ((RealmCore) -> Void)?

    func realmDidChange(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer) {
        let table = core.tableInfo(for: Dog.self)!.tableKey
        var deleted: UnsafePointer<ce_object_key>?
        var inserted: UnsafePointer<ce_object_key>?
        var modified: UnsafePointer<ce_object_key>?
        var deletedCount = 0, insertedCount = 0, modifiedCount = 0
        guard ce_changes_table(changes, table, &deleted, &deletedCount, &inserted, &insertedCount, &modified, &modifiedCount) else {
            log.append("error: \(String(cString: ce_last_error_message()))")
            return
        }
        let newer = ce_txn_version(core.currentTxn()) > ce_txn_version(old)
        log.append("\(newer ? "" : "not newer ")+\(insertedCount) -\(deletedCount) ~\(modifiedCount)")
        onChange?(core)
    }
}

@Suite("RealmObserver")
struct RealmObserverTests {
    @Test("a local commit reaches observers after commitWrite, on the next refresh or scheduled run")
    func localCommit() throws {
        let realm = try memoryRealm([Dog.self])
        let observer = DogObserver()
        let token = realm.core.addObserver(observer)
        var realmLog: [String] = []
        let realmToken = realm.observe { _, _ in realmLog.append("didChange \(observer.log.count)") }
        try realm.write { realm.add(Dog()) }
        // Realm.observe at once; the observer later (as Realm schedules collection notifications).
        #expect(realmLog == ["didChange 0"])
        #expect(observer.log.isEmpty)
        _ = realm.refresh()
        #expect(observer.log == ["+1 -0 ~0"])
        let dog = realm.objects(Dog.self).first!
        try realm.write { dog.age = 3 }
        try realm.write { realm.delete(dog) }
        _ = realm.refresh()
        // The second write's beginWrite delivered the first write's commit.
        #expect(observer.log == ["+1 -0 ~0", "+0 -0 ~1", "+0 -1 ~0"])
        token.invalidate()
        realmToken.invalidate()
    }

    @Test("beginWrite delivers a pending local commit before the write")
    func beginWriteDeliversLocalCommit() throws {
        let realm = try memoryRealm([Dog.self])
        let observer = DogObserver()
        var inWrite: [Bool] = []
        observer.onChange = { core in inWrite.append(core.isInWriteTransaction) }
        let token = realm.core.addObserver(observer)
        try realm.write { realm.add(Dog()) }
        try realm.write { realm.add(Dog()) }
        #expect(observer.log == ["+1 -0 ~0"])
        #expect(inWrite == [false])
        _ = realm.refresh()
        #expect(observer.log == ["+1 -0 ~0", "+1 -0 ~0"])
        token.invalidate()
    }

    @Test("another thread's commit reaches observers at refresh()")
    func otherThreadCommit() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "observer-\(UUID())", objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        _ = realm.objects(Dog.self).count
        let observer = DogObserver()
        let token = realm.core.addObserver(observer)
        try addDogOnOtherThread(configuration)
        #expect(realm.refresh())
        #expect(observer.log == ["+1 -0 ~0"])
        token.invalidate()
    }

    @Test("withoutNotifying skips an observer for that commit only")
    func withoutNotifying() throws {
        let realm = try memoryRealm([Dog.self])
        let skipped = DogObserver()
        let other = DogObserver()
        let skippedToken = realm.core.addObserver(skipped)
        let otherToken = realm.core.addObserver(other)
        try realm.write(withoutNotifying: [skippedToken]) { realm.add(Dog()) }
        _ = realm.refresh()
        #expect(skipped.log.isEmpty)
        #expect(other.log == ["+1 -0 ~0"])
        try realm.write { realm.add(Dog()) }
        _ = realm.refresh()
        #expect(skipped.log == ["+1 -0 ~0"])
        #expect(other.log == ["+1 -0 ~0", "+1 -0 ~0"])
        skippedToken.invalidate()
        otherToken.invalidate()
    }

    @Test("perform runs before the next delivery")
    func performFirst() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "observer-\(UUID())", objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        let observer = DogObserver()
        let token = realm.core.addObserver(observer)
        realm.core.perform { observer.log.append("initial") }
        try addDogOnOtherThread(configuration)
        #expect(realm.refresh())
        #expect(observer.log == ["initial", "+1 -0 ~0"])
        token.invalidate()
    }

    @Test("an observer that writes: the others still get the same change set, then the new commit")
    func observerWrites() throws {
        let realm = try memoryRealm([Dog.self])
        let writer = DogObserver()
        let other = DogObserver()
        writer.onChange = { core in
            let realm = Realm(core)
            if realm.objects(Dog.self).count == 1 { try! realm.write { realm.add(Dog()) } }
        }
        let writerToken = realm.core.addObserver(writer)
        let otherToken = realm.core.addObserver(other)
        try realm.write { realm.add(Dog()) }
        _ = realm.refresh()
        #expect(writer.log == ["+1 -0 ~0"])
        #expect(other.log == ["+1 -0 ~0"])
        _ = realm.refresh()
        #expect(writer.log == ["+1 -0 ~0", "+1 -0 ~0"])
        #expect(other.log == ["+1 -0 ~0", "+1 -0 ~0"])
        writerToken.invalidate()
        otherToken.invalidate()
    }

    @Test("after invalidate(), the next read delivers what changed since the observers' version")
    func invalidateKeepsVersion() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "observer-\(UUID())", objectTypes: [Dog.self])
        let realm = try Realm(configuration: configuration)
        let observer = DogObserver()
        let token = realm.core.addObserver(observer)
        realm.invalidate()
        try addDogOnOtherThread(configuration)
        _ = realm.refresh()
        #expect(observer.log == ["+1 -0 ~0"])
        token.invalidate()
    }

    @Test("an invalidated token's observer is not called")
    func invalidatedToken() throws {
        let realm = try memoryRealm([Dog.self])
        let observer = DogObserver()
        let token = realm.core.addObserver(observer)
        token.invalidate()
        try realm.write { realm.add(Dog()) }
        _ = realm.refresh()
        #expect(observer.log.isEmpty)
    }

    @Test("a queue-confined Realm's observer hears of another thread's commit on the queue")
    func queueObserver() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "observer-\(UUID())", objectTypes: [Dog.self])
        let queue = DispatchQueue(label: "observer-queue")
        final class State: @unchecked Sendable {
            var realm: Realm?
            var token: NotificationToken?
            let observer = DogObserver()
            let delivered = DispatchSemaphore(value: 0)
        }
        let state = State()
        try queue.sync {
            state.realm = try Realm(configuration: configuration, queue: queue)
            state.observer.onChange = { _ in
                dispatchPrecondition(condition: .onQueue(queue))
                state.delivered.signal()
            }
            state.token = state.realm!.core.addObserver(state.observer)
        }
        try addDogOnOtherThread(configuration)
        #expect(state.delivered.wait(timeout: .now() + 10) == .success)
        queue.sync {
            #expect(state.observer.log == ["+1 -0 ~0"])
            state.token!.invalidate()
            state.realm = nil
        }
    }

    @Test("registering an observer inside a write transaction stops with Realm's message")
    func registerInWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "exit-observer-in-write", objectTypes: [Dog.self]))
            realm.beginWrite()
            _ = realm.core.addObserver(DogObserver())
        }
        expectStop("Cannot register notification blocks from within write transactions.", result)
    }
}
