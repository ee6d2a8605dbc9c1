// ObjectCreationMessageTests.swift — the values init(value:) and create(_:value:) refuse stop with
// Realm's messages (RLMAccessorContext::createObject, RLMValidatedValueForProperty).

import Foundation
import Testing

import OpenRealm

final class CreationSourceCat: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var colour: String
}

final class CreationTargetPet: Object {
    @Persisted var name: String
    @Persisted var age: Int
}

final class CreationTargetTagged: Object {
    @Persisted var name: String
    @Persisted var tag: String
}

@Suite("Object creation messages")
struct ObjectCreationMessageTests {
    @Test("init(value: NSNull()) stops: a value is required")
    func nullValue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog(value: NSNull())
        }
        expectStop("Must provide a non-nil value.", result)
    }

    @Test("create(_:value: NSNull()) stops: a value is required")
    func createNullValue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "creation-null"))
            try realm.write { _ = realm.create(Dog.self, value: NSNull()) }
        }
        expectStop("Must provide a non-nil value.", result)
    }

    @Test("a value that is no object, dictionary or array lacks the first property's key")
    func scalarValue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog(value: 5)
        }
        expectStop("Invalid value '5' to initialize object of type 'Dog': missing key 'name'", result)
    }

    @Test("an object of another class with every property of this one gives their values")
    func otherClassWithEveryProperty() {
        let cat = CreationSourceCat(value: ["name": "Tom", "age": 3, "colour": "grey"])
        let pet = CreationTargetPet(value: cat)
        #expect(pet.name == "Tom" && pet.age == 3)
    }

    @Test("an object of another class that lacks a property stops with missing key")
    func otherClassLackingAProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let cat = CreationSourceCat(value: ["name": "Tom"])
            _ = CreationTargetTagged(value: cat)
        }
        expectStop("to initialize object of type 'CreationTargetTagged': missing key 'tag'", result)
    }
}
