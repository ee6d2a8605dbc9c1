// QueryTests.swift — filtering (predicate strings and type-safe queries), sorting, distinct,
// aggregates and the liveness of Results.

import Foundation
import Testing

import OpenRealm

/// People with dogs: a small fixed data set every query test reads.
private func peopleRealm() throws -> Realm {
    let realm = try memoryRealm()
    try realm.write {
        let rex = Dog(value: ["name": "Rex", "age": 3])
        let fido = Dog(value: ["name": "Fido", "age": 7])
        let bello = Dog(value: ["name": "Bello", "age": 1])
        realm.add(Person(value: ["id": 1, "name": "Ada", "age": 36, "height": 1.65, "dog": rex, "dogs": [rex, fido],
                                 "nicknames": ["Countess"], "tags": ["math"]]))
        realm.add(Person(value: ["id": 2, "name": "Grace", "age": 45, "dog": fido, "dogs": [fido],
                                 "nicknames": ["Amazing", "Admiral"]]))
        realm.add(Person(value: ["id": 3, "name": "alan", "age": 41, "height": 1.80]))
        realm.add(Person(value: ["id": 4, "name": "Zoë", "age": 36, "height": 1.70, "dogs": [bello]]))
        realm.add(Person(value: ["id": 5, "name": "Edsger", "age": 72, "height": 1.85]))
    }
    return realm
}

/// The ids of people, in the results' order.
private func ids(_ results: Results<Person>) -> [Int] { results.map(\.id) }

@Suite("Queries")
struct QueryTests {
    @Test("filter with %@ arguments, chained, and sorted")
    func smoke() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        #expect(ids(people.filter("age > %@", 40)) == [2, 3, 5])
        #expect(ids(people.filter("age > %@", 40).filter("height != nil")) == [3, 5])
        #expect(ids(people.sorted(byKeyPath: "age", ascending: false)) == [5, 2, 3, 1, 4])
        #expect(ids(people.where { $0.age > 40 && $0.name.starts(with: "A", options: .caseInsensitive) }) == [3])
        #expect(people.sum(ofProperty: "age") as Int == 230)
    }
}
