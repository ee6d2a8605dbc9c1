// ArrayInputTests.swift — an array given as an object's value, as Realm: values in property
// order, fewer values than properties leave the rest at their defaults (in embedded objects and
// lists of them too), more values stop with Realm's message.

import Foundation
import Testing

import OpenRealm

@Suite("Array input with fewer values than properties, as Realm")
struct ArrayInputTests {
    @Test("Object(value:) and create(_:value:) keep the defaults of the properties not given",
          arguments: [false, true])
    func fewerValuesKeepDefaults(managed: Bool) throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "array-input-\(UUID().uuidString)"))
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let person = managed ? realm.create(Person.self, value: [1, "Ann"]) : Person(value: [1, "Ann"])
        #expect(person.id == 1 && person.name == "Ann")
        #expect(person.age == 18 && person.height == nil && person.address == nil && person.addresses.isEmpty)
        #expect(person.mood == .happy)
    }

    @Test("an embedded object and a list of them from short arrays", arguments: [false, true])
    func embeddedFromShortArrays(managed: Bool) throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "array-input-\(UUID().uuidString)"))
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let value: [Any] = [1, "t", ["square", [4], [[5], [6, 8]]], [["circle"]]]
        let drawing = managed ? realm.create(UpdDrawing.self, value: value) : UpdDrawing(value: value)
        let shape = try #require(drawing.shape)
        #expect(shape.name == "square")
        #expect(shape.origin?.x == 4 && shape.origin?.y == 7)
        #expect(shape.points.map(\.x) == [5, 6] && shape.points.map(\.y) == [7, 8])
        #expect(drawing.shapes.count == 1)
        #expect(drawing.shapes.first?.name == "circle" && drawing.shapes.first?.origin == nil)
        #expect(drawing.shapes.first?.points.isEmpty == true)
    }

    @Test("more values than properties in an embedded object's array")
    func tooManyValuesEmbedded() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = UpdDrawing(value: [1, "t", ["square", [1, 2, 3]]])
        }
        expectStop("Invalid array input: more values (3) than properties (2).", result)
    }
}
