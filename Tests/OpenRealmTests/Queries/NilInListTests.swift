// NilInListTests.swift — nil inside `IN {...}`: Realm Swift turns `key IN {a, b}` into ORed
// `==` and checks each element (RLMQueryUtil.mm, apply_value_expression), so nil with a
// required property stops with its "in IN clause" message; with an optional property nil
// matches the null values.

import Foundation
import Testing

import OpenRealm

@Suite("nil inside IN {...}")
struct NilInListTests {
    @Test("nil in the list of a required property stops with Realm Swift's message")
    func requiredProperty() async {
        removeInMemoryRealm("nil-in-list-required")
        defer { removeInMemoryRealm("nil-in-list-required") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "nil-in-list-required"))
            try realm.write { realm.add(Person()) }
            _ = realm.objects(Person.self).filter("age IN {18, nil}").count
        }
        expectStop("Expected object of type int in IN clause for property 'age' on object of type 'Person', but received: (null)", result)
    }

    @Test("a fraction in the list of an int property stops the same way")
    func fraction() async {
        removeInMemoryRealm("nil-in-list-fraction")
        defer { removeInMemoryRealm("nil-in-list-fraction") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "nil-in-list-fraction"))
            try realm.write { realm.add(Person()) }
            _ = realm.objects(Person.self).filter("dog.age IN {1, 2.5}").count
        }
        expectStop("Expected object of type int in IN clause for property 'dog.age' on object of type 'Person', but received: 2.5", result)
    }

    @Test("nil in the list of an optional property matches the null values")
    func optionalProperty() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "nil-in-list-optional"))
        try realm.write {
            realm.add(Person(value: ["id": 1, "height": 1.5] as [String: Any]))
            realm.add(Person(value: ["id": 2]))
            realm.add(Person(value: ["id": 3, "height": 2.0] as [String: Any]))
        }
        let people = realm.objects(Person.self)
        #expect(people.filter("height IN {nil, 1.5}").map(\.id).sorted() == [1, 2])
        #expect(people.filter("height IN {nil}").map(\.id) == [2])
        #expect(people.filter("NOT height IN {nil}").count == 2)
        #expect(people.where { $0.height.in([nil, 2.0]) }.map(\.id).sorted() == [2, 3])
        #expect(people.filter("anything IN {nil}").count == 3)
    }
}
