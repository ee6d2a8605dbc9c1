// Values.swift — how Swift values cross the C boundary (ce_value), and the value types Realm
// defines: Decimal128, ObjectId, AnyRealmValue.

import CEngine
import Foundation
import Synchronization

// MARK: - Owned bytes for the duration of a C call

/// Keeps copies of strings and binaries alive while a C call reads the `ce_value`s that point
/// at them. Internal machinery of OpenRealm; not for use by applications.
public final class _CArena {
    /// Chunks of bytes handed out front to back; the first one is kept by `reset()`.
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawPointer] = []
    /// The last chunk (the one being filled), nil before the first copy.
    @exclusivity(unchecked) private var current: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var used = 0
    @exclusivity(unchecked) private var capacity = 0
    /// Whether there is more than the first chunk (`reset()` frees the others).
    @exclusivity(unchecked) private var hasMoreChunks = false

    private static let chunkSize = 4096

    init() {}

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// A copy of `bytes` that lives until the arena is reset or released.
    @inline(__always)
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard bytes.count > 0, let base = bytes.baseAddress else { return nil }
        // `capacity` is 0 before the first chunk.
        if used + bytes.count > capacity { addChunk(for: bytes.count) }
        let target = current.unsafelyUnwrapped + used
        target.copyMemory(from: base, byteCount: bytes.count)
        used += bytes.count
        return UnsafeRawPointer(target)
    }

    @inline(never)
    private func addChunk(for count: Int) {
        let size = Swift.max(_CArena.chunkSize, count)
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        chunks.append(chunk)
        hasMoreChunks = chunks.count > 1
        current = chunk
        used = 0
        capacity = size
    }

    /// Forgets every copy (the pointers handed out are no longer valid), keeping one chunk.
    @inline(__always)
    func reset() {
        used = 0
        if hasMoreChunks { dropChunks() }
    }

    @inline(never)
    private func dropChunks() {
        for chunk in chunks.dropFirst() { chunk.deallocate() }
        chunks.removeSubrange(1...)
        current = chunks[0]
        capacity = _CArena.chunkSize  // the first chunk holds at least this much
        hasMoreChunks = false
    }

    /// A string value whose bytes live as long as the arena.
    func string(_ string: String) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_STRING
        // A native string's bytes are read in place (no copy of the String, no retain).
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            value.string.data = copy(UnsafeRawBufferPointer(utf8))?.assumingMemoryBound(to: CChar.self)
            value.string.size = utf8.count
        }
        if copied == nil {
            var text = string
            text.withUTF8 { utf8 in
                value.string.data = copy(UnsafeRawBufferPointer(utf8))?.assumingMemoryBound(to: CChar.self)
                value.string.size = utf8.count
            }
        }
        return value
    }

    /// A binary value whose bytes live as long as the arena.
    func binary(_ data: Data) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_BINARY
        data.withUnsafeBytes { bytes in
            value.binary.data = copy(bytes)?.assumingMemoryBound(to: UInt8.self)
            value.binary.size = bytes.count
        }
        return value
    }
}

extension ce_value {
    static var null: ce_value { ce_value() }

    static func int(_ integer: Int64) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_INT
        value.integer = integer
        return value
    }

    static func link(_ table: ce_table_key, _ key: ce_object_key) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_LINK
        value.link = ce_link(table: table, key: key)
        return value
    }

    var isNull: Bool { type == CE_TYPE_NULL }

    /// The string a string value points at (copied).
    var stringValue: String {
        guard string.size > 0, let data = string.data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: string.size), as: UTF8.self)
    }

    /// The bytes a binary value points at (copied).
    var dataValue: Data {
        guard binary.size > 0, let data = binary.data else { return Data() }
        return Data(bytes: data, count: binary.size)
    }

    /// A readable form of the value, for messages: `'Ada'`, `5`, `null`.
    var debugText: String {
        switch type {
        case CE_TYPE_NULL: "null"
        case CE_TYPE_INT: "\(integer)"
        case CE_TYPE_BOOL: "\(boolean)"
        case CE_TYPE_FLOAT: "\(float_value)"
        case CE_TYPE_DOUBLE: "\(double_value)"
        case CE_TYPE_STRING: "'\(stringValue)'"
        case CE_TYPE_OBJECT_ID: "\(ObjectId(object_id))"
        case CE_TYPE_UUID: "\(UUID(ceUUID: uuid))"
        default: String(cString: ce_type_name(type))
        }
    }
}

