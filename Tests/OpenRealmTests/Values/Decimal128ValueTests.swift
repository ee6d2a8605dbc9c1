// Decimal128ValueTests.swift — Decimal128(value:) as Realm Swift declares it: not failable, the
// types it converts, and the fatal error for the others.

import Foundation
import Testing

import OpenRealm

@Suite("Decimal128(value:) as Realm's")
struct Decimal128ValueTests {
    // Realm's Decimal128.init(value:): "The following types can be converted to Decimal128:
    // Int (of any size), Float, Double, String, NSNumber, Decimal".
    @Test("converts integers of any size, Float, Double, String, NSNumber, Decimal")
    func conversions() throws {
        #expect(Decimal128(value: 3).stringValue == "3")
        #expect(Decimal128(value: Int8(-4)) == Decimal128(-4))
        #expect(Decimal128(value: UInt64.max) == (try Decimal128(string: "18446744073709551615")))
        #expect(Decimal128(value: 1.5) == Decimal128(number: 1.5))
        #expect(Decimal128(value: Float(0.25)) == Decimal128(number: 0.25))
        #expect(Decimal128(value: "12.5") == Decimal128(number: 12.5))
        #expect(Decimal128(value: NSNumber(value: 7)) == Decimal128(7))
        #expect(Decimal128(value: try #require(Decimal(string: "2.75"))) == Decimal128(number: 2.75))
        #expect(Decimal128(value: Decimal128(9)) == Decimal128(9))
    }

    // "Passing a value with a type not in this list is a fatal error. Passing a string which
    // cannot be parsed as a valid Decimal128 is a fatal error."
    @Test("another type is a fatal error")
    func otherType() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Decimal128(value: Date(timeIntervalSince1970: 0))
        }
        expectStop("to decimal128", result)
    }

    @Test("a string that is not a decimal is a fatal error")
    func badString() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Decimal128(value: "twelve")
        }
        expectStop("Cannot convert value 'twelve' of type 'String' to decimal128", result)
    }
}
