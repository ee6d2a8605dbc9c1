// CollectionObservationTests.swift — `observe` on Results, List, MutableSet, Map, LinkingObjects
// and AnyRealmCollection: the initial notification, then the positions (or keys) of each
// commit's deletions, insertions and modifications; key-path filtering; withoutNotifying; token
// invalidation; delivery on a queue. The tests' threads run no run loop: a Realm delivers at its
// next refresh() or write.

import Dispatch
import Foundation
import Testing

import OpenRealm

/// What a collection observer was told, comparable.
enum Seen: Equatable {
    case initial(Int)
    case update(Int, deletions: [Int], insertions: [Int], modifications: [Int])
    case error
}

/// Collects the changes an observation delivers (on the test's thread, or on a queue while the
/// test waits for it).
final class Changes<Change>: @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [Change] = []

    func append(_ change: Change) {
        lock.lock()
        changes.append(change)
        lock.unlock()
    }

    /// The changes collected since the last call.
    func take() -> [Change] {
        lock.lock()
        defer { lock.unlock() }
        let taken = changes
        changes = []
        return taken
    }
}

/// The collection's count; -1 once its object is deleted (an invalidated collection cannot be read).
private func count<C: Collection>(_ collection: C) -> Int {
    (collection as? any ThreadConfined)?.isInvalidated == true ? -1 : collection.count
}

func seen<C: Collection>(_ change: RealmCollectionChange<C>) -> Seen {
    switch change {
    case .initial(let collection): .initial(count(collection))
    case .update(let collection, let deletions, let insertions, let modifications):
        .update(count(collection), deletions: deletions, insertions: insertions, modifications: modifications)
    case .error: .error
    }
}

/// Observes `collection`, recording what it is told.
func record<C: RealmCollection>(_ collection: C, keyPaths: [String]? = nil) -> (NotificationToken, Changes<Seen>) {
    let changes = Changes<Seen>()
    let token = collection.observe(keyPaths: keyPaths, on: nil) { changes.append(seen($0)) }
    return (token, changes)
}

private func dogs(_ realm: Realm, _ specs: [(String, Int)]) throws -> [Dog] {
    try realm.write { specs.map { realm.create(Dog.self, value: ["name": $0.0, "age": $0.1]) } }
}

@Suite("Observing Results, List, MutableSet, Map, LinkingObjects")
struct CollectionObservationTests {
    @Test("Results: initial, then insertions, modifications and deletions by position")
    func resultsChanges() throws {
        let realm = try memoryRealm()
        let made = try dogs(realm, [("Rex", 3), ("Fido", 1)])
        let (token, changes) = record(realm.objects(Dog.self))
        defer { token.invalidate() }
        #expect(changes.take().isEmpty)    // asynchronous: nothing until the Realm delivers
        realm.refresh()
        #expect(changes.take() == [.initial(2)])
        _ = try dogs(realm, [("Max", 5)])
        realm.refresh()
        #expect(changes.take() == [.update(3, deletions: [], insertions: [2], modifications: [])])
        try realm.write { made[1].age = 2 }
        realm.refresh()
        #expect(changes.take() == [.update(3, deletions: [], insertions: [], modifications: [1])])
        try realm.write { realm.delete(made[0]) }
        realm.refresh()
        #expect(changes.take() == [.update(2, deletions: [0], insertions: [], modifications: [])])
        // A commit that does not touch the class: nothing.
        try realm.write { realm.create(Person.self, value: ["id": 1]) }
        realm.refresh()
        #expect(changes.take().isEmpty)
    }