/// The value inside an Optional boxed in Any, unwrapped through nested optionals (nil for nil);
/// any other value as it is.
func unwrapOptional(_ value: Any) -> Any? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return value }
    guard let child = mirror.children.first else { return nil }
    return unwrapOptional(child.value)
}

// MARK: - The value protocol

/// A type whose values OpenRealm stores: the scalar types, `Object` subclasses (as links),
/// `AnyRealmValue`, `PersistableEnum` types, and optionals of these.
///
/// Internal machinery of OpenRealm: applications use the conforming types and never call these
/// requirements.
public protocol _CValueConvertible {
    /// The engine type of a property or element holding this type.
    static var _ceType: ce_type { get }
    /// Whether null is a value of this type (optionals).
    static var _ceNullable: Bool { get }
    /// The class a link points to, for links.
    static var _ceLinkTarget: ObjectBase.Type? { get }
    /// The value of a new object's property or a new element: 0, "", false, nil, ...
    static func _ceDefault() -> Self
    /// The Swift value of a value read from the engine.
    static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self
    /// The engine value of this value; bytes live in `arena`. Unmanaged objects are added to
    /// `realm` first (links need a managed target).
    func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value
    /// This type from a loosely typed value (`init(value:)`, `create(_:value:)`).
    static func _ceFromAny(_ value: Any) -> Self?
}

extension _CValueConvertible {
    public static var _ceNullable: Bool { false }
    public static var _ceLinkTarget: ObjectBase.Type? { nil }
    public static func _ceFromAny(_ value: Any) -> Self? { value as? Self }
}

/// The element types of `List`, `MutableSet`, `Map` values and `Results` (Realm's protocol of
/// the same name): every `_CValueConvertible` type that is also `Hashable`.
///
///     let tags = List<String>()          // String: RealmCollectionValue
public protocol RealmCollectionValue: _CValueConvertible, Hashable {}

/// Integer conversions shared by the integer types.
extension FixedWidthInteger where Self: _CValueConvertible {
    public static var _ceType: ce_type { CE_TYPE_INT }
    public static func _ceDefault() -> Self { 0 }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self { Self(truncatingIfNeeded: value.integer) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { .int(Int64(self)) }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let same = value as? Self { return same }
        if let int = value as? Int { return Self(exactly: int) }
        return nil
    }
}

extension Int: RealmCollectionValue {}
extension Int8: RealmCollectionValue {}
extension Int16: RealmCollectionValue {}
extension Int32: RealmCollectionValue {}
extension Int64: RealmCollectionValue {}

extension Bool: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_BOOL }
    public static func _ceDefault() -> Bool { false }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Bool { value.boolean }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_BOOL
        value.boolean = self
        return value
    }
}

extension Float: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_FLOAT }
    public static func _ceDefault() -> Float { 0 }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Float { value.float_value }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_FLOAT
        value.float_value = self
        return value
    }
    public static func _ceFromAny(_ value: Any) -> Float? {
        if let float = value as? Float { return float }
        if let double = value as? Double { return Float(double) }
        if let int = value as? Int { return Float(int) }
        return nil
    }
}

extension Double: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_DOUBLE }
    public static func _ceDefault() -> Double { 0 }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Double { value.double_value }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_DOUBLE
        value.double_value = self
        return value
    }
    public static func _ceFromAny(_ value: Any) -> Double? {
        if let double = value as? Double { return double }
        if let float = value as? Float { return Double(float) }
        if let int = value as? Int { return Double(int) }
        return nil
    }
}

extension String: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_STRING }
    public static func _ceDefault() -> String { "" }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> String { value.stringValue }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { arena.string(self) }
}

