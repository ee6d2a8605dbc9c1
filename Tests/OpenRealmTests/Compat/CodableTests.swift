// CodableTests.swift — Codable of Decimal128, ObjectId, List, MutableSet and Map in Realm's JSON
// shapes: round trips, and decoding of JSON shaped as Realm Swift writes it.

import Foundation
import Testing

import OpenRealm

private struct Holder: Codable {
    var decimal: Decimal128
    var id: ObjectId
    var names: List<String>
    var tags: MutableSet<Int>
    var scores: Map<String, Double>
}

@Suite("Codable in Realm's shapes")
struct CodableTests {
    @Test("Realm-shaped JSON decodes; encoding gives the same shape back")
    func roundTrip() throws {
        let json = #"{"decimal":"1.5","id":"6054d1f5e5f8a2b3c4d5e6f7","names":["a","b"],"tags":[3],"scores":{"math":90.5}}"#
        let holder = try JSONDecoder().decode(Holder.self, from: Data(json.utf8))
        #expect(holder.decimal == Decimal128(number: 1.5))
        #expect(holder.id == ObjectId("6054d1f5e5f8a2b3c4d5e6f7"))
        #expect(Array(holder.names) == ["a", "b"] && Array(holder.tags) == [3] && holder.scores["math"] == 90.5)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = String(decoding: try encoder.encode(holder), as: UTF8.self)
        #expect(encoded == #"{"decimal":"1.5","id":"6054d1f5e5f8a2b3c4d5e6f7","names":["a","b"],"scores":{"math":90.5},"tags":[3]}"#)
        let again = try JSONDecoder().decode(Holder.self, from: Data(encoded.utf8))
        #expect(again.decimal == holder.decimal && again.id == holder.id && Array(again.names) == ["a", "b"])
    }

    @Test("Decimal128 decodes numbers too; bad values are decoding errors")
    func decimalShapes() throws {
        let values = try JSONDecoder().decode([Decimal128].self, from: Data(#"["1E+3", 2, 2.5]"#.utf8))
        #expect(values == [Decimal128(1000), Decimal128(2), Decimal128(number: 2.5)])
        #expect(throws: (any Error).self) { try JSONDecoder().decode([Decimal128].self, from: Data(#"[true]"#.utf8)) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode([ObjectId].self, from: Data(#"["xyz"]"#.utf8)) }
    }

    @Test("managed collections encode their elements")
    func managedCollections() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "codable-\(UUID().uuidString)"))
        let person = Person(value: ["id": 1, "nicknames": ["x", "y"], "scores": ["art": 3]])
        try realm.write { realm.add(person) }
        #expect(String(decoding: try JSONEncoder().encode(person.nicknames), as: UTF8.self) == #"["x","y"]"#)
        #expect(String(decoding: try JSONEncoder().encode(person.scores), as: UTF8.self) == #"{"art":3}"#)
    }
}