    @Test("Results filtered and sorted: objects entering and leaving, sorted positions")
    func filteredSortedResults() throws {
        let realm = try memoryRealm()
        let made = try dogs(realm, [("b", 3), ("d", 5), ("a", 1)])
        let (token, changes) = record(realm.objects(Dog.self).filter("age >= 3").sorted(byKeyPath: "name"))
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(2)])    // b, d
        try realm.write { made[2].age = 4 }           // a enters, first by name
        realm.refresh()
        #expect(changes.take() == [.update(3, deletions: [], insertions: [0], modifications: [])])
        try realm.write { made[0].age = 0 }           // b (position 1) leaves
        realm.refresh()
        #expect(changes.take() == [.update(2, deletions: [1], insertions: [], modifications: [])])
        try realm.write { made[1].age = 6 }           // d modified, stays at 1
        realm.refresh()
        #expect(changes.take() == [.update(2, deletions: [], insertions: [], modifications: [1])])
        _ = try dogs(realm, [("c", 9)])              // between a and d
        realm.refresh()
        #expect(changes.take() == [.update(3, deletions: [], insertions: [1], modifications: [])])
    }

    @Test("commits the Realm moves to before the initial notification are part of it")
    func initialCoalesces() throws {
        try withDirectory { directory in
            let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("initial.realm"), objectTypes: [Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: configuration)
            realm.autorefresh = false
            let (token, changes) = record(realm.objects(Dog.self))
            defer { token.invalidate() }
            try onOtherThread {
                let other = try Realm(configuration: configuration)
                try other.write { other.create(Dog.self, value: ["name": "Rex"]) }
            }
            // The initial state is read when delivered (here at refresh, before the Realm moves).
            realm.refresh()
            #expect(changes.take() == [.initial(0), .update(1, deletions: [], insertions: [0], modifications: [])])
            // A write right after registering: as Realm documents, the initial notification
            // reflects the state after the write (NotificationSemanticsTests).
            let (second, secondChanges) = record(realm.objects(Dog.self))
            defer { second.invalidate() }
            _ = try dogs(realm, [("Max", 2)])
            realm.refresh()
            #expect(secondChanges.take() == [.initial(2)])
        }
    }

    @Test("List: append, insert, remove, move, replace")
    func listChanges() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "nicknames": ["a", "b", "c"]]) }
        let (token, changes) = record(person.nicknames)
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(3)])
        try realm.write { person.nicknames.append("d") }
        realm.refresh()
        #expect(changes.take() == [.update(4, deletions: [], insertions: [3], modifications: [])])
        try realm.write { person.nicknames.insert("z", at: 0) }
        realm.refresh()
        #expect(changes.take() == [.update(5, deletions: [], insertions: [0], modifications: [])])
        try realm.write { person.nicknames.remove(at: 2) }     // z a b c d -> z a c d
        realm.refresh()
        #expect(changes.take() == [.update(4, deletions: [2], insertions: [], modifications: [])])
        try realm.write { person.nicknames.replace(index: 1, object: "A") }
        realm.refresh()
        #expect(changes.take() == [.update(4, deletions: [], insertions: [], modifications: [1])])
        #expect(Array(person.nicknames) == ["z", "A", "c", "d"])
    }

    @Test("List of objects: a move, a linked object's change; deleting the owner deletes all")
    func listOfObjects() throws {
        let realm = try memoryRealm()
        let person = try realm.write {
            realm.create(Person.self, value: ["id": 1, "dogs": [["name": "a"], ["name": "b"], ["name": "c"], ["name": "d"]]])
        }
        let (token, changes) = record(person.dogs)
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(4)])
        try realm.write { person.dogs.move(from: 0, to: 3) }   // a move: a deletion and an insertion
        realm.refresh()
        #expect(changes.take() == [.update(4, deletions: [0], insertions: [3], modifications: [])])
        #expect(person.dogs.map(\.name) == ["b", "c", "d", "a"])
        try realm.write { person.dogs[1].age = 7 }
        realm.refresh()
        #expect(changes.take() == [.update(4, deletions: [], insertions: [], modifications: [1])])
        try realm.write { realm.delete(person) }
        realm.refresh()
        #expect(changes.take() == [.update(-1, deletions: [0, 1, 2, 3], insertions: [], modifications: [])])
        // Nothing follows.
        try realm.write { realm.objects(Dog.self).first!.age = 1 }
        realm.refresh()
        #expect(changes.take().isEmpty)
    }

    @Test("MutableSet: insertions and deletions")
    func setChanges() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "tags": ["x"]]) }
        let (token, changes) = record(person.tags)
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(1)])
        try realm.write { person.tags.insert("y") }
        realm.refresh()
        let inserted = changes.take()
        #expect(inserted.count == 1)
        if case .update(2, let deletions, let insertions, _) = inserted.first {
            #expect(deletions.isEmpty && insertions.count == 1)
        } else {
            Issue.record("expected an insertion, got \(inserted)")
        }
        try realm.write { person.tags.remove("x") }
        realm.refresh()
        let removed = changes.take()
        if case .update(1, let deletions, let insertions, _) = removed.first {
            #expect(deletions.count == 1 && insertions.isEmpty)
        } else {
            Issue.record("expected a deletion, got \(removed)")
        }
    }

    @Test("Map: keys inserted, modified, deleted")
    func mapChanges() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "scores": ["math": 1, "art": 2]]) }
        let changes = Changes<String>()
        let token = person.scores.observe { change in
            switch change {
            case .initial(let map): changes.append("initial \(map.count)")
            case .update(let map, let deletions, let insertions, let modifications):
                changes.append("update \(map.count) -\(deletions) +\(insertions) ~\(modifications)")
            case .error: changes.append("error")
            }
        }
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == ["initial 2"])
        try realm.write { person.scores["music"] = 3 }
        realm.refresh()
        #expect(changes.take() == ["update 3 -[] +[\"music\"] ~[]"])
        try realm.write { person.scores["math"] = 10 }
        realm.refresh()
        #expect(changes.take() == ["update 3 -[] +[] ~[\"math\"]"])
        try realm.write { person.scores["art"] = nil }
        realm.refresh()
        #expect(changes.take() == ["update 2 -[\"art\"] +[] ~[]"])
    }

    @Test("LinkingObjects: an object starting and stopping to link")
    func linkingObjects() throws {
        let realm = try memoryRealm()
        let rex = try dogs(realm, [("Rex", 1)])[0]
        let (token, changes) = record(rex.owners)
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(0)])
        let ada = try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ada"]) }
        try realm.write { ada.dogs.append(rex) }
        realm.refresh()
        #expect(changes.take() == [.update(1, deletions: [], insertions: [0], modifications: [])])
        try realm.write { ada.name = "Ada L." }
        realm.refresh()
        #expect(changes.take() == [.update(1, deletions: [], insertions: [], modifications: [0])])
        try realm.write { ada.dogs.removeAll() }
        realm.refresh()
        #expect(changes.take() == [.update(0, deletions: [0], insertions: [], modifications: [])])
    }

    @Test("Map of objects with Swift key paths: a value's name is a modification, its age is not")
    func mapOfObjects() throws {
        let realm = try memoryRealm()
        let holder = try realm.write { realm.create(Collections.self, value: ["dogMap": ["rex": ["name": "Rex"]]]) }
        let changes = Changes<String>()
        let token = holder.dogMap.observe(keyPaths: [\Dog.name]) { change in
            if case .update(_, let deletions, let insertions, let modifications) = change {
                changes.append("-\(deletions) +\(insertions) ~\(modifications)")
            }
        }
        defer { token.invalidate() }
        realm.refresh()
        try realm.write { holder.dogMap["rex"]!!.age = 3 }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { holder.dogMap["rex"]!!.name = "Max" }
        realm.refresh()
        #expect(changes.take() == ["-[] +[] ~[\"rex\"]"])
    }

    @Test("Results of sorted values: insertions and deletions where the values sort")
    func sortedValues() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "nicknames": ["b", "d"]]) }
        let (token, changes) = record(person.nicknames.sorted())
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(2)])
        try realm.write { person.nicknames.append("c") }
        realm.refresh()
        #expect(changes.take() == [.update(3, deletions: [], insertions: [1], modifications: [])])
        try realm.write { person.nicknames.remove(at: 0) }    // "b"
        realm.refresh()
        #expect(changes.take() == [.update(2, deletions: [0], insertions: [], modifications: [])])
    }

    @Test("LinkingObjects of a deleted object: every linking object deleted, then nothing")
    func linkingObjectsOfDeletedObject() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [["name": "Rex"]]]) }
        let rex = person.dogs[0]
        let (token, changes) = record(rex.owners)
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(1)])
        try realm.write { realm.delete(rex) }
        realm.refresh()
        #expect(changes.take() == [.update(-1, deletions: [0], insertions: [], modifications: [])])
        try realm.write { person.name = "Ada" }
        realm.refresh()
        #expect(changes.take().isEmpty)
    }

    @Test("a list nested in a mixed property, then replaced")
    func nestedList() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "anything": AnyRealmValue.list(List<AnyRealmValue>())]) }
        guard case .list(let list) = person.anything else {
            Issue.record("expected a list")
            return
        }
        // The block reads no count: a list whose mixed value was replaced cannot be read.
        let changes = Changes<Seen>()
        let token = list.observe { change in
            switch change {
            case .initial: changes.append(.initial(0))
            case .update(_, let deletions, let insertions, let modifications):
                changes.append(.update(0, deletions: deletions, insertions: insertions, modifications: modifications))
            case .error: changes.append(.error)
            }
        }
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(0)])
        try realm.write { list.append(.int(1)) }
        realm.refresh()
        #expect(changes.take() == [.update(0, deletions: [], insertions: [0], modifications: [])])
        // The mixed property replaced: the list is gone, its element deleted, nothing follows.
        try realm.write { person.anything = .int(7) }
        realm.refresh()
        #expect(changes.take() == [.update(0, deletions: [0], insertions: [], modifications: [])])
        try realm.write { person.anything = .list(List<AnyRealmValue>()) }
        realm.refresh()
        #expect(changes.take().isEmpty)
    }

    @Test("AnyRealmCollection forwards to the collection it wraps")
    func anyRealmCollection() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [["name": "Rex"]]]) }
        let (token, changes) = record(AnyRealmCollection(person.dogs))
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(1)])
        try realm.write { person.dogs.append(Dog()) }
        realm.refresh()
        #expect(changes.take() == [.update(2, deletions: [], insertions: [1], modifications: [])])
    }

    @Test("key paths through a link: a dog's name notifies, its age does not")
    func keyPathThroughLink() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [["name": "Rex", "age": 1]]]) }
        let people = realm.objects(Person.self)
        let (byString, strings) = record(people, keyPaths: ["dogs.name"])
        let typed = Changes<Seen>()
        let byKeyPath = people.observe(keyPaths: [\Person.dogs[0].name]) { typed.append(seen($0)) }
        defer { byString.invalidate(); byKeyPath.invalidate() }
        realm.refresh()
        #expect(strings.take() == [.initial(1)])
        #expect(typed.take() == [.initial(1)])
        try realm.write { person.dogs[0].age = 2 }
        realm.refresh()
        #expect(strings.take().isEmpty)
        #expect(typed.take().isEmpty)
        try realm.write { person.dogs[0].name = "Max" }
        realm.refresh()
        #expect(strings.take() == [.update(1, deletions: [], insertions: [], modifications: [0])])
        #expect(typed.take() == [.update(1, deletions: [], insertions: [], modifications: [0])])
        // The person's own properties outside the key paths do not count either.
        try realm.write { person.age = 40 }
        realm.refresh()
        #expect(strings.take().isEmpty)
    }

    @Test("write(withoutNotifying:) skips those tokens for that commit only")
    func withoutNotifying() throws {
        let realm = try memoryRealm()
        let (skipped, skippedChanges) = record(realm.objects(Dog.self))
        let (other, otherChanges) = record(realm.objects(Dog.self))
        defer { skipped.invalidate(); other.invalidate() }
        realm.refresh()
        #expect(skippedChanges.take() == [.initial(0)])
        #expect(otherChanges.take() == [.initial(0)])
        try realm.write(withoutNotifying: [skipped]) { realm.create(Dog.self, value: ["name": "Rex"]) }
        realm.refresh()
        #expect(skippedChanges.take().isEmpty)
        #expect(otherChanges.take() == [.update(1, deletions: [], insertions: [0], modifications: [])])
        _ = try dogs(realm, [("Fido", 1)])
        realm.refresh()
        #expect(skippedChanges.take() == [.update(2, deletions: [], insertions: [1], modifications: [])])
    }

    @Test("an invalidated token is told nothing, not even the initial state")
    func invalidation() throws {
        let realm = try memoryRealm()
        let (before, beforeChanges) = record(realm.objects(Dog.self))
        before.invalidate()
        let (after, afterChanges) = record(realm.objects(Dog.self))
        realm.refresh()
        #expect(afterChanges.take() == [.initial(0)])
        after.invalidate()
        _ = try dogs(realm, [("Rex", 1)])
        realm.refresh()
        #expect(beforeChanges.take().isEmpty)
        #expect(afterChanges.take().isEmpty)
    }

    @Test("a change committed on another thread arrives at refresh")
    func otherThreadCommit() throws {
        try withDirectory { directory in
            let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("observe.realm"), objectTypes: [Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: configuration)
            let (token, changes) = record(realm.objects(Dog.self))
            defer { token.invalidate() }
            realm.refresh()
            #expect(changes.take() == [.initial(0)])
            try onOtherThread {
                let other = try Realm(configuration: configuration)
                try other.write { other.create(Dog.self, value: ["name": "Rex"]) }
            }
            realm.refresh()
            #expect(changes.take() == [.update(1, deletions: [], insertions: [0], modifications: [])])
        }
    }

    @Test("on queue: the initial state and changes arrive on the queue")
    func onQueue() throws {
        try withDirectory { directory in
            let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("queue.realm"), objectTypes: [Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: configuration)
            _ = try dogs(realm, [("Rex", 1)])
            let queue = DispatchQueue(label: "observe")
            let changes = Changes<Seen>()
            let delivered = DispatchSemaphore(value: 0)
            let token = realm.objects(Dog.self).observe(on: queue) { change in
                dispatchPrecondition(condition: .onQueue(queue))
                changes.append(seen(change))
                delivered.signal()
            }
            defer { token.invalidate() }
            #expect(delivered.wait(timeout: .now() + 10) == .success)
            #expect(changes.take() == [.initial(1)])
            _ = try dogs(realm, [("Fido", 2)])
            #expect(delivered.wait(timeout: .now() + 10) == .success)
            #expect(changes.take() == [.update(2, deletions: [], insertions: [1], modifications: [])])
        }
    }
}
