// ProjectionTests.swift — Projection and @Projected: key paths of an object, through links and
// through lists (projectTo), read and written; Results of projections.

import Foundation
import Testing

import OpenRealm

final class PersonProjection: Projection<Person> {
    @Projected(\Person.name) var name
    @Projected(\Person.age) var age
    @Projected(\Person.dog?.name) var dogName
    @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
    @Projected(\Person.address?.city) var city
}

@Suite("Projections")
struct ProjectionTests {
    private func realmWithPeople() throws -> Realm {
        let realm = try memoryRealm([Person.self, Dog.self, Address.self])
        try realm.write {
            let ann = Person(value: ["id": 1, "name": "Ann", "age": 34, "dog": ["name": "Rex"], "address": ["street": "Main", "city": "Oslo"]])
            ann.dogs.append(objectsIn: [Dog(value: ["name": "Fido"]), Dog(value: ["name": "Spot"])])
            realm.add(ann)
            realm.add(Person(value: ["id": 2, "name": "Bo", "age": 16]))
        }
        return realm
    }

    @Test("a projection reads key paths of its object, through links and lists")
    func reads() throws {
        let realm = try realmWithPeople()
        let people = realm.objects(PersonProjection.self)
        #expect(people.count == 2)
        let ann = try #require(people.first)
        #expect(ann.name == "Ann")
        #expect(ann.age == 34)
        #expect(ann.dogName == "Rex")
        #expect(ann.city == "Oslo")
        #expect(Array(ann.dogNames) == ["Fido", "Spot"])
        #expect(ann.dogNames.index(of: "Spot") == 1)
        #expect(people[1].dogName == nil)
        #expect(people[1].dogNames.isEmpty)
        #expect(people.map(\.name) == ["Ann", "Bo"])
        #expect(ann.rootObject.id == 1)
        #expect(ann.realm == realm)
        #expect(ann == PersonProjection(projecting: ann.rootObject))
        #expect(ann.description.contains("name(\\.name) = Ann;"))
    }

    @Test("a projection is live and writes through to its object")
    func writes() throws {
        let realm = try realmWithPeople()
        let ann = try #require(realm.objects(PersonProjection.self).first)
        try realm.write {
            ann.name = "Anna"
            ann.age += 1
            ann.rootObject.dogs.append(Dog(value: ["name": "Pup"]))
        }
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name == "Anna")
        #expect(ann.age == 35)
        #expect(ann.dogNames.count == 3)
        let frozen = ann.freeze()
        try realm.write { ann.name = "Ann" }
        #expect(frozen.isFrozen)
        #expect(frozen.name == "Anna")
        #expect(frozen.dogNames.isFrozen)
        #expect(frozen.thaw()?.name == "Ann")
    }

    @Test("an unmanaged object's projection reads it")
    func unmanaged() {
        let person = Person(value: ["id": 9, "name": "Cy"])
        person.dogs.append(Dog(value: ["name": "Rex"]))
        let projection = PersonProjection(projecting: person)
        #expect(projection.name == "Cy")
        #expect(Array(projection.dogNames) == ["Rex"])
        #expect(projection.realm == nil)
    }
}

@Suite("Projection observation")
struct ProjectionObservationTests {
    @Test("observe names the projected properties that changed")
    func observe() throws {
        let realm = try memoryRealm([Person.self, Dog.self, Address.self])
        let person = Person(value: ["id": 1, "name": "Ann", "dog": ["name": "Rex"]])
        try realm.write { realm.add(person) }
        let projection = PersonProjection(projecting: person)
        let changes = Changes<[String]>()
        let token = projection.observe { change in
            if case .change(let projected, let properties) = change {
                changes.append(properties.map { "\($0.name)=\($0.newValue.map { "\($0)" } ?? "nil")" } + ["now:\(projected.name)"])
            }
        }
        defer { token.invalidate() }
        try realm.write { person.name = "Anna" }
        realm.refresh()
        #expect(changes.take() == [["name=Anna", "now:Anna"]])
        try realm.write { person.height = 1.7 }   // not projected
        realm.refresh()
        #expect(changes.take() == [])
        let onlyAge = projection.observe(keyPaths: ["age"]) { change in
            if case .change(_, let properties) = change { changes.append(properties.map(\.name)) }
        }
        defer { onlyAge.invalidate() }
        try realm.write { person.age = 40 }
        realm.refresh()
        #expect(changes.take().sorted { $0.count < $1.count } == [["age"], ["age=40", "now:Anna"]])
    }
}