extension Data: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_BINARY }
    public static func _ceDefault() -> Data { Data() }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Data { value.dataValue }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { arena.binary(self) }
}

extension Date: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_TIMESTAMP }
    public static func _ceDefault() -> Date { Date() }  // as Realm: now
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Date {
        Date(timeIntervalSince1970: Double(value.timestamp.seconds) + Double(value.timestamp.nanoseconds) / 1e9)
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        // Whole seconds toward zero, nanoseconds of the same sign (as the engine requires).
        let interval = timeIntervalSince1970
        var seconds = interval.rounded(.towardZero)
        var nanoseconds = ((interval - seconds) * 1e9).rounded()
        if abs(nanoseconds) >= 1e9 {
            seconds += nanoseconds > 0 ? 1 : -1
            nanoseconds = 0
        }
        var value = ce_value()
        value.type = CE_TYPE_TIMESTAMP
        value.timestamp = ce_timestamp(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds))
        return value
    }
}

extension UUID: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_UUID }
    public static func _ceDefault() -> UUID { UUID() }  // as Realm: a new random UUID
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> UUID { UUID(ceUUID: value.uuid) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_UUID
        withUnsafeBytes(of: uuid) { bytes in
            withUnsafeMutableBytes(of: &value.uuid.bytes) { $0.copyMemory(from: bytes) }
        }
        return value
    }
    public static func _ceFromAny(_ value: Any) -> UUID? {
        if let uuid = value as? UUID { return uuid }
        if let string = value as? String { return UUID(uuidString: string) }
        return nil
    }

    init(ceUUID: ce_uuid) {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { target in
            withUnsafeBytes(of: ceUUID.bytes) { target.copyMemory(from: $0) }
        }
        self.init(uuid: raw)
    }
}

extension Optional: _CValueConvertible where Wrapped: _CValueConvertible {
    public static var _ceType: ce_type { Wrapped._ceType }
    public static var _ceNullable: Bool { true }
    public static var _ceLinkTarget: ObjectBase.Type? { Wrapped._ceLinkTarget }
    public static func _ceDefault() -> Wrapped? { nil }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Wrapped? {
        value.isNull ? nil : Wrapped._ceRead(value, realm)
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped._ceValue(arena, realm)
        }
    }
    public static func _ceFromAny(_ value: Any) -> Wrapped?? {
        if value is NSNull { return .some(nil) }
        if case Optional<Any>.none = value as Any? { return .some(nil) }
        // `value` may itself be an Optional boxed in Any.
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let child = mirror.children.first else { return .some(nil) }
            return Wrapped._ceFromAny(child.value).map { .some($0) }
        }
        return Wrapped._ceFromAny(value).map { .some($0) }
    }
}

extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue {}

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

// MARK: - ObjectId

/// A 12-byte unique identifier (MongoDB's ObjectId), as Realm's `ObjectId`: a 4-byte timestamp,
/// 5 random bytes fixed per process and a 3-byte counter.
///
///     @Persisted(primaryKey: true) var _id: ObjectId
///     let id = ObjectId.generate()
///     let same = try ObjectId(string: id.stringValue)
public final class ObjectId: RealmCollectionValue, Comparable, CustomStringConvertible, Sendable {
    /// The 12 bytes.
    let bytes: ce_object_id

    init(_ bytes: ce_object_id) { self.bytes = bytes }

    /// The zero ObjectId (all twelve bytes 0), as Realm's `ObjectId()`.
    ///
    ///     ObjectId().stringValue == "000000000000000000000000"
    public convenience init() { self.init(ce_object_id()) }

    /// Parses 24 hexadecimal digits; throws `Realm.Error` (`.fail`) otherwise.
    ///
    ///     let id = try ObjectId(string: "6054d1f5e5f8a2b3c4d5e6f7")
    public convenience init(string: String) throws {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else { throw Realm.Error(code: .fail, message: "Invalid ObjectId string '\(string)'") }
        var raw = ce_object_id()
        try withUnsafeMutableBytes(of: &raw.bytes) { target in
            for i in 0..<12 {
                guard let high = ObjectId.hexValue(utf8[2 * i]), let low = ObjectId.hexValue(utf8[2 * i + 1]) else {
                    throw Realm.Error(code: .fail, message: "Invalid ObjectId string '\(string)'")
                }
                target[i] = high << 4 | low
            }
        }
        self.init(raw)
    }

