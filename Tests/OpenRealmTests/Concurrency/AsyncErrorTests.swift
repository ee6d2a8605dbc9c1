// AsyncErrorTests.swift — misuse of actor-isolated Realms and of the async members stops the
// program with Realm's message (exit tests: each body runs in a child process).

import Foundation
import OpenRealm
import Testing

/// A Realm taken out of its actor, as a program that breaks the isolation rules would.
struct SmuggledRealm: @unchecked Sendable {
    let realm: Realm
}

extension RealmStore {
    func smuggle() -> SmuggledRealm { SmuggledRealm(realm: realm) }
}

/// An actor that uses Realms it does not own.
actor Intruder {
    func count(_ smuggled: SmuggledRealm) -> Int {
        smuggled.realm.objects(AsyncCounter.self).count
    }

    /// asyncWrite on a Realm confined to the current thread (opened without an actor).
    func asyncWriteOnConfinedRealm(_ identifier: String) async throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier), queue: nil)
        try await realm.asyncWrite {}
    }

    func asyncRefreshOnConfinedRealm(_ identifier: String) async throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier), queue: nil)
        await realm.asyncRefresh()
    }
}

@Suite("Actor-isolated Realms: misuse stops with Realm's message")
struct AsyncErrorTests {
    @Test("an actor's Realm used outside the actor")
    func usedOutsideActor() async {
        let name = "openrealm-exit-usedOutsideActor"
        removeInMemoryRealm("async-" + name)
        defer { removeInMemoryRealm("async-" + name) }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try await RealmStore(asyncTestConfiguration("openrealm-exit-usedOutsideActor"))
            let smuggled = await store.smuggle()
            _ = smuggled.realm.objects(AsyncCounter.self).count
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }

    @Test("an actor's Realm used from another actor")
    func usedFromAnotherActor() async {
        let name = "openrealm-exit-usedFromAnotherActor"
        removeInMemoryRealm("async-" + name)
        defer { removeInMemoryRealm("async-" + name) }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try await RealmStore(asyncTestConfiguration("openrealm-exit-usedFromAnotherActor"))
            let smuggled = await store.smuggle()
            _ = await Intruder().count(smuggled)
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }

    @Test("writeAsync on an actor's Realm from outside the actor")
    func writeAsyncOutsideActor() async {
        let name = "openrealm-exit-writeAsyncOutsideActor"
        removeInMemoryRealm("async-" + name)
        defer { removeInMemoryRealm("async-" + name) }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try await RealmStore(asyncTestConfiguration("openrealm-exit-writeAsyncOutsideActor"))
            let smuggled = await store.smuggle()
            smuggled.realm.writeAsync {}
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }

    @Test("asyncWrite on a thread-confined Realm")
    func asyncWriteOnConfinedRealm() async {
        removeInMemoryRealm("openrealm-exit-asyncWriteOnConfinedRealm")
        defer { removeInMemoryRealm("openrealm-exit-asyncWriteOnConfinedRealm") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await Intruder().asyncWriteOnConfinedRealm("openrealm-exit-asyncWriteOnConfinedRealm")
        }
        expectStop("asyncWrite() can only be called on main thread or actor-isolated Realms", result)
    }

    @Test("asyncRefresh on a thread-confined Realm")
    func asyncRefreshOnConfinedRealm() async {
        removeInMemoryRealm("openrealm-exit-asyncRefreshOnConfinedRealm")
        defer { removeInMemoryRealm("openrealm-exit-asyncRefreshOnConfinedRealm") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await Intruder().asyncRefreshOnConfinedRealm("openrealm-exit-asyncRefreshOnConfinedRealm")
        }
        expectStop("asyncRefresh() can only be called on main thread or actor-isolated Realms", result)
    }

    @Test("commitAsyncWrite outside a write transaction")
    func commitAsyncWriteOutsideWrite() async {
        let name = "openrealm-exit-commitAsyncWriteOutsideWrite"
        removeInMemoryRealm("async-" + name)
        defer { removeInMemoryRealm("async-" + name) }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try await RealmStore(asyncTestConfiguration("openrealm-exit-commitAsyncWriteOutsideWrite"))
            await store.run { store in _ = store.realm.commitAsyncWrite() }
        }
        expectStop("Can't commit a non-existing write transaction", result)
    }
}
