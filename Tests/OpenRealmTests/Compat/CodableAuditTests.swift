// CodableAuditTests.swift — the JSON shapes of Realm Swift's CodableTests not covered by
// CodableTests and ModelCodableTests: Decimal128 from numbers and exponent strings and its
// encoded text, optionals inside lists, sets and maps, every value type in sets and maps, enums,
// and nulls for every optional property of a model.

import Foundation
import Testing

import OpenRealm

enum AuditCodableKind: Int, PersistableEnum, Codable {
    case first = 1
    case second = 2
}

final class AuditCodableModel: Object, Codable {
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var uuid: UUID
    @Persisted var kind: AuditCodableKind
    @Persisted var kindOpt: AuditCodableKind?
    @Persisted var boolOpt: Bool?
    @Persisted var floatOpt: Float?
    @Persisted var dateOpt: Date?
    @Persisted var objectIdOpt: ObjectId?
    @Persisted var uuidOpt: UUID?
    @Persisted var intOptList: List<Int?>
    @Persisted var dataOptList: List<Data?>
    @Persisted var decimalOptSet: MutableSet<Decimal128?>
    @Persisted var uuidSet: MutableSet<UUID>
    @Persisted var objectIdSet: MutableSet<ObjectId>
    @Persisted var dataMap: Map<String, Data>
    @Persisted var dateOptMap: Map<String, Date?>
    @Persisted var uuidOptMap: Map<String, UUID?>
}

