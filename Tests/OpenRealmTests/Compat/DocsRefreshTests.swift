// DocsRefreshTests.swift — Realm Swift's `autorefresh` (API reference): "If set to false, you
// must manually call refresh() on the Realm to update it to get the latest data." A Realm whose
// autorefresh is off stays on the version its last write transaction began on (cancelled) or
// made (committed) until refresh(), whatever other threads commit meanwhile.

import Foundation
import Testing

import OpenRealm

/// Commits a new pet named `name` from another thread.
private func addPet(_ configuration: Realm.Configuration, _ name: String) throws {
    try onOtherThread {
        let other = try Realm(configuration: configuration)
        try other.write { other.create(DocsPet.self, value: ["name": name]) }
    }
}

@Suite("Realm's documentation: a Realm without autorefresh")
struct DocsRefreshTests {
    @Test("without autorefresh, other threads' commits show at refresh() or a write only")
    func noAutorefresh() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "docs-\(UUID().uuidString)", objectTypes: docsTypes)
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        let pets = realm.objects(DocsPet.self)
        #expect(pets.count == 0)
        try addPet(configuration, "A")
        #expect(pets.count == 0)
        realm.beginWrite()
        #expect(pets.count == 1)
        realm.cancelWrite()
        // Nothing read between the end of the write and another thread's commit.
        try addPet(configuration, "B")
        #expect(pets.count == 1)
        #expect(realm.objects(DocsPet.self).count == 1)
        #expect(realm.refresh())
        #expect(pets.count == 2)
        try realm.write { realm.create(DocsPet.self, value: ["name": "Own"]) }
        try addPet(configuration, "C")
        #expect(pets.count == 3)
        #expect(realm.objects(DocsPet.self).filter("name == 'C'").isEmpty)
        #expect(realm.refresh())
        #expect(pets.count == 4)
    }

    // The same with autorefresh on, on a thread without a run loop: the new versions come at
    // refresh() or a write (README "Differences": notifications on threads without a run loop).
    @Test("with autorefresh, a thread without a run loop moves at refresh() or a write")
    func autorefreshWithoutRunLoop() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "docs-\(UUID().uuidString)", objectTypes: docsTypes)
        let realm = try Realm(configuration: configuration)
        let pets = realm.objects(DocsPet.self)
        try realm.write { realm.create(DocsPet.self, value: ["name": "Own"]) }
        try addPet(configuration, "B")
        #expect(pets.count == 1)
        realm.beginWrite()
        realm.cancelWrite()
        try addPet(configuration, "C")
        #expect(pets.count == 2)
        realm.refresh()
        #expect(pets.count == 3)
    }
}
