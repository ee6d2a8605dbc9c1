// Decimal128+Engine.swift — Decimal128 through the engine: its bits as ce_decimal128, its
// _CValueConvertible conformance, and the engine's decimal functions (cengine.h, ce_decimal128_*)
// that parse, print, order and compute it.

import CEngine
import Foundation

extension Decimal128 {
    /// The decimal of the engine's 128 bits.
    convenience init(bits: ce_decimal128) { self.init(low: bits.low, high: bits.high) }

    /// The 128 bits as the engine takes them.
    var bits: ce_decimal128 { ce_decimal128(low: low, high: high) }

    /// The decimal a text holds (the engine's parser: no spaces), or nil.
    static func engineParse(_ text: String) -> Decimal128? {
        if text.utf8.contains(0) { return nil }
        var bits = ce_decimal128()
        guard text.withCString({ ce_decimal128_from_string($0, &bits) }) else { return nil }
        return Decimal128(bits: bits)
    }

    /// An exact integer.
    static func integer(_ value: Int) -> Decimal128 { Decimal128(bits: ce_decimal128_from_int64(Int64(value))) }

    /// The text the engine prints: "1.5", "-12.500", "1E-7", "NaN", "Inf".
    var engineText: String {
        var buffer = [CChar](repeating: 0, count: 64)  // always enough (cengine.h)
        let length = ce_decimal128_to_string(bits, &buffer, buffer.count)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    var engineIsNaN: Bool { ce_decimal128_is_nan(bits) }

    /// The representation every equal value shares (for hashing).
    var engineCanonical: Decimal128 { Decimal128(bits: ce_decimal128_canonical(bits)) }

    /// -1, 0 or 1 in the engine's order (NaN first, equal to NaN; then by value).
    static func engineOrder(_ a: Decimal128, _ b: Decimal128) -> Int {
        Int(ce_decimal128_compare(a.bits, b.bits))
    }

    static func engineAdd(_ a: Decimal128, _ b: Decimal128) -> Decimal128 {
        Decimal128(bits: ce_decimal128_add(a.bits, b.bits))
    }

    static func engineSubtract(_ a: Decimal128, _ b: Decimal128) -> Decimal128 {
        Decimal128(bits: ce_decimal128_subtract(a.bits, b.bits))
    }

    static func engineMultiply(_ a: Decimal128, _ b: Decimal128) -> Decimal128 {
        Decimal128(bits: ce_decimal128_multiply(a.bits, b.bits))
    }

    static func engineDivide(_ a: Decimal128, _ b: Decimal128) -> Decimal128 {
        Decimal128(bits: ce_decimal128_divide(a.bits, b.bits))
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
        guard let decimal = Decimal128.converted(from: value) else { return nil }
        return Self(bits: decimal.bits)
    }
}
