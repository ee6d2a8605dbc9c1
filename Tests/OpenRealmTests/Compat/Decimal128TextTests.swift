// Decimal128TextTests.swift — Decimal128's stringValue, description and Codable string in Realm's
// form (realm-core's Decimal128::to_string): positional while the point can absorb the exponent,
// else one digit before the point and an unsigned-when-positive exponent; coefficients wider
// than 64 bits in IEEE 754's signed form.

import Foundation
import Testing

import OpenRealm

@Suite("Decimal128 text as Realm prints it")
struct Decimal128TextTests {
    /// (text parsed, keeping its coefficient and exponent; what Realm prints).
    static let cases: [(String, String)] = [
        // Exponent 0: the coefficient's digits.
        ("0", "0"), ("-0", "-0"), ("1", "1"), ("-7", "-7"), ("10", "10"), ("150", "150"),
        ("1234567890123456789", "1234567890123456789"),
        ("18446744073709551615", "18446744073709551615"),
        // Negative exponent absorbed by the point: positional.
        ("1.5", "1.5"), ("1.23", "1.23"), ("12.345", "12.345"), ("-12.500", "-12.500"),
        ("100E-2", "1.00"), ("19.99", "19.99"), ("-0.5E1", "-5"),
        // Negative exponent left over: one digit before the point, E and the exponent.
        ("0.1", "1E-1"), ("0.15", "1.5E-1"), ("0.25", "2.5E-1"), ("-0.01", "-1E-2"),
        ("123E-5", "1.23E-3"), ("0.000001", "1E-6"), ("0.00", "0E-2"), ("1E-6176", "1E-6176"),
        // Positive exponent: the point moves left too, and the exponent grows (no '+').
        ("1E1", "1E1"), ("15E1", "1.5E2"), ("1.2e40", "1.2E40"), ("1.00E3", "1.00E3"),
        ("0E3", "0E3"), ("-25E3", "-2.5E4"), ("1E6111", "1E6111"),
        // Past the largest exponent the coefficient takes zeros (1E6144 is 10^33 E6111): wide.
        ("1E6144", "+1000000000000000000000000000000000E+6111"),
        // A coefficient beyond 64 bits: sign, digits, E, signed exponent.
        ("18446744073709551616", "+18446744073709551616E+0"),
        ("-18446744073709551616E-2", "-18446744073709551616E-2"),
        ("123456789012345678901234567890", "+123456789012345678901234567890E+0"),
        ("-1.234567890123456789012345678901234E+100", "-1234567890123456789012345678901234E+67"),
        ("9.999999999999999999999999999999999E+6144", "+9999999999999999999999999999999999E+6111"),
        // Special values.
        ("Inf", "Inf"), ("-Infinity", "-Inf"), ("NaN", "NaN"),
    ]

    @Test("a table of values prints as realm-core's to_string", arguments: cases)
    func printsAsRealm(text: String, printed: String) throws {
        let value = try Decimal128(string: text)
        #expect(value.stringValue == printed)
        #expect(value.description == printed)
        #expect(String(describing: value) == printed)
        if !value.isNaN {
            #expect(try Decimal128(string: printed) == value, "Realm's text parses back to the same value")
        }
    }

    @Test("the printed form follows the rule for every digit count and exponent from -40 to 40")
    func rule() throws {
        for digits in ["1", "12", "123", "1234567", "999999999999999999"] {
            for exponent in -40...40 {
                let value = try Decimal128(string: "\(digits)E\(exponent)")
                // The rule: move the point left while digits remain before it and the exponent is
                // not 0, raising the exponent by one each time.
                var before = digits.count, left = exponent
                while before > 1 && left != 0 { before -= 1; left += 1 }
                var expected = String(digits.prefix(before))
                if before < digits.count { expected += "." + digits.dropFirst(before) }
                if left != 0 { expected += "E\(left)" }
                #expect(value.stringValue == expected, "\(digits)E\(exponent)")
                #expect((-value).stringValue == "-" + expected)
            }
        }
    }

    @Test("a negative NaN prints -NaN; arithmetic results print their representation")
    func computed() throws {
        #expect((-Decimal128(stringLiteral: "NaN")).stringValue == "-NaN")
        let price: Decimal128 = "19.99"
        #expect((price + "0.01").stringValue == "20.00")
        #expect((Decimal128(1) / 4).stringValue == "2.5E-1")
        #expect(Decimal128(100).stringValue == "100")
    }

    @Test("Codable encodes Realm's text, and decodes it back")
    func codable() throws {
        let values = try ["15E1", "0.1", "-0.00", "18446744073709551616"].map { try Decimal128(string: $0) }
        let json = String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
        #expect(json == #"["1.5E2","1E-1","-0E-2","+18446744073709551616E+0"]"#)
        #expect(try JSONDecoder().decode([Decimal128].self, from: Data(json.utf8)) == values)
    }
}
