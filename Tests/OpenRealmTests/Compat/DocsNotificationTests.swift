// DocsNotificationTests.swift — what Realm Swift's guide ("React to Changes") and API reference
// (Realm.observe, RealmCollection.observe, Object.observe, PropertyChange,
// write(withoutNotifying:)) say of notifications. The tests' threads run no run loop, so a Realm
// delivers at its next refresh() or write (README "Differences").

import Foundation
import Testing

import OpenRealm

/// What an object observer was told, one entry per call.
private enum ObjectSeen: Equatable {
    case change([String])
    case deleted
    case error
}

private func observeObject<T: Object>(_ object: T, keyPaths: [String]? = nil) -> (NotificationToken, Changes<ObjectSeen>) {
    let changes = Changes<ObjectSeen>()
    let token = object.observe(keyPaths: keyPaths) { (change: ObjectChange<T>) in
        switch change {
        case .change(_, let properties): changes.append(.change(properties.map(\.name)))
        case .deleted: changes.append(.deleted)
        case .error: changes.append(.error)
        }
    }
    return (token, changes)
}

@Suite("Realm's documentation: notifications")
struct DocsNotificationTests {
    // Realm.observe: the block is called each time a write transaction of the Realm commits;
    // it is told `.didChange`, nothing of what changed.
    @Test("a Realm observer hears .didChange for a local commit, not for an empty refresh")
    func realmObserverHearsCommits() throws {
        let realm = try docsRealm()
        let heard = Changes<Realm.Notification>()
        let token = realm.observe { notification, _ in heard.append(notification) }
        defer { token.invalidate() }
        try realm.write { realm.create(DocsPet.self, value: ["name": "Rex"]) }
        realm.refresh()
        #expect(heard.take() == [.didChange])
        realm.refresh()
        #expect(heard.take().isEmpty)
    }

