// AddReusesCollectionsTests.swift — adding an object keeps the List, MutableSet and Map instances
// it held: they become its managed collections (Realm's ModernObjectTests
// testAddingObjectReusesExistingCollectionObjects), so a reference taken before add() writes to
// the Realm.

import Foundation
import Testing

import OpenRealm

@Suite("add() reuses the object's collections")
struct AddReusesCollectionsTests {
    private func realm() throws -> Realm {
        try Realm(configuration: .init(inMemoryIdentifier: "reuse-\(UUID().uuidString)"))
    }

    @Test("the instances read before add() are the object's managed collections after it")
    func sameInstances() throws {
        let person = Person(value: ["id": 1, "nicknames": ["a"], "tags": ["t"], "scores": ["x": 1]])
        let dogs = person.dogs, nicknames = person.nicknames, tags = person.tags, scores = person.scores
        #expect(dogs.realm == nil && tags.realm == nil && scores.realm == nil)
        let realm = try realm()
        try realm.write { realm.add(person) }
        #expect(dogs === person.dogs && nicknames === person.nicknames)
        #expect(tags === person.tags && scores === person.scores)
        #expect(dogs.realm != nil && nicknames.realm != nil && tags.realm != nil && scores.realm != nil)
        #expect(Array(nicknames) == ["a"] && tags.contains("t") && scores["x"] == 1)
    }

    @Test("writing through a reference taken before add() changes the managed object")
    func writesReachTheRealm() throws {
        let person = Person(value: ["id": 1])
        let nicknames = person.nicknames, scores = person.scores
        let realm = try realm()
        try realm.write {
            realm.add(person)
            nicknames.append("Ada")
            scores["y"] = 2
        }
        let stored = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(Array(stored.nicknames) == ["Ada"])
        #expect(stored.scores["y"] == 2)
    }

    @Test("a list another object manages stays that object's; each object gets its own")
    func sharedManagedList() throws {
        let realm = try realm()
        let first = Person(value: ["id": 1, "nicknames": ["a"]])
        try realm.write { realm.add(first) }
        let second = Person(value: ["id": 2])
        second.nicknames = first.nicknames
        try realm.write {
            realm.add(second)
            second.nicknames.append("b")
        }
        #expect(Array(first.nicknames) == ["a"])
        #expect(Array(second.nicknames) == ["a", "b"])
        #expect(first.nicknames !== second.nicknames)
    }
}
