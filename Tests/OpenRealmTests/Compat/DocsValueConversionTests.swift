// DocsValueConversionTests.swift — Realm Swift's documented ways of creating an object from
// values (Object(value:) with a dictionary, an array or an object; Realm.create(_:value:);
// Realm.add; setValue(_:forKey:); the subscript), with a property of every value type, and the
// conversions Realm makes (RLMValidateValue) and the values it refuses.

import Foundation
import Testing

import OpenRealm

enum DVCLevel: Int, PersistableEnum { case low = 1, high = 2 }
enum DVCTone: String, PersistableEnum { case warm, cold }

struct DVCCelsius: CustomPersistable, Hashable {
    typealias PersistedType = Double
    var degrees: Double
    init(persistedValue: Double) { degrees = persistedValue }
    var persistableValue: Double { degrees }
}

final class DVCEverything: Object {
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var bool: Bool
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var any: AnyRealmValue
    @Persisted var optInt: Int?
    @Persisted var optBool: Bool?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optDate: Date?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUUID: UUID?
    @Persisted var level: DVCLevel
    @Persisted var optLevel: DVCLevel?
    @Persisted var tone: DVCTone
    @Persisted var celsius: DVCCelsius
    @Persisted var optCelsius: DVCCelsius?
}

/// One value of every property, in declaration order (an array input gives them so).
private var sampleDate: Date { Date(timeIntervalSince1970: 1_700_000_000) }
private var sampleId: ObjectId { ObjectId("6566f1a0c7b3a1d2e3f40516") }
private var sampleUUID: UUID { UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")! }
private var sample: [(String, Any)] { [
    ("int", 1), ("int8", Int8(2)), ("int16", Int16(3)), ("int32", Int32(4)), ("int64", Int64(5)),
    ("bool", true), ("float", Float(1.5)), ("double", 2.5), ("string", "text"), ("data", Data([1, 2])),
    ("date", sampleDate), ("decimal", Decimal128(6)), ("objectId", sampleId), ("uuid", sampleUUID),
    ("any", AnyRealmValue.string("mixed")), ("optInt", 7), ("optBool", false), ("optDouble", 3.5),
    ("optString", "opt"), ("optDate", sampleDate), ("optObjectId", sampleId), ("optUUID", sampleUUID),
    ("level", DVCLevel.high), ("optLevel", DVCLevel.low), ("tone", DVCTone.cold),
    ("celsius", DVCCelsius(persistedValue: 36.6)), ("optCelsius", DVCCelsius(persistedValue: -4)),
] }

/// Whether `object` holds every value of `sample`.
private func expectSample(_ object: DVCEverything, _ path: DocsCreationPath, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(object.int == 1 && object.int8 == 2 && object.int16 == 3 && object.int32 == 4 && object.int64 == 5,
            "\(path)", sourceLocation: sourceLocation)
    #expect(object.bool && object.float == 1.5 && object.double == 2.5, "\(path)", sourceLocation: sourceLocation)
    #expect(object.string == "text" && object.data == Data([1, 2]) && object.date == sampleDate,
            "\(path)", sourceLocation: sourceLocation)
    #expect(object.decimal == Decimal128(6) && object.objectId == sampleId && object.uuid == sampleUUID,
            "\(path)", sourceLocation: sourceLocation)
    #expect(object.any == .string("mixed"), "\(path)", sourceLocation: sourceLocation)
    #expect(object.optInt == 7 && object.optBool == false && object.optDouble == 3.5 && object.optString == "opt",
            "\(path)", sourceLocation: sourceLocation)
    #expect(object.optDate == sampleDate && object.optObjectId == sampleId && object.optUUID == sampleUUID,
            "\(path)", sourceLocation: sourceLocation)
    #expect(object.level == .high && object.optLevel == .low && object.tone == .cold, "\(path)", sourceLocation: sourceLocation)
    #expect(object.celsius.degrees == 36.6 && object.optCelsius?.degrees == -4, "\(path)", sourceLocation: sourceLocation)
}

/// Realm's documented ways of giving an object its values.
enum DocsCreationPath: String, CaseIterable, CustomTestStringConvertible {
    case initDictionary, initArray, initObject, createDictionary, createArray, createObject, add,
         setValueForKey, subscriptManaged
    var testDescription: String { rawValue }

    /// An object of `DVCEverything` given `values` (name and value, in declaration order) this way.
    func make(_ values: [(String, Any)], _ realm: Realm) -> DVCEverything {
        let dictionary = Dictionary(values, uniquingKeysWith: { $1 })
        switch self {
        case .initDictionary: return DVCEverything(value: dictionary)
        case .initArray: return DVCEverything(value: values.map(\.1))
        case .initObject: return DVCEverything(value: DVCEverything(value: dictionary))
        case .createDictionary: return realm.create(DVCEverything.self, value: dictionary)
        case .createArray: return realm.create(DVCEverything.self, value: values.map(\.1))
        case .createObject: return realm.create(DVCEverything.self, value: DVCEverything(value: dictionary))
        case .add:
            let object = DVCEverything(value: dictionary)
            realm.add(object)
            return object
        case .setValueForKey:
            let object = realm.create(DVCEverything.self)
            for (name, value) in values { object.setValue(value, forKey: name) }
            return object
        case .subscriptManaged:
            let object = realm.create(DVCEverything.self)
            for (name, value) in values { object[name] = value }
            return object
        }
    }
}

