// Decimal128NumberTests.swift — Decimal128(number:), float literals and Decimal128(value:) as
// Realm converts numbers: realm-core's Decimal128(double) keeps a double's exact value when it
// has at most 15 significant digits and rounds it (half to even) to 15 otherwise; negate() in
// place; Realm's null decimal from NSNull.

import Foundation
import Testing

import OpenRealm

@Suite("Decimal128 from numbers, as Realm")
struct Decimal128NumberTests {
    @Test("a double whose value needs more than 15 digits is rounded to 15 significant digits")
    func inexactDoubles() {
        for (value, printed) in [
            (0.1, "1.00000000000000E-1"), (-0.1, "-1.00000000000000E-1"), (1e-7, "1.00000000000000E-7"),
            (1.0 / 3, "3.33333333333333E-1"), (2.0 / 3, "6.66666666666667E-1"), (3.14159, "3.14159000000000"),
            (123.321, "123.321000000000"), (6.28888, "6.28888000000000"),
            (Double.greatestFiniteMagnitude, "1.79769313486232E308"), (Double.leastNonzeroMagnitude, "4.94065645841247E-324"),
            (Double.leastNormalMagnitude, "2.22507385850720E-308"), (1e300, "1.00000000000000E300"),
            // Exact, but its coefficient (10^22, exponent 0) has more than 15 digits.
            (1e22, "1.00000000000000E22"),
        ] {
            #expect(Decimal128(number: NSNumber(value: value)).stringValue == printed, "\(value)")
        }
    }

    @Test("a double whose exact value has at most 15 digits keeps it")
    func exactDoubles() {
        for (value, printed) in [
            (2.5, "2.5"), (0.5, "5E-1"), (1.5, "1.5"), (-1.5, "-1.5"), (0.05078125, "5.078125E-2"), (1.0, "1"),
            (1000.0, "1000"), (1e15 - 1, "999999999999999"),
        ] {
            #expect(Decimal128(number: NSNumber(value: value)).stringValue == printed, "\(value)")
        }
    }

    @Test("rounding to 15 digits is half to even; 16 digits after the estimate round again")
    func halfToEven() {
        #expect(Decimal128(number: 100000000000000.5).stringValue == "100000000000000")
        #expect(Decimal128(number: 100000000000001.5).stringValue == "100000000000002")
        #expect(Decimal128(number: 1000000000000002.5).stringValue == "1.00000000000000E15")
        #expect(Decimal128(number: 0.99999999999999999).stringValue == "1")
    }

    @Test("zeros, infinities and NaN")
    func specialValues() {
        #expect(Decimal128(number: 0.0).stringValue == "0")
        #expect(Decimal128(number: -0.0).stringValue == "-0")
        #expect(Decimal128(number: NSNumber(value: Double.infinity)).stringValue == "Inf")
        #expect(Decimal128(number: NSNumber(value: -Double.infinity)).stringValue == "-Inf")
        #expect(Decimal128(number: NSNumber(value: Double.nan)).isNaN)
    }

    @Test("integers, floats and booleans as NSNumbers")
    func otherNumbers() {
        #expect(Decimal128(number: 42).stringValue == "42")
        #expect(Decimal128(number: NSNumber(value: Int64.min)).stringValue == "-9223372036854775808")
        #expect(Decimal128(number: NSNumber(value: UInt64.max)).stringValue == "18446744073709551615")
        #expect(Decimal128(number: NSNumber(value: Float(1.5))).stringValue == "1.5")
        // A Float through its double value, as Realm's `number.doubleValue`.
        #expect(Decimal128(number: NSNumber(value: Float(0.1))).stringValue == "1.00000001490116E-1")
        #expect(Decimal128(number: NSNumber(value: true)).stringValue == "1")
    }

    @Test("float literals and init(value:) convert as init(number:)")
    func literalsAndValues() {
        let literal: Decimal128 = 0.1
        #expect(literal.stringValue == "1.00000000000000E-1")
        let d1: Decimal128 = 3.14159
        #expect(d1 == Decimal128(number: 3.14159))
        let sum: Decimal128 = 3.144444
        #expect((sum + sum).stringValue == "6.28888800000000")
        #expect(Decimal128(value: 0.1).stringValue == "1.00000000000000E-1")
        #expect(Decimal128(value: Float(2.5)).stringValue == "2.5")
        #expect(Decimal128(value: 7).stringValue == "7")
        let null = Decimal128(value: NSNull())
        #expect(null.isNaN && null.isSignaling && null.isSignalingNaN)
    }

    @Test("negate() changes the value in place")
    func negate() {
        let d1: Decimal128 = -123.321
        let d2: Decimal128 = 456.321
        let alias = d1
        d1.negate()
        d2.negate()
        #expect(d1 == 123.321)
        #expect(d2 == -456.321)
        #expect(alias == 123.321)
        let zero = Decimal128()
        zero.negate()
        #expect(zero.stringValue == "-0")
    }
}
