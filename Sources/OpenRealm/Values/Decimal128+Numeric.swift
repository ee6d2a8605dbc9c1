// Decimal128+Numeric.swift — Realm's numeric conformances of Decimal128: Numeric, SignedNumeric
// and Strideable, with its exact integer initializer, its range and its NaN flags.

import Foundation

extension Decimal128: Numeric, SignedNumeric, Strideable {
    /// The integer `source` as a Decimal128 (always exact: integers of up to 34 digits are).
    ///
    ///     Decimal128(exactly: UInt64.max)?.stringValue == "18446744073709551615"
    public convenience init?<T: BinaryInteger>(exactly source: T) {
        if let integer = Int(exactly: source) {
            self.init(integer)
        } else {
            guard let parsed = try? Decimal128(string: String(source)) else { return nil }
            self.init(parsed)
        }
    }

    /// The type of `magnitude`: Decimal128.
    public typealias Magnitude = Decimal128

    /// The type of a distance between two values: Decimal128.
    public typealias Stride = Decimal128

    /// `other - self`.
    ///
    ///     Decimal128(1).distance(to: 3) == 2
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// `self + n`.
    ///
    ///     Decimal128(1).advanced(by: 2) == 3
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }

    /// Whether the value is a NaN (Decimal128 NaNs count as signaling, as in Realm).
    public var isSignaling: Bool { isNaN }

    /// Whether the value is a NaN (as `isSignaling`).
    public var isSignalingNaN: Bool { isSignaling }

    /// The smallest finite Decimal128: -9.999999999999999999999999999999999E+6144.
    public static var min: Decimal128 { -max }

    /// The largest finite Decimal128: 9.999999999999999999999999999999999E+6144.
    public static var max: Decimal128 { try! Decimal128(string: "9.999999999999999999999999999999999E+6144") }
}
