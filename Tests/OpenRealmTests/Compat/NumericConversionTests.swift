// NumericConversionTests.swift — the numbers a property takes from a loosely typed value, as
// Realm's RLMValidateValue decides: integers of any width and Bool for int properties, 0/1 for
// bool properties, doubles within Float's range for float properties, no whole doubles for ints.

import Foundation
import Testing

import OpenRealm

/// The ways a loosely typed value reaches a property.
enum NumericPath: String, CaseIterable, CustomTestStringConvertible {
    case initValue, create, setValueForKey, subscriptManaged
    var testDescription: String { rawValue }
}

/// Sets `value` to the property `key` of an AllTypes object through `path`, and returns the
/// object (managed for every path but `initValue`).
private func allTypes(_ key: String, _ value: Any, _ path: NumericPath, _ realm: Realm) -> AllTypes {
    switch path {
    case .initValue: return AllTypes(value: [key: value])
    case .create: return realm.create(AllTypes.self, value: [key: value])
    case .setValueForKey:
        let object = realm.create(AllTypes.self)
        object.setValue(value, forKey: key)
        return object
    case .subscriptManaged:
        let object = realm.create(AllTypes.self)
        object[key] = value
        return object
    }
}

@Suite("Numbers from loosely typed values, as Realm")
struct NumericConversionTests {
    @Test("an int property takes integers of any width and Bool", arguments: NumericPath.allCases)
    func intTakesEveryInteger(path: NumericPath) throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "numeric-\(UUID().uuidString)"))
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let given: [(Any, Int)] = [(Int8(-8), -8), (Int16(16), 16), (Int32(-32), -32), (Int64(1 << 40), 1 << 40),
                                   (UInt8(200), 200), (UInt16(60000), 60000), (UInt32(4_000_000_000), 4_000_000_000),
                                   (UInt64(7), 7), (UInt(9), 9), (true, 1), (false, 0)]
        for (value, expected) in given {
            #expect(allTypes("int", value, path, realm).int == expected, "\(type(of: value)) \(value)")
            #expect(allTypes("int64", value, path, realm).int64 == Int64(expected), "\(type(of: value)) \(value)")
            #expect(allTypes("optInt", value, path, realm).optInt == expected, "\(type(of: value)) \(value)")
        }
        #expect(allTypes("int8", Int(-100), path, realm).int8 == -100)
        #expect(allTypes("int16", UInt8(255), path, realm).int16 == 255)
        #expect(allTypes("int32", true, path, realm).int32 == 1)
    }

    @Test("a bool property takes Bool and the integers 0 and 1", arguments: NumericPath.allCases)
    func boolTakesZeroAndOne(path: NumericPath) throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "numeric-\(UUID().uuidString)"))
        realm.beginWrite()
        defer { realm.cancelWrite() }
        #expect(allTypes("bool", true, path, realm).bool == true)
        #expect(allTypes("bool", 1, path, realm).bool == true)
        #expect(allTypes("bool", Int8(1), path, realm).bool == true)
        #expect(allTypes("bool", UInt64(0), path, realm).bool == false)
        #expect(allTypes("optBool", 0, path, realm).optBool == false)
        #expect(allTypes("optBool", 1, path, realm).optBool == true)
    }

    @Test("float and double properties take integers, floats and doubles", arguments: NumericPath.allCases)
    func floatingPointTakesNumbers(path: NumericPath) throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "numeric-\(UUID().uuidString)"))
        realm.beginWrite()
        defer { realm.cancelWrite() }
        #expect(allTypes("float", 2.5, path, realm).float == 2.5)
        #expect(allTypes("float", Double(Float.greatestFiniteMagnitude), path, realm).float == .greatestFiniteMagnitude)
        #expect(allTypes("float", Double.nan, path, realm).float.isNaN)
        #expect(allTypes("float", Int16(-3), path, realm).float == -3)
        #expect(allTypes("float", UInt64.max, path, realm).float == Float(UInt64.max))
        #expect(allTypes("optFloat", Float(1.5), path, realm).optFloat == 1.5)
        #expect(allTypes("double", Float(0.5), path, realm).double == 0.5)
        #expect(allTypes("double", Int32(7), path, realm).double == 7)
        #expect(allTypes("double", 1e300, path, realm).double == 1e300)
        #expect(allTypes("optDouble", UInt8(3), path, realm).optDouble == 3)
    }

    @Test("a mixed property takes a number of any width")
    func mixedTakesEveryNumber() {
        #expect(Person(value: ["anything": Int8(5)]).anything == .int(5))
        #expect(Person(value: ["anything": UInt32(6)]).anything == .int(6))
        #expect(Person(value: ["anything": Float(1.5)]).anything == .float(1.5))
        #expect(Person(value: ["anything": true]).anything == .bool(true))
    }
}

@Suite("Numbers a property refuses stop with Realm's message")
struct NumericRefusalTests {
    @Test("a whole Double for an int property (init(value:))")
    func wholeDoubleForIntInit() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AllTypes(value: ["int": 3.0])
        }
        expectStop("Invalid value '3.0' of type 'Double' for 'int' property 'AllTypes.int'.", result)
    }

    @Test("a whole Double for an int property (create(_:value:))")
    func wholeDoubleForIntCreate() async {
        removeInMemoryRealm("openrealm-exit-wholeDoubleForIntCreate")
        defer { removeInMemoryRealm("openrealm-exit-wholeDoubleForIntCreate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-wholeDoubleForIntCreate"))
            try realm.write { _ = realm.create(AllTypes.self, value: ["optInt": 4.0]) }
        }
        expectStop("Invalid value '4.0' of type 'Double' for 'int?' property 'AllTypes.optInt'.", result)
    }

    @Test("a whole Double for an int property (setValue(_:forKey:), managed)")
    func wholeDoubleForIntSetValue() async {
        removeInMemoryRealm("openrealm-exit-wholeDoubleForIntSetValue")
        defer { removeInMemoryRealm("openrealm-exit-wholeDoubleForIntSetValue") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-wholeDoubleForIntSetValue"))
            try realm.write { realm.create(AllTypes.self).setValue(Float(2), forKey: "int64") }
        }
        expectStop("Invalid value '2.0' of type 'Float' for 'int' property 'AllTypes.int64'.", result)
    }

    @Test("an integer other than 0 and 1 for a bool property")
    func twoForBool() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            AllTypes().setValue(2, forKey: "bool")
        }
        expectStop("Invalid value '2' of type 'Int' for 'bool' property 'AllTypes.bool'.", result)
    }

    @Test("a Double beyond Float's range for a float property")
    func doubleBeyondFloat() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AllTypes(value: ["float": 1e300])
        }
        expectStop("Invalid value '1e+300' of type 'Double' for 'float' property 'AllTypes.float'.", result)
    }

    @Test("a Bool for a double property")
    func boolForDouble() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            AllTypes()["double"] = true
        }
        expectStop("Invalid value 'true' of type 'Bool' for 'double' property 'AllTypes.double'.", result)
    }

    @Test("an integer beyond an Int8 property's range")
    func integerBeyondInt8() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AllTypes(value: ["int8": 300])
        }
        expectStop("Invalid value '300' of type 'Int' for 'int' property 'AllTypes.int8'.", result)
    }
}