private func openRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "docs-values-\(UUID().uuidString)"))
}

@Suite("Values of every type through Realm's documented creation paths")
struct DocsValueConversionTests {
    @Test("every value type, given as itself", arguments: DocsCreationPath.allCases)
    func everyType(path: DocsCreationPath) throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        expectSample(path.make(sample, realm), path)
    }

    @Test("optionals take nil and NSNull; the values not given are the defaults", arguments: DocsCreationPath.allCases)
    func optionalsAndDefaults(path: DocsCreationPath) throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let nils: [(String, Any)] = [("optInt", NSNull()), ("optBool", Optional<Bool>.none as Any), ("optDouble", NSNull()),
                                     ("optString", NSNull()), ("optDate", NSNull()), ("optObjectId", NSNull()),
                                     ("optUUID", NSNull()), ("optLevel", NSNull()), ("optCelsius", NSNull())]
        // An array gives every property up to the last one it has: the others of `sample` first.
        let values = path == .initArray || path == .createArray
            ? sample.map { entry in nils.first { $0.0 == entry.0 } ?? entry }
            : nils
        let object = path.make(values, realm)
        #expect(object.optInt == nil && object.optBool == nil && object.optDouble == nil && object.optString == nil)
        #expect(object.optDate == nil && object.optObjectId == nil && object.optUUID == nil)
        #expect(object.optLevel == nil && object.optCelsius == nil)
        if path != .initArray && path != .createArray {
            #expect(object.int == 0 && object.string == "" && object.level == .low && object.tone == .warm)
            #expect(object.any == .none && object.celsius.degrees == 0)
        }
    }

    @Test("the conversions Realm makes", arguments: DocsCreationPath.allCases)
    func conversions(path: DocsCreationPath) throws {
        let realm = try openRealm()
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let converted: [(String, Any)] = [
            ("int", UInt8(9)), ("int8", true), ("int16", Int64(-16)), ("int32", UInt32(32)), ("int64", Int8(-64)),
            ("bool", 1), ("float", 0.75), ("double", Float(0.5)), ("decimal", "12.25"), ("uuid", sampleUUID.uuidString),
            ("any", Int16(5)), ("optInt", Int32(8)), ("optBool", 0), ("optDouble", 4),
            ("level", 2), ("optLevel", 99), ("tone", "cold"), ("celsius", 20.5), ("optCelsius", 3),
        ]
        let values = path == .initArray || path == .createArray
            ? sample.map { entry in converted.first { $0.0 == entry.0 } ?? entry }
            : converted
        let object = path.make(values, realm)
        #expect(object.int == 9 && object.int8 == 1 && object.int16 == -16 && object.int32 == 32 && object.int64 == -64)
        #expect(object.bool && object.float == 0.75 && object.double == 0.5)
        #expect(object.decimal == Decimal128(value: 12.25) && object.uuid == sampleUUID)
        #expect(object.any == .int(5) && object.optInt == 8 && object.optBool == false && object.optDouble == 4)
        // A raw value no case has reads as nil in an optional enum, as Realm.
        #expect(object.level == .high && object.optLevel == nil && object.tone == .cold)
        #expect(object.celsius.degrees == 20.5 && object.optCelsius?.degrees == 3)
    }

    @Test("Decimal128 from an integer, a double and a Decimal128; AnyRealmValue from plain values")
    func decimalAndMixed() {
        #expect(DVCEverything(value: ["decimal": 3]).decimal == Decimal128(3))
        #expect(DVCEverything(value: ["decimal": 2.5]).decimal == Decimal128(value: 2.5))
        #expect(DVCEverything(value: ["any": "s"]).any == .string("s"))
        #expect(DVCEverything(value: ["any": 2.5]).any == .double(2.5))
        #expect(DVCEverything(value: ["any": sampleId]).any == .objectId(sampleId))
        #expect(DVCEverything(value: ["any": NSNull()]).any == .none)
    }
}

@Suite("Values Realm refuses stop with its message")
struct DocsValueRefusalTests {
    @Test("a number for a string property")
    func numberForString() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = DVCEverything(value: ["string": 5])
        }
        expectStop("Invalid value '5' of type 'Int' for 'string' property 'DVCEverything.string'.", result)
    }

    @Test("a string for a date property")
    func stringForDate() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DVCEverything().setValue("2024-01-01", forKey: "date")
        }
        expectStop("Invalid value '2024-01-01' of type 'String' for 'date' property 'DVCEverything.date'.", result)
    }

    @Test("a string that is no UUID for a uuid property")
    func badUUIDString() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = DVCEverything(value: ["uuid": "not a uuid"])
        }
        expectStop("Invalid value 'not a uuid' of type 'String' for 'uuid' property 'DVCEverything.uuid'.", result)
    }

    @Test("a Double for a data property")
    func doubleForData() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            DVCEverything()["data"] = 1.5
        }
        expectStop("Invalid value '1.5' of type 'Double' for 'data' property 'DVCEverything.data'.", result)
    }

    @Test("more values than properties in an array")
    func tooManyValues() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog(value: ["Rex", 3, "extra"])
        }
        expectStop("Invalid array input: more values (3) than properties (2).", result)
    }
}
