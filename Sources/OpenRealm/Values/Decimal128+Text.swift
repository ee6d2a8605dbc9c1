// Decimal128+Text.swift — Decimal128's text in Realm's form (realm-core's Decimal128::to_string):
// what `stringValue`, `description` and Codable's string print.

extension Decimal128 {
    /// Realm's text for the bits. A coefficient that fits in 64 bits prints as its digits with
    /// the point moved left while there are digits before it and the exponent is not 0, then
    /// `E` and the remaining exponent when it is not 0 (no `+`): 15E1 is "1.5E2", 1E-1 is
    /// "1E-1", 123E-2 is "1.23", 0E-2 is "0E-2"; NaN and infinity are "NaN" and "Inf", with
    /// "-" when negative. A wider coefficient prints as IEEE 754's decimal128 to-string does:
    /// its sign ("+" or "-"), its digits, `E`, the exponent's sign and digits.
    var realmText: String {
        let negative = high >> 63 == 1
        let coefficientHigh = high & 0x0001_FFFF_FFFF_FFFF
        if coefficientHigh != 0 { return wideText }
        var text = negative ? "-" : ""
        if high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 {
            return text + (high & 0x7C00_0000_0000_0000 == 0x7C00_0000_0000_0000 ? "NaN" : "Inf")
        }
        var exponent = Int((high & 0x7FFE_0000_0000_0000) >> 49) - 6176
        let digits = String(low)
        var before = digits.count
        while before > 1 && exponent != 0 {
            before -= 1
            exponent += 1
        }
        text += digits.prefix(before)
        if before < digits.count {
            text += "." + digits.dropFirst(before)
        }
        if exponent != 0 { text += "E\(exponent)" }
        return text
    }

    /// IEEE 754's decimal128 to-string of the binary integer decimal encoding: "+NaN",
    /// "-SNaN", "+Inf", or sign, coefficient digits (0 for a non-canonical one), `E`, signed
    /// exponent.
    private var wideText: String {
        let sign = high >> 63 == 1 ? "-" : "+"
        if high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 {
            if high & 0x7C00_0000_0000_0000 == 0x7C00_0000_0000_0000 {
                return sign + (high & 0x7E00_0000_0000_0000 == 0x7E00_0000_0000_0000 ? "SNaN" : "NaN")
            }
            return sign + "Inf"
        }
        let largeForm = high & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000
        let exponentBits = largeForm ? (high << 2) & 0x7FFE_0000_0000_0000 : high & 0x7FFE_0000_0000_0000
        let exponent = Int(exponentBits >> 49) - 6176
        let coefficient = UInt128(high & 0x0001_FFFF_FFFF_FFFF) << 64 | UInt128(low)
        let canonical = !largeForm && coefficient <= 9_999_999_999_999_999_999_999_999_999_999_999
        let digits = canonical ? String(coefficient) : "0"
        return sign + digits + "E" + (exponent < 0 ? "-" : "+") + String(exponent.magnitude)
    }
}
