// ObjectCreationMessageTests.swift — the values init(value:) and create(_:value:) refuse stop with
// Realm's messages (RLMAccessorContext::createObject, RLMValidatedValueForProperty).

import Foundation
import Testing

import OpenRealm

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
}
