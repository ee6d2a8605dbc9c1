// Decimal128.swift — Decimal128: a 128-bit decimal floating point number, as in Realm Swift.
//
// The engine parses, prints, orders and computes decimals (cengine.h, ce_decimal128_*), through
// Impl/Decimal128+Engine.swift: a decimal typed into a query and one made here read the same.

import Foundation

// MARK: - Decimal128

/// A 128-bit IEEE 754-2008 decimal floating point number (binary integer decimal encoding), as
/// Realm's `Decimal128`: up to 34 significant digits, exact in base ten.
///
///     let price = Decimal128(string: "19.99")!      // or try Decimal128(string:) in Realm's form
///     let price: Decimal128 = "19.99"
///     price.stringValue      // "19.99"
///     Decimal128(1) < price  // true
///
/// As Realm's, a Decimal128 is a reference whose value only `negate()` changes (in place): share
/// one between threads only if none negates it.
public final class Decimal128: RealmCollectionValue, Comparable, CustomStringConvertible, @unchecked Sendable,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    /// The 128 bits as two little-endian 64-bit words, as the engine stores them.
    private(set) var low: UInt64
    private(set) var high: UInt64

    init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// Zero: `Decimal128().stringValue == "0"`.
    public convenience init() { self.init(low: 0, high: 0x3040_0000_0000_0000) }

    /// An exact integer: `Decimal128(42).stringValue == "42"`.
    public convenience init(_ value: Int) { self.init(Decimal128.integer(value)) }

    /// A number as Realm converts it: an integer exactly; a `Double` (or `Float`) as realm-core
    /// does, its exact value when it has at most 15 significant digits, otherwise its value
    /// rounded to 15 significant digits.
    ///
    ///     Decimal128(number: 2.5).stringValue == "2.5"
    ///     Decimal128(number: 0.1).stringValue == "1.00000000000000E-1"
    ///     Decimal128(number: 42).stringValue == "42"
    public convenience init(number: NSNumber) {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"): self.init(Decimal128.fromDouble(number.doubleValue))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): self.init(Decimal128.parse(String(number.uint64Value)) ?? Decimal128(Decimal128.nan))
        default: self.init(Decimal128.integer(Int(number.int64Value)))
        }
    }

    /// An integer literal: `let d: Decimal128 = 5`.
    public convenience init(integerLiteral value: Int) { self.init(value) }

    /// A floating point literal, as `init(number:)` converts a `Double`:
    /// `let d: Decimal128 = 1.5`; `(0.1 as Decimal128).stringValue == "1.00000000000000E-1"`.
    public convenience init(floatLiteral value: Double) { self.init(Decimal128.fromDouble(value)) }

    /// A string literal; an invalid one is NaN: `let d: Decimal128 = "1.25E+3"`.
    public convenience init(stringLiteral value: String) { self.init(Decimal128.parse(value) ?? Decimal128(Decimal128.nan)) }

    /// Parses a decimal string (`"-1.5"`, `"12E-3"`, `"NaN"`, `"Inf"`), throwing `Realm.Error`
    /// (`.fail`, "Invalid Decimal128 string") for anything else. Spaces around it are ignored;
    /// more than 34 digits round half to even; an exponent beyond the range (-6176 to 6111) gives
    /// infinity or rounds toward zero.
    ///
    ///     let d = try Decimal128(string: "3.14")
    public convenience init(string: String) throws {
        guard let parsed = Decimal128.parse(string) else {
            throw Realm.Error(code: .fail, message: "Invalid Decimal128 string '\(string)'")
        }
        self.init(parsed)
    }

    /// Converts `value` to a Decimal128, as Realm does: an integer of any size, a `Float`, a
    /// `Double`, a `String`, an `NSNumber`, a `Decimal` or a `Decimal128`. As Realm documents,
    /// another type, or a string that is not a decimal, is a fatal error.
    ///
    ///     Decimal128(value: 3).stringValue == "3"
    public convenience init(value: Any) {
        guard let converted = Decimal128.converted(from: value) else {
            throwRealmException("Cannot convert value '\(value)' of type '\(type(of: value))' to decimal128")
        }
        self.init(converted)
    }

    /// `value` as a Decimal128 (the types `init(value:)` takes); nil for another type or a
    /// string that is not a decimal.
    static func converted(from value: Any) -> Decimal128? {
        switch value {
        case let decimal as Decimal128: return Decimal128(decimal)
        case let int as Int: return Decimal128(int)
        case let double as Double: return Decimal128.fromDouble(double)
        case let float as Float: return Decimal128.fromDouble(Double(float))
        // Realm's null decimal (a NaN).
        case is NSNull: return Decimal128(low: 0xAA, high: 0x7C00_0000_0000_0000)
        case let string as String: return Decimal128.parse(string)
        case let decimal as Decimal: return Decimal128.parse(decimal.description)
        case let integer as any BinaryInteger:
            return Int(exactly: integer).map { Decimal128($0) } ?? Decimal128.parse("\(integer)")
        case let number as NSNumber:
            return Decimal128(number: number)
        default: return nil
        }
    }

    /// The same bits as `other`.
    convenience init(_ other: Decimal128) { self.init(low: other.low, high: other.high) }

    /// The decimal a text holds, spaces around it ignored; nil if it holds none.
    private static func parse(_ text: String) -> Decimal128? {
        engineParse(text.trimmingCharacters(in: .whitespaces))
    }

    static let nan = Decimal128(low: 0, high: 0x7C00_0000_0000_0000)

    /// Whether the value is not a number: `Decimal128(stringLiteral: "NaN").isNaN`.
    public var isNaN: Bool { engineIsNaN }

    /// The value as a decimal string in Realm's form: the coefficient's digits with the point
    /// after the first digit and an exponent for the rest, or positional when that makes the
    /// exponent 0: `"1.5"`, `"-0.001"` is `"-1E-3"`, `"150"`, `"1.5E2"` (15E1), `"1E-1"`,
    /// `"1.2E41"`, `"-0"`, `"NaN"`, `"Inf"`, `"-Inf"`; a coefficient beyond 64 bits as
    /// `"+1234567890123456789012345678901234E-33"`.
    public var stringValue: String { realmText }

    /// The same as `stringValue`.
    public var description: String { stringValue }

    /// The value as a `Double` (rounded): `Decimal128(stringLiteral: "0.5").doubleValue == 0.5`.
    public var doubleValue: Double { Double(stringValue) ?? .nan }

    /// Numeric equality (`1.0 == 1.00`); NaN equals nothing.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        if lhs.isNaN || rhs.isNaN { return false }
        return engineOrder(lhs, rhs) == 0
    }

    /// Numeric order; NaN is unordered.
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        if lhs.isNaN || rhs.isNaN { return false }
        return engineOrder(lhs, rhs) < 0
    }

    /// The sum, rounded to 34 digits: `Decimal128(1) + "0.5"` is 1.5. As IEEE 754 (and Realm): an
    /// exact result keeps its exponent (`"19.99" + "0.01"` prints as 20.00), a NaN operand gives
    /// NaN, infinity plus a number is infinity, infinity minus infinity is NaN.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { engineAdd(lhs, rhs) }

    /// The difference, rounded to 34 digits.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { engineSubtract(lhs, rhs) }

    /// The product, rounded to 34 digits: `Decimal128(stringLiteral: "19.99") * 3` is 59.97.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { engineMultiply(lhs, rhs) }

    /// The quotient, rounded to 34 digits; dividing by zero gives NaN.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        if !rhs.isNaN && rhs == Decimal128() { return Decimal128(nan) }
        return engineDivide(lhs, rhs)
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
        Decimal128(low: operand.low, high: operand.high ^ (1 << 63))
    }

    /// The absolute value.
    public var magnitude: Decimal128 { Decimal128(low: low, high: high & ~(UInt64(1) << 63)) }

    /// Replaces the value with its additive inverse, in place (as Realm's: every reference to
    /// this Decimal128 sees the change).
    ///
    ///     let d: Decimal128 = 1.5
    ///     d.negate()             // d == -1.5
    public func negate() { high ^= 1 << 63 }

    /// Hashes the numeric value (equal numbers hash equally).
    public func hash(into hasher: inout Hasher) {
        let canonical = engineCanonical
        hasher.combine(canonical.low)
        hasher.combine(canonical.high)
    }
}
