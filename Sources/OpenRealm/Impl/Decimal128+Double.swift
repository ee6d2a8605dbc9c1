// Decimal128+Double.swift — a Double as a Decimal128, as realm-core's Decimal128(double) makes it
// (what Realm's `Decimal128(number:)` and float literals give): the double's exact value when it
// has at most 15 significant digits, otherwise its value rounded to 15 significant digits.

import Foundation

extension Decimal128 {
    /// realm-core's `Decimal128(double)` (src/realm/decimal128.cpp, "ported from MongoDB"):
    /// 1. `binary64_to_bid128`: the exact value of `value` (an integer with exponent 0, or
    ///    m·5^k·10^-k for m·2^-k with m odd: 0.5 is 5E-1, 1.5 is 15E-1) when it fits in 34
    ///    digits, otherwise its value rounded (half to even) to 34 significant digits;
    /// 2. kept as it is when its coefficient is at most 10^15 - 1;
    /// 3. otherwise quantized (rounded half to even) to the exponent `e10 - 14`, with `e10`
    ///    the base-10 exponent estimated from the binary one (`b * 30103 / 100000`, floored),
    ///    and once more to `e10 - 13` when that leaves 16 digits.
    /// 0.1 becomes 1.00000000000000E-1, 1/3 3.33333333333333E-1, 2.5 stays 2.5.
    static func fromDouble(_ value: Double) -> Decimal128 {
        if value.isNaN { return Decimal128(nan) }
        let sign = value.sign == .minus ? "-" : ""
        if value.isInfinite { return engineParse(sign + "Inf") ?? Decimal128(nan) }
        if value == 0 { return engineParse(sign + "0") ?? Decimal128() }
        let magnitude = Swift.abs(value)
        var (digits, exponent) = exactDigits(magnitude) ?? roundedDigits(magnitude)
        let largest = 15
        if digits.count > largest {
            // The binary exponent (frexp's, less one) gives a lower bound of the decimal one.
            let base2Exponent = Int(magnitude.exponent)
            var base10Exponent = base2Exponent * 30103 / 100_000
            if base2Exponent < 0 { base10Exponent -= 1 }
            var target = base10Exponent - 14
            var quantized = quantize(digits, exponent, to: target)
            if quantized.count > largest {
                // The estimate was one low: 16 digits.
                target += 1
                quantized = quantize(digits, exponent, to: target)
            }
            digits = quantized
            exponent = target
        }
        let text = sign + String(decoding: digits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self) + "E\(exponent)"
        return engineParse(text) ?? Decimal128(nan)
    }

    /// The exact decimal coefficient (digits, most significant first) and exponent of a finite
    /// positive double, as `binary64_to_bid128` gives it when it fits in 34 digits; nil when it
    /// does not.
    private static func exactDigits(_ value: Double) -> ([UInt8], Int)? {
        // value = m · 2^e, m odd.
        var m = value.significandBitPattern | (value.isNormal ? 1 << 52 : 0)
        var e = Int(value.exponent) - 52
        if !value.isNormal { e = -1074 }
        let zeros = m.trailingZeroBitCount
        m >>= UInt64(zeros)
        e += zeros
        var digits = Array(String(m).utf8.map { $0 - UInt8(ascii: "0") })
        // An integer: m doubled e times, exponent 0. Otherwise m · 5^k, exponent -k.
        let (factor, times, exponent): (UInt8, Int, Int) = e >= 0 ? (2, e, 0) : (5, -e, e)
        for _ in 0..<times {
            multiply(&digits, by: factor)
            if digits.count > 34 { return nil }
        }
        return (digits, exponent)
    }

    /// `digits` times a small factor, in place.
    private static func multiply(_ digits: inout [UInt8], by factor: UInt8) {
        var carry: UInt8 = 0
        for index in digits.indices.reversed() {
            let product = digits[index] * factor + carry
            digits[index] = product % 10
            carry = product / 10
        }
        if carry > 0 { digits.insert(carry, at: 0) }
    }

    /// A finite positive double rounded half to even to 34 significant digits: the digits and
    /// the exponent of the last one (glibc's printf rounds the exact binary value so).
    private static func roundedDigits(_ value: Double) -> ([UInt8], Int) {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.33e", $0) }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)  // d.ddd…de±x
        let parts = text.split(separator: "e")
        let digits = parts[0].utf8.filter { $0 != UInt8(ascii: ".") }.map { $0 - UInt8(ascii: "0") }
        return (digits, (Int(parts[1]) ?? 0) - 33)
    }

    /// `digits · 10^exponent` rounded half to even to the exponent `target` (at least
    /// `exponent`): the new coefficient's digits, without leading zeros.
    private static func quantize(_ digits: [UInt8], _ exponent: Int, to target: Int) -> [UInt8] {
        let dropped = target - exponent
        guard dropped > 0 else { return digits }
        let kept = Swift.max(digits.count - dropped, 0)
        var result = Array(digits.prefix(kept))
        // The digits dropped, with the zeros above the coefficient when all of them go.
        let rest = Array(repeating: 0, count: Swift.max(dropped - digits.count, 0)) + digits[kept...]
        let half = rest.first ?? 0
        let beyondHalf = rest.dropFirst().contains { $0 != 0 }
        let odd = (result.last ?? 0) % 2 == 1
        if half > 5 || (half == 5 && (beyondHalf || odd)) {
            var index = result.count - 1
            while index >= 0 && result[index] == 9 {
                result[index] = 0
                index -= 1
            }
            if index >= 0 { result[index] += 1 } else { result.insert(1, at: 0) }
        }
        while result.count > 1 && result.first == 0 { result.removeFirst() }
        return result.isEmpty ? [0] : result
    }
}