    // "Realm notifies your handler: after first retrieving the collection; whenever a write
    // transaction adds, changes, or removes objects in the collection." The indices "follow
    // UITableView's batching conventions": deletions and modifications are indices in the old
    // collection (Realm Swift's `modifications` are realm-core's old-version modifications),
    // insertions in the new one.
    @Test("collection change sets: deletions and modifications by old index, insertions by new")
    func collectionIndices() throws {
        let realm = try docsRealm()
        let pets = try realm.write { (0..<5).map { realm.create(DocsPet.self, value: ["name": "p\($0)", "age": $0]) } }
        let sorted = realm.objects(DocsPet.self).sorted(byKeyPath: "age")
        let (token, changes) = record(sorted)
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(5)])
        try realm.write {
            realm.delete(pets[1])
            realm.delete(pets[3])
            pets[4].name = "renamed"
            realm.create(DocsPet.self, value: ["name": "new", "age": 2])
        }
        realm.refresh()
        // Old: 0 1 2 3 4 → new: 0 2 new 4 (ages 0, 2, 2, 4; the new one sorts after age 2);
        // pet 4 was at old index 4 (new index 3).
        #expect(changes.take() == [.update(4, deletions: [1, 3], insertions: [2], modifications: [4])])
    }

    // "Register an Object Change Listener": the handler is told which properties changed, or
    // that the object was deleted (after which no more notifications come).
    @Test("an object observer is told the changed properties, then .deleted")
    func objectChangeThenDeleted() throws {
        let realm = try docsRealm()
        let pet = try realm.write { realm.create(DocsPet.self, value: ["name": "Rex", "age": 1]) }
        let (token, changes) = observeObject(pet)
        defer { token.invalidate() }
        try realm.write {
            pet.age = 2
            pet.toy = "ball"
        }
        realm.refresh()
        #expect(changes.take() == [.change(["age", "toy"])])
        try realm.write { realm.delete(pet) }
        realm.refresh()
        #expect(changes.take() == [.deleted])
        try realm.write { realm.create(DocsPet.self, value: ["name": "Other"]) }
        realm.refresh()
        #expect(changes.take().isEmpty)
    }

    // PropertyChange.oldValue: "not supplied if the change happened on the same thread as the
    // notification and for List properties"; newValue is not supplied for List properties.
    @Test("PropertyChange: old values from other threads only; none for a List property")
    func propertyChangeValues() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "docs-\(UUID().uuidString)", objectTypes: docsTypes)
        let realm = try Realm(configuration: configuration)
        let keeper = try realm.write { realm.create(DocsKeeper.self, value: ["id": 1, "name": "Ann", "rank": 1]) }
        let seen = Changes<[String: [String]]>()
        let token = keeper.observe { (change: ObjectChange<DocsKeeper>) in
            guard case .change(_, let properties) = change else { return }
            var byName: [String: [String]] = [:]
            for property in properties {
                byName[property.name] = [property.oldValue.map { "\($0)" } ?? "nil", property.newValue.map { "\($0)" } ?? "nil"]
            }
            seen.append(byName)
        }
        defer { token.invalidate() }
        // On this thread: no old value.
        try realm.write { keeper.rank = 2 }
        realm.refresh()
        #expect(seen.take() == [["rank": ["nil", "2"]]])
        // On another thread: the old value is supplied.
        try onOtherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.object(ofType: DocsKeeper.self, forPrimaryKey: 1)!.rank = 3 }
        }
        realm.refresh()
        #expect(seen.take() == [["rank": ["2", "3"]]])
        // A List property: neither value, from either thread.
        try onOtherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.object(ofType: DocsKeeper.self, forPrimaryKey: 1)!.pets.append(DocsPet()) }
        }
        realm.refresh()
        #expect(seen.take() == [["pets": ["nil", "nil"]]])
    }

    // "Register a Key Path Change Listener": only changes to the given key paths notify.
    @Test("an object observer with key paths ignores the other properties")
    func objectKeyPaths() throws {
        let realm = try docsRealm()
        let pet = try realm.write { realm.create(DocsPet.self, value: ["name": "Rex", "age": 1]) }
        let (token, changes) = observeObject(pet, keyPaths: ["toy"])
        defer { token.invalidate() }
        try realm.write { pet.age = 5 }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { pet.toy = "rope" }
        realm.refresh()
        #expect(changes.take() == [.change(["toy"])])
    }

    // Key paths through a link: a collection observer of "favourite.name" hears a change of
    // the linked pet's name, not of its age.
    @Test("a collection observer with a key path through a link")
    func collectionKeyPathThroughLink() throws {
        let realm = try docsRealm()
        let keeper = try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "name": "Ann", "favourite": ["name": "Rex", "age": 1]])
        }
        let (token, changes) = record(realm.objects(DocsKeeper.self), keyPaths: ["favourite.name"])
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(1)])
        try realm.write { keeper.favourite!.age = 9 }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { keeper.rank = 9 }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { keeper.favourite!.name = "Max" }
        realm.refresh()
        #expect(changes.take() == [.update(1, deletions: [], insertions: [], modifications: [0])])
    }

    // "Write Silently": write(withoutNotifying:) skips the given tokens' next notification of
    // that write; the other observers hear it.
    @Test("write(withoutNotifying:) silences only the given tokens")
    func writeSilently() throws {
        let realm = try docsRealm()
        let (silenced, silencedChanges) = record(realm.objects(DocsPet.self))
        let (heard, heardChanges) = record(realm.objects(DocsPet.self))
        defer {
            silenced.invalidate()
            heard.invalidate()
        }
        realm.refresh()
        #expect(silencedChanges.take() == [.initial(0)])
        #expect(heardChanges.take() == [.initial(0)])
        try realm.write(withoutNotifying: [silenced]) { realm.create(DocsPet.self, value: ["name": "Quiet"]) }
        realm.refresh()
        #expect(silencedChanges.take().isEmpty)
        #expect(heardChanges.take() == [.update(1, deletions: [], insertions: [0], modifications: [])])
        // Only that write: the next one notifies both.
        try realm.write { realm.create(DocsPet.self, value: ["name": "Loud"]) }
        realm.refresh()
        #expect(silencedChanges.take() == [.update(2, deletions: [], insertions: [1], modifications: [])])
        #expect(heardChanges.take() == [.update(2, deletions: [], insertions: [1], modifications: [])])
    }

    @Test("beginWrite and commitWrite(withoutNotifying:) silence an object observer")
    func commitWithoutNotifying() throws {
        let realm = try docsRealm()
        let pet = try realm.write { realm.create(DocsPet.self, value: ["name": "Rex"]) }
        let (token, changes) = observeObject(pet)
        defer { token.invalidate() }
        realm.beginWrite()
        pet.age = 4
        try realm.commitWrite(withoutNotifying: [token])
        realm.refresh()
        #expect(changes.take().isEmpty)
        #expect(pet.age == 4)
    }

    // "Stop Watching for Changes": after invalidate() the handler is not called.
    @Test("an invalidated token stops its notifications")
    func invalidatedToken() throws {
        let realm = try docsRealm()
        let (token, changes) = record(realm.objects(DocsPet.self))
        realm.refresh()
        #expect(changes.take() == [.initial(0)])
        token.invalidate()
        try realm.write { realm.create(DocsPet.self) }
        realm.refresh()
        #expect(changes.take().isEmpty)
        token.invalidate() // a second invalidate does nothing
    }

    // A List's observer: the positions of the list's own changes, and of elements whose
    // properties changed.
    @Test("a List observer hears insertions, moves as deletion plus insertion, and element changes")
    func listObserver() throws {
        let realm = try docsRealm()
        let keeper = try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "pets": [["name": "a"], ["name": "b"], ["name": "c"]]])
        }
        let (token, changes) = record(keeper.pets)
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(3)])
        try realm.write { keeper.pets.move(from: 0, to: 2) }
        realm.refresh()
        #expect(changes.take() == [.update(3, deletions: [0], insertions: [2], modifications: [])])
        try realm.write { keeper.pets[0].age = 7 }
        realm.refresh()
        #expect(changes.take() == [.update(3, deletions: [], insertions: [], modifications: [0])])
    }

    // Change notifications are not delivered while the Realm is in a write transaction; the
    // notifications of the version a write begins on come when it begins.
    @Test("beginWrite delivers the pending notifications first")
    func beginWriteDelivers() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "docs-\(UUID().uuidString)", objectTypes: docsTypes)
        let realm = try Realm(configuration: configuration)
        let (token, changes) = record(realm.objects(DocsPet.self))
        defer { token.invalidate() }
        realm.refresh()
        _ = changes.take()
        try onOtherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.create(DocsPet.self, value: ["name": "Away"]) }
        }
        realm.beginWrite()
        #expect(changes.take() == [.update(1, deletions: [], insertions: [0], modifications: [])])
        realm.create(DocsPet.self, value: ["name": "Here"])
        try realm.commitWrite()
        realm.refresh()
        #expect(changes.take() == [.update(2, deletions: [], insertions: [1], modifications: [])])
    }

    // "Change Notification Limits": "Changes in nested documents deeper than four levels down
    // do not trigger change notifications." realm-core's DeepChangeChecker looks at the root
    // object and the objects up to three links away (a path of four).
    @Test("a collection hears changes up to three links away, not four")
    func nestedDepthLimit() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "docs-\(UUID().uuidString)", objectTypes: [DocsLink.self]))
        let chain = try realm.write {
            realm.create(DocsLink.self, value: ["id": 0, "next": ["id": 1, "next": ["id": 2, "next": ["id": 3, "next": ["id": 4]]]]])
        }
        let links = (0..<5).map { realm.object(ofType: DocsLink.self, forPrimaryKey: $0)! }
        #expect(chain.next?.next?.next?.next?.id == 4)
        let (token, changes) = record(realm.objects(DocsLink.self).filter("id == 0"))
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(1)])
        try realm.write { links[3].value = 1 }
        realm.refresh()
        #expect(changes.take() == [.update(1, deletions: [], insertions: [], modifications: [0])])
        try realm.write { links[4].value = 1 }
        realm.refresh()
        #expect(changes.take().isEmpty)
        // A key path reaches as deep as it names.
        let (deepToken, deep) = record(realm.objects(DocsLink.self).filter("id == 0"), keyPaths: ["next.next.next.next.value"])
        defer { deepToken.invalidate() }
        realm.refresh()
        _ = deep.take()
        try realm.write { links[4].value = 2 }
        realm.refresh()
        #expect(deep.take() == [.update(1, deletions: [], insertions: [], modifications: [0])])
    }

    // Collection notifications come only for writes that change the collection: a change to
    // an object outside a filtered Results does not notify it.
    @Test("a write that leaves a filtered Results alone does not notify it")
    func unrelatedWriteIsSilent() throws {
        let realm = try docsRealm()
        let (young, old) = try realm.write {
            (realm.create(DocsPet.self, value: ["name": "Pup", "age": 1]), realm.create(DocsPet.self, value: ["name": "Old", "age": 9]))
        }
        let (token, changes) = record(realm.objects(DocsPet.self).filter("age > 5"))
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(1)])
        try realm.write { young.name = "Puppy" }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { old.name = "Elder" }
        realm.refresh()
        #expect(changes.take() == [.update(1, deletions: [], insertions: [], modifications: [0])])
    }

    // "Perform Writes Inside of Notifications": a write in a notification block is allowed and
    // notifies in turn.
    @Test("a write inside a notification block commits and notifies again")
    func writeInsideNotification() throws {
        let realm = try docsRealm()
        let pets = realm.objects(DocsPet.self)
        let changes = Changes<Seen>()
        let token = pets.observe { change in
            changes.append(seen(change))
            if case .update(let pets, _, let insertions, _) = change, insertions == [0] {
                try! pets.realm!.write { pets.realm!.create(DocsPet.self, value: ["name": "Echo"]) }
            }
        }
        defer { token.invalidate() }
        realm.refresh()
        try realm.write { realm.create(DocsPet.self, value: ["name": "First"]) }
        realm.refresh()
        realm.refresh()
        #expect(changes.take() == [.initial(0), .update(1, deletions: [], insertions: [0], modifications: []),
                                   .update(2, deletions: [], insertions: [1], modifications: [])])
        #expect(pets.count == 2)
    }

    // Object.observe: the block is called for changes of the object's own properties; a change
    // of a linked object (or of an object in one of its lists) reaches it only through a key
    // path naming it, reported as a change of the link or list property.
    @Test("object observers: linked objects' changes only through key paths")
    func objectLinkedChanges() throws {
        let realm = try docsRealm()
        let keeper = try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "favourite": ["name": "Rex"], "pets": [["name": "a"]]])
        }
        let (plain, plainChanges) = observeObject(keeper)
        let (listed, listedChanges) = observeObject(keeper, keyPaths: ["pets"])
        let (deep, deepChanges) = observeObject(keeper, keyPaths: ["favourite.name", "pets.name"])
        defer {
            plain.invalidate()
            listed.invalidate()
            deep.invalidate()
        }
        try realm.write { keeper.favourite!.name = "Max" }
        realm.refresh()
        #expect(plainChanges.take().isEmpty)
        #expect(listedChanges.take().isEmpty)
        #expect(deepChanges.take() == [.change(["favourite"])])
        try realm.write { keeper.pets[0].name = "b" }
        realm.refresh()
        #expect(plainChanges.take().isEmpty)
        #expect(listedChanges.take().isEmpty)
        #expect(deepChanges.take() == [.change(["pets"])])
        try realm.write { keeper.pets.append(DocsPet()) }
        realm.refresh()
        #expect(plainChanges.take() == [.change(["pets"])])
        #expect(listedChanges.take() == [.change(["pets"])])
        #expect(deepChanges.take() == [.change(["pets"])])
    }
}
