// Decimal128.swift — Decimal128: a 128-bit decimal floating point number, as in Realm Swift.

import CEngine
import Foundation

// MARK: - Decimal128

/// A 128-bit IEEE 754-2008 decimal floating point number (binary integer decimal encoding), as
/// Realm's `Decimal128`: up to 34 significant digits, exact in base ten.
///
///     let price = Decimal128(string: "19.99")!      // or try Decimal128(string:) in Realm's form
///     let price: Decimal128 = "19.99"
///     price.stringValue      // "19.99"
///     Decimal128(1) < price  // true
public final class Decimal128: RealmCollectionValue, Comparable, CustomStringConvertible, Sendable,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    /// The 128 bits (little-endian 64-bit words), as the engine stores them.
    let bits: ce_decimal128

    init(bits: ce_decimal128) { self.bits = bits }

    private static let exponentBias = 6176
    private static let maxCoefficient = UInt128(9_999_999_999_999_999_999_999_999_999_999_999 as UInt128)

    /// Zero: `Decimal128().stringValue == "0"`.
    public convenience init() { self.init(bits: ce_decimal128(low: 0, high: 0x3040_0000_0000_0000)) }

    /// An exact integer: `Decimal128(42).stringValue == "42"`.
    public convenience init(_ value: Int) {
        self.init(sign: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// The decimal nearest to a `Double` (its shortest decimal representation):
    /// `Decimal128(number: 0.1).stringValue == "0.1"`.
    public convenience init(number: Double) {
        self.init(bits: (Decimal128(parsing: "\(number)") ?? Decimal128.nan).bits)
    }

    /// An integer literal: `let d: Decimal128 = 5`.
    public convenience init(integerLiteral value: Int) { self.init(value) }

    /// A floating point literal, through its shortest decimal form: `let d: Decimal128 = 1.5`.
    public convenience init(floatLiteral value: Double) { self.init(number: value) }

    /// A string literal; an invalid one is NaN: `let d: Decimal128 = "1.25E+3"`.
    public convenience init(stringLiteral value: String) {
        self.init(bits: (Decimal128(parsing: value) ?? Decimal128.nan).bits)
    }

    /// Parses a decimal string (`"-1.5"`, `"12E-3"`, `"NaN"`, `"Inf"`), throwing `Realm.Error`
    /// (`.fail`, "Invalid Decimal128 string") for anything else.
    ///
    ///     let d = try Decimal128(string: "3.14")
    public convenience init(string: String) throws {
        guard let parsed = Decimal128(parsing: string) else {
            throw Realm.Error(code: .fail, message: "Invalid Decimal128 string '\(string)'")
        }
        self.init(bits: parsed.bits)
    }

    /// A value from Int, Double, Float, String or Decimal128; nil otherwise.
    ///
    ///     Decimal128(value: 3)?.stringValue == "3"
    public convenience init?(value: Any) {
        switch value {
        case let decimal as Decimal128: self.init(bits: decimal.bits)
        case let int as Int: self.init(int)
        case let double as Double: self.init(number: double)
        case let float as Float: self.init(number: Double(float))
        case let string as String:
            guard let parsed = Decimal128(parsing: string) else { return nil }
            self.init(bits: parsed.bits)
        default: return nil
        }
    }

    private convenience init(sign: Bool, coefficient: UInt128, exponent: Int) {
        let biased = UInt128(exponent + Decimal128.exponentBias)
        let word = (sign ? (UInt128(1) << 127) : 0) | (biased << 113) | coefficient
        self.init(bits: ce_decimal128(low: UInt64(truncatingIfNeeded: word), high: UInt64(truncatingIfNeeded: word >> 64)))
    }

    private convenience init?(parsing text: String) {
        var chars = Substring(text.trimmingCharacters(in: .whitespaces))
        var negative = false
        if let first = chars.first, first == "-" || first == "+" {
            negative = first == "-"
            chars = chars.dropFirst()
        }
        let lower = chars.lowercased()
        if lower == "nan" {
            self.init(bits: Decimal128.nan.bits)
            return
        }
        if lower == "inf" || lower == "infinity" {
            self.init(bits: ce_decimal128(low: 0, high: (negative ? 0xF800_0000_0000_0000 : 0x7800_0000_0000_0000)))
            return
        }
        var coefficient: UInt128 = 0
        var digits = 0
        var exponent = 0
        var sawPoint = false
        var sawDigit = false
        var droppedFirst = -1
        var sticky = false
        var index = chars.startIndex
        while index < chars.endIndex {
            let c = chars[index]
            if c == "." {
                if sawPoint { return nil }
                sawPoint = true
            } else if let digit = c.wholeNumberValue, c.isASCII {
                sawDigit = true
                if coefficient == 0 && digit == 0 {
                    if sawPoint { exponent -= 1 }
                } else if digits < 34 {
                    coefficient = coefficient * 10 + UInt128(digit)
                    digits += 1
                    if sawPoint { exponent -= 1 }
                } else {
                    // Past 34 significant digits: remembered for rounding, then dropped.
                    if droppedFirst < 0 { droppedFirst = digit } else if digit != 0 { sticky = true }
                    if !sawPoint { exponent += 1 }
                }
            } else if c == "e" || c == "E" {
                guard let e = Int(chars[chars.index(after: index)...]) else { return nil }
                exponent += e
                index = chars.endIndex
                break
            } else {
                return nil
            }
            index = chars.index(after: index)
        }
        guard sawDigit else { return nil }
        // Round half to even to 34 digits.
        if droppedFirst > 5 || (droppedFirst == 5 && (sticky || coefficient % 2 == 1)) {
            coefficient += 1
            if coefficient > Decimal128.maxCoefficient {
                coefficient /= 10
                exponent += 1
            }
        }
        guard exponent + Decimal128.exponentBias >= 0, exponent + Decimal128.exponentBias < 12288 else { return nil }
        self.init(sign: negative, coefficient: coefficient, exponent: exponent)
    }

    private static let nan = Decimal128(bits: ce_decimal128(low: 0, high: 0x7C00_0000_0000_0000))

    private var word: UInt128 { UInt128(bits.high) << 64 | UInt128(bits.low) }

    /// Whether the value is not a number: `Decimal128(stringLiteral: "NaN").isNaN`.
    public var isNaN: Bool { (bits.high >> 58) & 0x1F == 0x1F }

    private var isInfinite: Bool { (bits.high >> 58) & 0x1F == 0x1E }

    private var isNegative: Bool { bits.high >> 63 == 1 }

    /// (coefficient, exponent) of a finite value.
    private var parts: (coefficient: UInt128, exponent: Int) {
        let w = word
        if (bits.high >> 61) & 0x3 == 0x3 {
            // The second form: coefficients this large are not canonical; they read as zero.
            let exponent = Int((w >> 111) & 0x3FFF) - Decimal128.exponentBias
            return (0, exponent)
        }
        let exponent = Int((w >> 113) & 0x3FFF) - Decimal128.exponentBias
        let coefficient = w & ((UInt128(1) << 113) - 1)
        return (coefficient > Decimal128.maxCoefficient ? 0 : coefficient, exponent)
    }

    /// The value as a decimal string: `"1.5"`, `"-0.001"`, `"1.2E+40"`, `"NaN"`, `"Inf"`.
    public var stringValue: String {
        if isNaN { return "NaN" }
        if isInfinite { return isNegative ? "-Inf" : "Inf" }
        let (coefficient, exponent) = parts
        let digits = String(coefficient)
        let sign = isNegative ? "-" : ""
        let adjusted = exponent + digits.count - 1
        if exponent <= 0 && adjusted >= -6 {
            if exponent == 0 { return sign + digits }
            let pointIndex = digits.count + exponent
            if pointIndex > 0 {
                let integral = digits.prefix(pointIndex)
                let fraction = digits.dropFirst(pointIndex)
                return sign + integral + "." + fraction
            }
            return sign + "0." + String(repeating: "0", count: -pointIndex) + digits
        }
        var mantissa = String(digits.prefix(1))
        if digits.count > 1 { mantissa += "." + digits.dropFirst() }
        return sign + mantissa + "E" + (adjusted >= 0 ? "+" : "") + String(adjusted)
    }

    /// The same as `stringValue`.
    public var description: String { stringValue }

    /// The value as a `Double` (rounded): `Decimal128(stringLiteral: "0.5").doubleValue == 0.5`.
    public var doubleValue: Double { Double(stringValue) ?? .nan }

    /// Trailing zeros removed: equal numbers give equal (coefficient, exponent).
    private var normalized: (negative: Bool, coefficient: UInt128, exponent: Int) {
        var (coefficient, exponent) = parts
        if coefficient == 0 { return (false, 0, 0) }
        while coefficient % 10 == 0 {
            coefficient /= 10
            exponent += 1
        }
        return (isNegative, coefficient, exponent)
    }

    /// Numeric equality (`1.0 == 1.00`); NaN equals nothing.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        if lhs.isNaN || rhs.isNaN { return false }
        if lhs.isInfinite || rhs.isInfinite { return lhs.bits.high == rhs.bits.high && lhs.isInfinite == rhs.isInfinite }
        return lhs.normalized == rhs.normalized
    }

    /// Numeric order; NaN is unordered.
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        if lhs.isNaN || rhs.isNaN { return false }
        func rank(_ d: Decimal128) -> Int { d.isInfinite ? (d.isNegative ? -1 : 1) : 0 }
        if rank(lhs) != rank(rhs) || rank(lhs) != 0 { return rank(lhs) < rank(rhs) }
        let a = lhs.normalized, b = rhs.normalized
        if a.coefficient == 0 && b.coefficient == 0 { return false }
        if a.negative != b.negative || a.coefficient == 0 || b.coefficient == 0 {
            let signA = a.coefficient == 0 ? 0 : (a.negative ? -1 : 1)
            let signB = b.coefficient == 0 ? 0 : (b.negative ? -1 : 1)
            return signA < signB
        }
        let magnitudeLess = compareMagnitude(a.coefficient, a.exponent, b.coefficient, b.exponent) < 0
        let magnitudeGreater = compareMagnitude(a.coefficient, a.exponent, b.coefficient, b.exponent) > 0
        return a.negative ? magnitudeGreater : magnitudeLess
    }

    private static func compareMagnitude(_ c1: UInt128, _ e1: Int, _ c2: UInt128, _ e2: Int) -> Int {
        let d1 = String(c1).count, d2 = String(c2).count
        let adjusted1 = e1 + d1 - 1, adjusted2 = e2 + d2 - 1
        if adjusted1 != adjusted2 { return adjusted1 < adjusted2 ? -1 : 1 }
        // Same magnitude: pad the shorter coefficient to the same number of digits (<= 34).
        var x = c1, y = c2
        if d1 < d2 { for _ in 0..<(d2 - d1) { x *= 10 } }
        if d2 < d1 { for _ in 0..<(d1 - d2) { y *= 10 } }
        return x == y ? 0 : (x < y ? -1 : 1)
    }

    /// The value as a Foundation `Decimal` (38 digits, exponents -128...127), for arithmetic.
    private var foundationDecimal: Decimal? {
        guard !isNaN, !isInfinite else { return nil }
        let (coefficient, exponent) = parts
        guard exponent >= -128, exponent <= 127, let significand = Decimal(string: String(coefficient)) else { return nil }
        return Decimal(sign: isNegative ? .minus : .plus, exponent: exponent, significand: significand)
    }

    private static func arithmetic(_ lhs: Decimal128, _ rhs: Decimal128, _ operation: (Decimal, Decimal) -> Decimal) -> Decimal128 {
        guard let a = lhs.foundationDecimal, let b = rhs.foundationDecimal else { return Decimal128(bits: nan.bits) }
        let result = operation(a, b)
        guard !result.isNaN else { return Decimal128(bits: nan.bits) }
        return Decimal128(parsing: "\(result)") ?? Decimal128(bits: nan.bits)
    }

    /// The sum, rounded to 34 digits: `Decimal128(1) + "0.5"` is 1.5. Values beyond Foundation
    /// `Decimal`'s exponent range (-128...127) give NaN.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { arithmetic(lhs, rhs, +) }

    /// The difference, rounded to 34 digits.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { arithmetic(lhs, rhs, -) }

    /// The product, rounded to 34 digits: `Decimal128(stringLiteral: "19.99") * 3` is 59.97.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { arithmetic(lhs, rhs, *) }

    /// The quotient, rounded to 34 digits; dividing by zero gives NaN.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        if let b = rhs.foundationDecimal, b.isZero { return Decimal128(bits: nan.bits) }
        return arithmetic(lhs, rhs, /)
    }

    /// Adds in place (a new value: Decimal128 is immutable).
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    /// Subtracts in place.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    /// Multiplies in place.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    /// Divides in place.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// The negated value: `-Decimal128(1)`.
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        Decimal128(bits: ce_decimal128(low: operand.bits.low, high: operand.bits.high ^ (1 << 63)))
    }

    /// The absolute value.
    public var magnitude: Decimal128 {
        Decimal128(bits: ce_decimal128(low: bits.low, high: bits.high & ~(UInt64(1) << 63)))
    }

    /// Hashes the numeric value (equal numbers hash equally).
    public func hash(into hasher: inout Hasher) {
        let n = normalized
        hasher.combine(n.negative)
        hasher.combine(n.coefficient)
        hasher.combine(n.exponent)
    }

    public static var _ceType: ce_type { CE_TYPE_DECIMAL128 }
    public static func _ceDefault() -> Self { Self(bits: Decimal128().bits) }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self { Self(bits: value.decimal) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_DECIMAL128
        value.decimal = bits
        return value
    }
    public static func _ceFromAny(_ value: Any) -> Self? {
        guard let decimal = Decimal128(value: value) else { return nil }
        return Self(bits: decimal.bits)
    }
}
