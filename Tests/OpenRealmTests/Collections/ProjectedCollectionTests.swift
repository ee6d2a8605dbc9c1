// ProjectedCollectionTests.swift — ProjectedCollection (`projectTo` of a list or a set of
// objects) measured against Realm Swift's documented behaviour: reading, writing through the
// subscript, the description, freezing and thawing, invalidation and notifications.

import Foundation
import Testing

import OpenRealm

final class ProjRoster: Object {
    @Persisted var list: List<ProjCitizen>
    @Persisted var set: MutableSet<ProjCitizen>
}

final class ProjRosterView: Projection<ProjRoster> {
    @Projected(\ProjRoster.list.projectTo.first) var list: ProjectedCollection<String>
    @Projected(\ProjRoster.set.projectTo.first) var set: ProjectedCollection<String>
}

/// Jon, Daenerys and Tyrion, and a roster that holds the three in its list and its set.
private func rosterRealm(_ identifier: String = "roster-\(UUID().uuidString)") throws -> Realm {
    let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier,
                                               objectTypes: [ProjTown.self, ProjCitizen.self, ProjRoster.self]))
    guard realm.isEmpty else { return realm }
    try realm.write {
        let people = ["Jon", "Daenerys", "Tyrion"].map { realm.create(ProjCitizen.self, value: ["first": $0]) }
        realm.create(ProjRoster.self, value: ["list": people, "set": people])
    }
    return realm
}

/// The projected first names of the roster's list or set.
private func names(_ realm: Realm, _ which: String) throws -> ProjectedCollection<String> {
    let view = try #require(realm.objects(ProjRosterView.self).first)
    return which == "list" ? view.list : view.set
}

@Suite("ProjectedCollection as Realm Swift")
struct ProjectedCollectionTests {
    @Test("reads the values in the collection's order", arguments: ["list", "set"])
    func access(_ which: String) throws {
        let collection = try names(try rosterRealm(), which)
        #expect(collection.count == 3)
        #expect(collection[0] == collection.first)
        #expect(collection[2] == collection.last)
        #expect(collection.firstIndex(of: "Nobody") == nil)
        #expect(collection.index(of: "Daenerys") != nil)
        #expect(collection.filter { $0 == "Daenerys" }.count == 1)
        #expect(collection.sorted { $0 > $1 }.first == "Tyrion")
        #expect(collection.sorted { $0 > $1 }.last == "Daenerys")
    }

    @Test("setting a value writes it to the object's property", arguments: ["list", "set"])
    func setValue(_ which: String) throws {
        let realm = try rosterRealm()
        var collection = try names(realm, which)
        try realm.write { collection[0] = "Overwrite" }
        #expect(collection.first == "Overwrite")
        #expect(realm.objects(ProjCitizen.self).filter("first == 'Overwrite'").count == 1)
    }

    @Test("description lists the values as Realm")
    func description() throws {
        let collection = try names(try rosterRealm(), "list")
        #expect(collection.description == "ProjectedCollection<String> {\n\t[0] Jon\n\t[1] Daenerys\n\t[2] Tyrion\n}")
    }

    @Test("frozen and thawed copies", arguments: ["list", "set"])
    func freezeAndThaw(_ which: String) throws {
        let realm = try rosterRealm()
        let collection = try names(realm, which)
        #expect(collection.realm?.configuration.inMemoryIdentifier == realm.configuration.inMemoryIdentifier)
        #expect(!collection.isFrozen)
        let frozen = collection.freeze()
        #expect(frozen.isFrozen)
        #expect(frozen.filter { $0 == "Daenerys" }.count == 1)
        nonisolated(unsafe) let shared = frozen
        #expect(try onOtherThread { shared.contains("Tyrion") })
        let live = try #require(frozen.thaw())
        #expect(!live.isFrozen)
        try realm.write { realm.delete(realm.objects(ProjRoster.self)) }
        #expect(live.isInvalidated)
        #expect(!frozen.isEmpty)
        try realm.write { realm.delete(realm.objects(ProjCitizen.self)) }
        #expect(!frozen.isInvalidated)
    }

    @Test("a frozen projection's collections are frozen")
    func frozenProjection() throws {
        let realm = try rosterRealm()
        let view = try #require(realm.objects(ProjRosterView.self).first)
        #expect(view.freeze().list.isFrozen)
        #expect(!view.list.isFrozen)
    }

    @Test("invalidating the Realm invalidates the collection")
    func invalidate() throws {
        let realm = try rosterRealm()
        let collection = try names(realm, "list")
        #expect(!collection.isInvalidated)
        realm.invalidate()
        #expect(collection.realm == nil || collection.isInvalidated)
    }

    @Test("observe delivers the initial collection, then changes; a token can be skipped", arguments: ["list", "set"])
    func observe(_ which: String) throws {
        let realm = try rosterRealm()
        let collection = try names(realm, which)
        let changes = Changes<String>()
        let first = collection.observe(on: nil) { (change: RealmCollectionChange<ProjectedCollection<String>>) in
            switch change {
            case .initial(let values): changes.append("first initial \(values.count)")
            case .update(let values, let deletions, _, _): changes.append("first update \(values.count) \(deletions)")
            case .error: changes.append("error")
            }
        }
        defer { first.invalidate() }
        realm.refresh()
        #expect(changes.take() == ["first initial 3"])
        let second = collection.observe { change in
            if case .update(let values, let deletions, _, _) = change { changes.append("second update \(values.count) \(deletions)") }
        }
        defer { second.invalidate() }
        realm.refresh()
        realm.beginWrite()
        realm.delete(realm.objects(ProjCitizen.self))
        try realm.commitWrite(withoutNotifying: [first])
        realm.refresh()
        #expect(changes.take() == ["second update 0 [0, 1, 2]"])
    }

    @Test("observe(keyPaths:) ignores changes outside its key paths", arguments: ["list", "set"])
    func observeKeyPaths(_ which: String) throws {
        let identifier = "roster-\(UUID().uuidString)"
        let realm = try rosterRealm(identifier)
        let collection = try names(realm, which)
        let changes = Changes<String>()
        let token = collection.observe(keyPaths: ["first"]) { change in
            switch change {
            case .initial(let values): changes.append("initial \(values.count)")
            case .update(_, _, _, let modifications): changes.append("update \(modifications)")
            case .error: changes.append("error")
            }
        }
        defer { token.invalidate() }
        realm.refresh()
        try onOtherThread {
            let realm = try rosterRealm(identifier)
            try realm.write {
                realm.create(ProjCitizen.self, value: ["first": "Name"])
                realm.objects(ProjCitizen.self).filter("first == 'Jon'").first?.last = "Snow"
            }
        }
        realm.refresh()
        #expect(changes.take() == ["initial 3"])
        try realm.write { realm.objects(ProjCitizen.self).filter("first == 'Jon'").first?.first = "Jonny" }
        realm.refresh()
        #expect(changes.take().count == 1)
    }
}

@Suite("ProjectedCollection as Realm Swift: programmer errors")
struct ProjectedCollectionErrorTests {
    @Test("freezing a projected collection on another thread")
    func freezeWrongThread() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let collection = try names(try rosterRealm(), "list")
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) let shared = collection
            Thread {
                _ = shared.freeze()
                done.signal()
            }.start()
            done.wait()
        }
        expectStop("Realm accessed from incorrect thread", result)
    }

    @Test("observing a frozen projected collection")
    func observeFrozen() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let frozen = try names(try rosterRealm(), "list").freeze()
            _ = frozen.observe { _ in }
        }
        expectStop("Frozen Realms do not change and do not have change notifications.", result)
    }
}
