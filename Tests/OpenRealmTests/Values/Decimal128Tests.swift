// Decimal128Tests.swift — Decimal128 parses, prints, orders, hashes and computes as the engine does
// (cengine.h, ce_decimal128_*): a decimal made in Swift and one typed into a query read the same.

import Foundation
import Testing

import OpenRealm

@Suite("Decimal128 through the engine")
struct Decimal128Tests {
    @Test("text in and out keeps the representation: 1.50 stays 1.50, other values as Realm prints them (Decimal128+Text)")
    func text() throws {
        for (text, printed) in [
            ("1.50", "1.50"), ("-12.500", "-12.500"), ("  42 ", "42"), ("0.000001", "1E-6"),
            ("0.0000001", "1E-7"), ("1.2e40", "1.2E40"), ("-0", "-0"), ("nan", "NaN"), ("-Infinity", "-Inf"),
            ("1.23456789012345678901234567890123456", "+1234567890123456789012345678901235E-33"),
        ] {
            #expect(try Decimal128(string: text).stringValue == printed)
        }
        for invalid in ["", "abc", "1e", "1.2.3", "1_000", "1\u{0}2", "0x10"] {
            #expect(throws: Realm.Error.self) { _ = try Decimal128(string: invalid) }
            #expect(Decimal128(stringLiteral: invalid).isNaN)
        }
        #expect(Decimal128(42).stringValue == "42")
        #expect(Decimal128(Int.min).stringValue == "-9223372036854775808")
        #expect(Decimal128(number: 0.1).stringValue == "1.00000000000000E-1")
        #expect(Decimal128(number: 1e-7).stringValue == "1.00000000000000E-7")
    }

    @Test("order and equality by value; NaN equals nothing; equal values hash equally")
    func order() throws {
        let values = try ["-Inf", "-2", "-1.5", "0", "0.1", "1", "1E+40", "Inf"].map { try Decimal128(string: $0) }
        for (i, a) in values.enumerated() {
            for (j, b) in values.enumerated() {
                #expect((a < b) == (i < j))
                #expect((a == b) == (i == j))
            }
        }
        let one = try Decimal128(string: "1"), same = try Decimal128(string: "1.000"), other = try Decimal128(string: "10E-1")
        #expect(one == same && same == other)
        #expect(Set([one, same, other]).count == 1)
        #expect(try Decimal128(string: "0") == Decimal128(string: "-0.00"))
        let nan = Decimal128(stringLiteral: "NaN")
        #expect(nan != nan)
        #expect(!(nan < one) && !(one < nan))
    }

    @Test("arithmetic as IEEE 754 rounded to 34 digits; dividing by zero gives NaN")
    func arithmetic() throws {
        let price: Decimal128 = "19.99"
        #expect((price * 3).stringValue == "59.97")
        #expect((price + "0.01").stringValue == "20.00")
        #expect((price - 20).stringValue == "-1E-2")
        #expect((Decimal128(2) / 3).stringValue == "+6666666666666666666666666666666667E-34")
        #expect((Decimal128(1) / 4).stringValue == "2.5E-1")
        // 34 digits also for quotients far below 1.
        #expect((Decimal128(91000) / Decimal128(60230321162)).stringValue == "+1510866922911461130820526372540414E-39")
        #expect((Decimal128(1) / 0).isNaN)
        #expect((Decimal128(0) / 0).isNaN)
        let infinity: Decimal128 = "Inf"
        #expect((infinity + 1) == infinity)
        #expect((infinity - infinity).isNaN)
        #expect((try Decimal128(string: "1E+200") * Decimal128(string: "1E+200")).stringValue == "1E400")
        #expect((-price).magnitude == price)
    }
}