    /// An ObjectId from its parts (big-endian timestamp in seconds, 5 machine/process bytes as in
    /// Realm's form of machineId and processId, and a counter).
    ///
    ///     let id = ObjectId(timestamp: Date(), machineId: 1, processId: 2)
    public convenience init(timestamp: Date, machineId: Int, processId: Int) {
        var raw = ce_object_id()
        let seconds = UInt32(truncatingIfNeeded: Int(timestamp.timeIntervalSince1970))
        let counter = ObjectId.nextCounter()
        withUnsafeMutableBytes(of: &raw.bytes) { b in
            b[0] = UInt8(truncatingIfNeeded: seconds >> 24)
            b[1] = UInt8(truncatingIfNeeded: seconds >> 16)
            b[2] = UInt8(truncatingIfNeeded: seconds >> 8)
            b[3] = UInt8(truncatingIfNeeded: seconds)
            b[4] = UInt8(truncatingIfNeeded: machineId >> 16)
            b[5] = UInt8(truncatingIfNeeded: machineId >> 8)
            b[6] = UInt8(truncatingIfNeeded: machineId)
            b[7] = UInt8(truncatingIfNeeded: processId >> 8)
            b[8] = UInt8(truncatingIfNeeded: processId)
            b[9] = UInt8(truncatingIfNeeded: counter >> 16)
            b[10] = UInt8(truncatingIfNeeded: counter >> 8)
            b[11] = UInt8(truncatingIfNeeded: counter)
        }
        self.init(raw)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let counter = Mutex<UInt32>(UInt32.random(in: 0..<0xFF_FFFF))
    private static let processBytes: (Int, Int) = (Int.random(in: 0..<0xFF_FFFF), Int.random(in: 0..<0xFFFF))

    private static func nextCounter() -> UInt32 {
        counter.withLock { value in
            value = (value &+ 1) & 0xFF_FFFF
            return value
        }
    }

    /// A new unique ObjectId: the current time, this process's random bytes, the next counter.
    ///
    ///     let id = ObjectId.generate()
    public static func generate() -> ObjectId {
        ObjectId(timestamp: Date(), machineId: processBytes.0, processId: processBytes.1)
    }

    /// The 24 lowercase hexadecimal digits.
    public var stringValue: String {
        withUnsafeBytes(of: bytes.bytes) { b in
            b.map { byte in
                let s = String(byte, radix: 16)
                return s.count == 1 ? "0" + s : s
            }.joined()
        }
    }

    /// The same as `stringValue`.
    public var description: String { stringValue }

    /// The creation time stored in the first four bytes (whole seconds).
    ///
    ///     ObjectId.generate().timestamp   // about now
    public var timestamp: Date {
        let seconds = withUnsafeBytes(of: bytes.bytes) { b in
            UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private var byteArray: [UInt8] { withUnsafeBytes(of: bytes.bytes) { Array($0) } }

    /// Equal bytes.
    public static func == (lhs: ObjectId, rhs: ObjectId) -> Bool { lhs.byteArray == rhs.byteArray }

    /// Byte order (hence creation time first).
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        lhs.byteArray.lexicographicallyPrecedes(rhs.byteArray)
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(byteArray) }

    public static var _ceType: ce_type { CE_TYPE_OBJECT_ID }
    public static func _ceDefault() -> Self { Self(ObjectId.generate().bytes) }  // as Realm: a new ObjectId
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self { Self(value.object_id) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_OBJECT_ID
        value.object_id = bytes
        return value
    }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let id = value as? ObjectId { return Self(id.bytes) }
        if let string = value as? String, let id = try? ObjectId(string: string) { return Self(id.bytes) }
        return nil
    }
}
