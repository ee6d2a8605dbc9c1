// SectionedResultsTests.swift — sectioned(by:) and its SectionedResults and ResultsSections:
// grouping, order, live updates, frozen copies and notifications in index paths.

import Foundation
import Testing

import OpenRealm

/// What a sectioned results observer was told, comparable.
enum SeenSections: Equatable {
    case initial([String])
    case update([String], deletions: [[Int]], insertions: [[Int]], modifications: [[Int]], sectionsToInsert: [Int], sectionsToDelete: [Int])
}

@Suite("Sectioned results")
struct SectionedResultsTests {
    private func dogsRealm() throws -> Realm {
        let realm = try memoryRealm([Dog.self, Person.self, Address.self])
        try realm.write {
            for (name, age) in [("Rex", 3), ("Ace", 5), ("Bo", 3), ("Max", 1), ("Ada", 5)] {
                realm.add(Dog(value: ["name": name, "age": age]))
            }
        }
        return realm
    }

    @Test("sectioned(by:) a key path groups sorted objects by its value")
    func byKeyPath() throws {
        let realm = try dogsRealm()
        let byAge = realm.objects(Dog.self).sectioned(by: \.age, ascending: true)
        #expect(byAge.allKeys == [1, 3, 5])
        #expect(byAge.count == 3)
        #expect(byAge[1].key == 3)
        #expect(byAge[1].id == 3)
        #expect(Set(byAge[1].map(\.name)) == ["Rex", "Bo"])
        #expect(byAge[IndexPath(indexes: [0, 0])].name == "Max")
        #expect(byAge.map(\.count) == [1, 2, 2])
        let descending = realm.objects(Dog.self).sectioned(by: \.age, ascending: false)
        #expect(descending.allKeys == [5, 3, 1])
        let sortedWithin = realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age"), "name"])
        #expect(sortedWithin[2].map(\.name) == ["Ace", "Ada"])
    }

    @Test("sectioned(by:) a block groups by the key it gives")
    func byBlock() throws {
        let realm = try dogsRealm()
        let byInitial = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: ["name"])
        #expect(byInitial.allKeys == ["A", "B", "M", "R"])
        #expect(byInitial[0].map(\.name) == ["Ace", "Ada"])
        #expect(byInitial == byInitial)
        #expect(byInitial[0] == byInitial[0])
        #expect(byInitial[0] != byInitial[1])
    }

    @Test("a collection of values sections by value order")
    func values() throws {
        let realm = try memoryRealm([Person.self, Dog.self, Address.self])
        let person = Person(value: ["id": 1, "name": "Ann"])
        try realm.write {
            realm.add(person)
            person.nicknames.append(objectsIn: ["bea", "al", "bo", "ann"])
        }
        let sections = person.nicknames.sectioned(by: { String($0.prefix(1)) }, ascending: true)
        #expect(sections.allKeys == ["a", "b"])
        #expect(Array(sections[0]) == ["al", "ann"])
        #expect(Array(sections[1]) == ["bea", "bo"])
    }

    @Test("sections are live: a write shows in them, a section without objects is gone")
    func live() throws {
        let realm = try dogsRealm()
        let byAge = realm.objects(Dog.self).sectioned(by: \.age, ascending: true)
        let three = byAge[1]
        try realm.write {
            realm.add(Dog(value: ["name": "New", "age": 3]))
            realm.delete(realm.objects(Dog.self).filter("age == 1"))
        }
        #expect(byAge.allKeys == [3, 5])
        #expect(three.count == 3)
        let frozen = byAge.freeze()
        try realm.write { realm.add(Dog(value: ["name": "Pup", "age": 0])) }
        #expect(frozen.isFrozen)
        #expect(frozen.allKeys == [3, 5])
        #expect(byAge.allKeys == [0, 3, 5])
        let thawed = try #require(frozen.thaw())
        #expect(thawed.allKeys == [0, 3, 5])
    }

    @Test("observe reports index paths and sections")
    func observe() throws {
        let realm = try dogsRealm()
        let byAge = realm.objects(Dog.self).sectioned(by: \.age, sortDescriptors: [SortDescriptor(keyPath: "age"), "name"])
        let changes = Changes<SeenSections>()
        let describe: (SectionedResults<Int, Dog>) -> [String] = { sections in sections.map { "\($0.key):" + $0.map(\.name).joined(separator: ",") } }
        let token = byAge.observe { change in
            switch change {
            case .initial(let sections): changes.append(.initial(describe(sections)))
            case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                changes.append(.update(describe(sections), deletions: deletions.map(Array.init), insertions: insertions.map(Array.init),
                                       modifications: modifications.map(Array.init), sectionsToInsert: Array(sectionsToInsert),
                                       sectionsToDelete: Array(sectionsToDelete)))
            }
        }
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take() == [.initial(["1:Max", "3:Bo,Rex", "5:Ace,Ada"])])

        // A new object in an existing section.
        try realm.write { realm.add(Dog(value: ["name": "Cy", "age": 3])) }
        realm.refresh()
        #expect(changes.take() == [.update(["1:Max", "3:Bo,Cy,Rex", "5:Ace,Ada"], deletions: [], insertions: [[1, 1]], modifications: [],
                                           sectionsToInsert: [], sectionsToDelete: [])])

        // A section goes, another comes (its object is an insertion too, as in Realm).
        try realm.write {
            realm.delete(realm.objects(Dog.self).filter("age == 1"))
            realm.add(Dog(value: ["name": "Old", "age": 9]))
        }
        realm.refresh()
        #expect(changes.take() == [.update(["3:Bo,Cy,Rex", "5:Ace,Ada", "9:Old"], deletions: [], insertions: [[2, 0]], modifications: [],
                                           sectionsToInsert: [2], sectionsToDelete: [0])])

        // An object changes section: it leaves one and enters the other.
        try realm.write { realm.objects(Dog.self).filter("name == 'Bo'").first?.age = 5 }
        realm.refresh()
        #expect(changes.take() == [.update(["3:Cy,Rex", "5:Ace,Ada,Bo", "9:Old"], deletions: [[0, 0]], insertions: [[1, 2]],
                                           modifications: [], sectionsToInsert: [], sectionsToDelete: [])])

        // A modification in place.
        try realm.write { realm.objects(Dog.self).filter("name == 'Rex'").first?.name = "Rexy" }
        realm.refresh()
        #expect(changes.take() == [.update(["3:Cy,Rexy", "5:Ace,Ada,Bo", "9:Old"], deletions: [], insertions: [], modifications: [[0, 1]],
                                           sectionsToInsert: [], sectionsToDelete: [])])
    }
}
