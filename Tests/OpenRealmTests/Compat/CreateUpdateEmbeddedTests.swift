// CreateUpdateEmbeddedTests.swift — create(_:value:update:) of an existing object with embedded
// objects, as realm-core's Object::create: `.modified` updates them in place (the keys given
// only; lists position by position), `.all` replaces them; short arrays change the positions
// they give.

import Foundation
import Testing

import OpenRealm

final class UpdPoint: EmbeddedObject {
    @Persisted var x: Int
    @Persisted var y = 7
}

final class UpdShape: EmbeddedObject {
    @Persisted var name: String
    @Persisted var origin: UpdPoint?
    @Persisted var points: List<UpdPoint>
}

final class UpdDrawing: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var title: String
    @Persisted var shape: UpdShape?
    @Persisted var shapes: List<UpdShape>
}

private func openRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "create-update-\(UUID().uuidString)"))
}

@Suite("create(_:value:update:) and embedded objects, as Realm")
struct CreateUpdateEmbeddedTests {
    @Test(".modified updates an embedded object in place: only the keys given change")
    func modifiedUpdatesEmbeddedInPlace() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = realm.create(Person.self, value: ["id": 1, "address": ["street": "Main", "city": "Oslo"]])
        let before = try #require(person.address)
        realm.create(Person.self, value: ["id": 1, "address": ["street": "High"]], update: .modified)
        #expect(person.address?.street == "High")
        #expect(person.address?.city == "Oslo")
        #expect(!before.isInvalidated)
        #expect(before.street == "High")
        #expect(before.isSameObject(as: person.address))
    }

    @Test(".all replaces an embedded object: the values not given are the defaults")
    func allReplacesEmbedded() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = realm.create(Person.self, value: ["id": 1, "address": ["street": "Main", "city": "Oslo"]])
        let before = try #require(person.address)
        realm.create(Person.self, value: ["id": 1, "address": ["street": "High"]], update: .all)
        #expect(person.address?.street == "High")
        #expect(person.address?.city == "")
        #expect(before.isInvalidated)
    }

    @Test(".modified with nil removes the embedded object; with none there, creates one")
    func modifiedNilAndNew() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = realm.create(Person.self, value: ["id": 1, "address": ["street": "Main", "city": "Oslo"]])
        realm.create(Person.self, value: ["id": 1, "address": NSNull()], update: .modified)
        #expect(person.address == nil)
        realm.create(Person.self, value: ["id": 1, "address": ["city": "Rome"]], update: .modified)
        #expect(person.address?.city == "Rome")
        #expect(person.address?.street == "")
    }

    @Test(".modified with an unmanaged embedded object updates in place with all its values")
    func modifiedWithObject() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = realm.create(Person.self, value: ["id": 1, "address": ["street": "Main", "city": "Oslo"]])
        let before = try #require(person.address)
        realm.create(Person.self, value: ["id": 1, "address": Address(value: ["street": "High"])], update: .modified)
        #expect(!before.isInvalidated)
        #expect(before.street == "High" && before.city == "")
    }

    @Test(".modified updates a list of embedded objects position by position")
    func modifiedUpdatesEmbeddedList() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = realm.create(Person.self, value: [
            "id": 1, "addresses": [["street": "A", "city": "X"], ["street": "B", "city": "Y"]],
        ])
        let first = person.addresses[0]
        let second = person.addresses[1]
        realm.create(Person.self, value: ["id": 1, "addresses": [["street": "C"]]], update: .modified)
        #expect(person.addresses.count == 1)
        #expect(person.addresses[0].street == "C" && person.addresses[0].city == "X")
        #expect(!first.isInvalidated && first.street == "C")
        #expect(second.isInvalidated)

        realm.create(Person.self, value: ["id": 1, "addresses": [["city": "Z"], ["street": "D"]]], update: .modified)
        #expect(person.addresses.map(\.street) == ["C", "D"])
        #expect(person.addresses.map(\.city) == ["Z", ""])
        #expect(!first.isInvalidated)
    }

    @Test(".all replaces a list of embedded objects")
    func allReplacesEmbeddedList() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = realm.create(Person.self, value: ["id": 1, "addresses": [["street": "A", "city": "X"]]])
        let first = person.addresses[0]
        realm.create(Person.self, value: ["id": 1, "addresses": [["street": "C"]]], update: .all)
        #expect(person.addresses.count == 1)
        #expect(person.addresses[0].street == "C" && person.addresses[0].city == "")
        #expect(first.isInvalidated)
    }

    @Test(".modified updates nested embedded objects and their lists in place")
    func modifiedNested() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let drawing = realm.create(UpdDrawing.self, value: [
            "id": 1, "title": "t",
            "shape": ["name": "square", "origin": ["x": 1, "y": 2], "points": [["x": 1, "y": 1], ["x": 2, "y": 2]]],
        ])
        let origin = try #require(drawing.shape?.origin)
        let point = try #require(drawing.shape?.points.first)
        realm.create(UpdDrawing.self, value: ["id": 1, "shape": ["origin": ["x": 5], "points": [["y": 9]]]],
                     update: .modified)
        #expect(drawing.title == "t")
        #expect(drawing.shape?.name == "square")
        #expect(!origin.isInvalidated && origin.x == 5 && origin.y == 2)
        #expect(!point.isInvalidated && point.x == 1 && point.y == 9)
        #expect(drawing.shape?.points.count == 1)
    }

    @Test("an array with fewer values updates only the positions it gives")
    func shortArrayUpdatesGivenPositions() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = realm.create(Person.self, value: ["id": 1, "name": "Ann", "age": 40])
        realm.create(Person.self, value: [1, "Bea"], update: .modified)
        #expect(person.name == "Bea" && person.age == 40)
        realm.create(Person.self, value: [1, "Cy"], update: .all)
        #expect(person.name == "Cy" && person.age == 40)
    }
}

@Suite("create(_:value:update:) and dictionaries, as Realm")
struct CreateUpdateMapTests {
    @Test(".modified sets the keys given and keeps the others; .all replaces the dictionary")
    func modifiedMergesDictionary() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = realm.create(Person.self, value: ["id": 1, "scores": ["art": 1, "math": 2]])
        realm.create(Person.self, value: ["id": 1, "scores": ["math": 5, "music": 3]], update: .modified)
        #expect(person.scores["art"] == 1 && person.scores["math"] == 5 && person.scores["music"] == 3)
        realm.create(Person.self, value: ["id": 1, "scores": ["math": 6]], update: .all)
        #expect(person.scores.count == 1 && person.scores["math"] == 6)
    }

    @Test(".modified updates an embedded object of a dictionary in place")
    func modifiedUpdatesEmbeddedInDictionary() throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let owner = realm.create(UpdAtlas.self, value: ["id": 1, "places": ["home": ["street": "Main", "city": "Oslo"]]])
        let home = try #require(owner.places["home"] ?? nil)
        realm.create(UpdAtlas.self, value: ["id": 1, "places": ["home": ["street": "High"], "work": ["city": "Rome"]]],
                     update: .modified)
        #expect(!home.isInvalidated && home.street == "High" && home.city == "Oslo")
        #expect(owner.places.count == 2 && (owner.places["work"] ?? nil)?.city == "Rome")
        realm.create(UpdAtlas.self, value: ["id": 1, "places": ["home": NSNull()]], update: .modified)
        #expect(owner.places.count == 2 && (owner.places["home"] ?? nil) == nil)
    }
}

final class UpdAtlas: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var places: Map<String, Address?>
}
