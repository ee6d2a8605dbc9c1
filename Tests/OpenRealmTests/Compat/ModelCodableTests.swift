// ModelCodableTests.swift — Codable of Object and EmbeddedObject models as Realm Swift has it:
// synthesised through @Persisted, decoding unmanaged objects in Realm's JSON shapes, encoding
// unmanaged objects, Realm's EncodingError for managed ones.

import Foundation
import Testing

import OpenRealm

final class CodableScalars: Object, Codable {
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var bool: Bool
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var stringOpt: String?
    @Persisted var dataOpt: Data?
    @Persisted var intOpt: Int?
    @Persisted var decimalOpt: Decimal128?
    @Persisted var intList: List<Int>
    @Persisted var stringOptList: List<String?>
    @Persisted var dateSet: MutableSet<Date>
    @Persisted var decimalMap: Map<String, Decimal128>
}

final class CodableToy: EmbeddedObject, Codable {
    @Persisted var kind: String
}

final class CodableDog: Object, Codable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age = 3
    @Persisted var toy: CodableToy?
}

final class CodableOwner: Object, Codable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var dog: CodableDog?
    @Persisted var dogs: List<CodableDog>
    @Persisted var nickname: String?
}

@Suite("Codable models as Realm Swift")
struct ModelCodableTests {
    private func realm() throws -> Realm {
        try Realm(configuration: .init(
            inMemoryIdentifier: "model-codable-\(UUID().uuidString)",
            objectTypes: [CodableScalars.self, CodableToy.self, CodableDog.self, CodableOwner.self]))
    }

    private func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("Realm's JSON decodes into an unmanaged object; encoding gives Realm's shapes")
    func scalarsRoundTrip() throws {
        let input = """
            {"string": "abc", "data": "ZGVm", "date": 2.5, "int": 123, "int8": 123, "float": 2.5, "double": 2.5,
             "bool": true, "decimal": "1.5e2", "objectId": "1234567890abcdef12345678",
             "uuid": "00000000-0000-0000-0000-000000000000", "stringOpt": "abc", "dataOpt": "ZGVm",
             "intOpt": 123, "decimalOpt": "1.5e2", "intList": [1, 2], "stringOptList": ["a", null],
             "dateSet": [2.5], "decimalMap": {"foo": "1.5e2"}}
            """
        let object = try JSONDecoder().decode(CodableScalars.self, from: Data(input.utf8))
        #expect(object.realm == nil)
        #expect(object.string == "abc" && object.data == Data("def".utf8) && object.int == 123 && object.int8 == 123)
        #expect(object.date == Date(timeIntervalSinceReferenceDate: 2.5) && object.float == 2.5 && object.bool)
        #expect(object.decimal == Decimal128(number: 150) && object.objectId == ObjectId("1234567890abcdef12345678"))
        #expect(object.stringOpt == "abc" && object.dataOpt == Data("def".utf8) && object.intOpt == 123)
        #expect(Array(object.intList) == [1, 2] && Array(object.stringOptList) == ["a", nil])
        #expect(Array(object.dateSet) == [Date(timeIntervalSinceReferenceDate: 2.5)] && object.decimalMap["foo"] == Decimal128(number: 150))
        // Realm's shapes: a required Data encodes through Data's own encode(to:) (an array of
        // bytes), an optional one as base64; Decimal128 as its stringValue.
        let decimal = object.decimal.stringValue
        let expected = #"{"bool":true,"data":[100,101,102],"dataOpt":"ZGVm","date":2.5,"dateSet":[2.5],"decimal":""#
            + decimal + #"","decimalMap":{"foo":""# + decimal + #""},"decimalOpt":""# + decimal
            + #"","double":2.5,"float":2.5,"int":123,"int8":123,"intList":[1,2],"#
            + #""intOpt":123,"objectId":"1234567890abcdef12345678","string":"abc","stringOpt":"abc","stringOptList":["a",null],"#
            + #""uuid":"00000000-0000-0000-0000-000000000000"}"#
        let encoded = try json(object)
        #expect(encoded == expected)
    }

    @Test("missing optional keys decode as nil, null as the default; a missing required key throws")
    func missingKeys() throws {
        let dog = try JSONDecoder().decode(CodableDog.self, from: Data(#"{"id": 1, "name": null, "age": 4}"#.utf8))
        #expect(dog.id == 1 && dog.name == "" && dog.age == 4 && dog.toy == nil)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CodableDog.self, from: Data(#"{"id": 1, "age": 4}"#.utf8))
        }
        // An optional property encodes its nil (the wrapper is encoded, not the optional).
        let encoded = try json(CodableDog())
        #expect(encoded == #"{"age":3,"id":0,"name":"","toy":null}"#)
    }

    @Test("decoded objects with links, lists and embedded objects are added and read back")
    func decodedGraphAdded() throws {
        let input = """
            {"id": 1, "name": "Ann", "dog": {"id": 10, "name": "Rex", "age": 5, "toy": {"kind": "ball"}},
             "dogs": [{"id": 11, "name": "Fido", "age": 2}, {"id": 12, "name": "Spot", "age": 7}]}
            """
        let owner = try JSONDecoder().decode(CodableOwner.self, from: Data(input.utf8))
        #expect(owner.nickname == nil && owner.dog?.toy?.kind == "ball" && owner.dogs.map(\.name) == ["Fido", "Spot"])
        let realm = try realm()
        try realm.write { realm.add(owner) }
        // Each property reads its own column once managed (decoded wrappers get their position
        // in the class when the object is added).
        #expect(owner.id == 1 && owner.name == "Ann" && owner.nickname == nil)
        #expect(owner.dog?.name == "Rex" && owner.dog?.age == 5 && owner.dog?.toy?.kind == "ball")
        #expect(owner.dogs.map(\.age) == [2, 7])
        let stored = try #require(realm.object(ofType: CodableDog.self, forPrimaryKey: 12))
        #expect(stored.name == "Spot" && stored.age == 7)
        try realm.write { owner.name = "Bea"; owner.dog?.age = 6 }
        #expect(realm.objects(CodableOwner.self).first?.name == "Bea" && realm.object(ofType: CodableDog.self, forPrimaryKey: 10)?.age == 6)
    }

    @Test("a managed object does not encode: Realm's EncodingError")
    func managedEncodingThrows() throws {
        let dog = try JSONDecoder().decode(CodableDog.self, from: Data(#"{"id": 1, "name": "Rex", "age": 3}"#.utf8))
        let unmanaged = try json(dog)
        #expect(unmanaged == #"{"age":3,"id":1,"name":"Rex","toy":null}"#)
        let realm = try realm()
        try realm.write { realm.add(dog) }
        for object in [dog, try #require(realm.objects(CodableDog.self).first)] {
            do {
                _ = try JSONEncoder().encode(object)
                Issue.record("a managed object encoded")
            } catch EncodingError.invalidValue(_, let context) {
                #expect(context.debugDescription == "Only unmanaged Realm objects can be encoded using automatic Codable synthesis. You must explicitly define encode(to:) on your model class to support managed Realm objects.")
            }
        }
        // An unmanaged copy encodes again.
        let copy = try json(CodableDog(value: dog))
        #expect(copy == #"{"age":3,"id":1,"name":"Rex","toy":null}"#)
    }
}