@Suite("Codable as Realm's CodableTests (the remaining shapes)")
struct CodableAuditTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try #require(try JSONDecoder().decode([T].self, from: Data(json.utf8)).first)
    }

    private func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode([value]), as: UTF8.self)
    }

    @Test("Decimal128 from a JSON number and an exponent string; its text is Realm's (testDecimal)")
    func decimal() throws {
        #expect(try decode(Decimal128.self, "[2.2]") == Decimal128(stringLiteral: "2.2"))
        #expect(try decode(Decimal128.self, #"["1234567890e123"]"#) == Decimal128(stringLiteral: "1234567890e123"))
        #expect(try decode(Decimal128?.self, "[null]") == nil)
        // realm-core keeps the parsed coefficient (1234567890) and prints it with the point moved
        // (README: Realm Swift's newest CodableTests expects "1.23456789E132").
        #expect(try encode(Decimal128(stringLiteral: "1234567890e123")) == #"["1.234567890E132"]"#)
        #expect(try encode(Decimal128(stringLiteral: "1.5e2")) == #"["1.5E2"]"#)
    }

    @Test("optional scalars: values and nulls (testBool, testInt, testFloat, testDouble)")
    func optionalScalars() throws {
        #expect(try decode(Bool?.self, "[true]") == true && (try decode(Bool?.self, "[null]")) == nil)
        #expect(try decode(Int?.self, "[1]") == 1 && (try decode(Int?.self, "[null]")) == nil)
        #expect(try decode(Float?.self, "[2.2]") == Float(2.2) && (try decode(Float?.self, "[null]")) == nil)
        #expect(try decode(Double?.self, "[2.2]") == 2.2 && (try decode(Double?.self, "[null]")) == nil)
        #expect(try encode(Float(2.25)) == "[2.25]" && (try encode(nil as Double?)) == "[null]")
    }

    @Test("a model's sized integers, UUIDs, enums, optionals, sets and maps decode and encode back")
    func modelShapes() throws {
        let input = """
            {"int8": 123, "int16": 123, "int32": 123, "int64": 123,
             "uuid": "00000000-0000-0000-0000-000000000000", "kind": 2, "kindOpt": 1,
             "boolOpt": true, "floatOpt": 2.5, "dateOpt": 2.5, "objectIdOpt": "1234567890abcdef12345678",
             "uuidOpt": "00000000-0000-0000-0000-000000000000",
             "intOptList": [1, null], "dataOptList": ["ZGVm", null], "decimalOptSet": ["1.5e2", null],
             "uuidSet": ["00000000-0000-0000-0000-000000000000"], "objectIdSet": ["1234567890abcdef12345678"],
             "dataMap": {"foo": "ZGVm"}, "dateOptMap": {"foo": 2.5, "bar": null},
             "uuidOptMap": {"foo": "00000000-0000-0000-0000-000000000000"}}
            """
        let model = try JSONDecoder().decode(AuditCodableModel.self, from: Data(input.utf8))
        let zero = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        #expect(model.int8 == 123 && model.int16 == 123 && model.int32 == 123 && model.int64 == 123)
        #expect(model.uuid == zero && model.kind == .second && model.kindOpt == .first)
        #expect(model.boolOpt == true && model.floatOpt == 2.5 && model.dateOpt == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(model.objectIdOpt == ObjectId("1234567890abcdef12345678") && model.uuidOpt == zero)
        #expect(Array(model.intOptList) == [1, nil] && Array(model.dataOptList) == [Data("def".utf8), nil])
        #expect(model.decimalOptSet.count == 2 && model.decimalOptSet.contains(nil))
        #expect(model.decimalOptSet.contains(Decimal128(stringLiteral: "1.5e2")))
        #expect(Array(model.uuidSet) == [zero] && Array(model.objectIdSet) == [ObjectId("1234567890abcdef12345678")])
        #expect(model.dataMap["foo"] == Data("def".utf8))
        #expect(model.dateOptMap.count == 2 && model.dateOptMap["foo"] == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(model.dateOptMap["bar"] == .some(nil))
        #expect(model.uuidOptMap["foo"] == zero)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = String(decoding: try encoder.encode(model), as: UTF8.self)
        let expected = #"{"boolOpt":true,"dataMap":{"foo":"ZGVm"},"dataOptList":["ZGVm",null],"dateOpt":2.5,"#
            + #""dateOptMap":{"bar":null,"foo":2.5},"decimalOptSet":"#
        #expect(encoded.hasPrefix(expected), "\(encoded)")
        #expect(encoded.hasSuffix(#""uuidOptMap":{"foo":"00000000-0000-0000-0000-000000000000"},"#
            + #""uuidSet":["00000000-0000-0000-0000-000000000000"]}"#), "\(encoded)")
        #expect(encoded.contains(#""kind":2,"kindOpt":1,"#), "\(encoded)")
        // The encoded JSON decodes to the same values.
        let again = try JSONDecoder().decode(AuditCodableModel.self, from: Data(encoded.utf8))
        #expect(again.kind == .second && Array(again.intOptList) == [1, nil] && again.dateOptMap["bar"] == .some(nil))
    }

    @Test("null for every optional and missing optional keys decode as nil (testModernObjectNil)")
    func nulls() throws {
        let input = """
            {"int8": 1, "int16": 1, "int32": 1, "int64": 1, "uuid": "00000000-0000-0000-0000-000000000000",
             "kind": 1, "kindOpt": null, "boolOpt": null, "floatOpt": null, "dateOpt": null, "objectIdOpt": null,
             "intOptList": [null], "dataOptList": [null], "decimalOptSet": [null], "uuidSet": [], "objectIdSet": [],
             "dataMap": {}, "dateOptMap": {"foo": null}, "uuidOptMap": {"foo": null}}
            """
        let model = try JSONDecoder().decode(AuditCodableModel.self, from: Data(input.utf8))
        #expect(model.kindOpt == nil && model.boolOpt == nil && model.floatOpt == nil && model.dateOpt == nil)
        #expect(model.objectIdOpt == nil && model.uuidOpt == nil)
        #expect(model.intOptList.first == .some(nil) && model.dataOptList.first == .some(nil))
        #expect(model.decimalOptSet.first == .some(nil))
        #expect(model.dateOptMap["foo"] == .some(nil) && model.uuidOptMap["foo"] == .some(nil))
    }

    @Test("bad input is a DecodingError: a wrong type, an enum value that is no case")
    func badInput() throws {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(AuditCodableModel.self, from: Data(#"{"int8": "x"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([AuditCodableKind].self, from: Data("[7]".utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(List<Int>.self, from: Data(#"{"a": 1}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Map<String, Int>.self, from: Data("[1]".utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([Int8].self, from: Data("[300]".utf8))
        }
    }
}
