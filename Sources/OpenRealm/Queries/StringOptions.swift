// StringOptions.swift — StringOptions: how string operators of a type-safe query compare.

import Foundation

/// How string operators of a type-safe query compare (Realm's `StringOptions`).
///
///     people.where { $0.name.contains("ada", options: [.caseInsensitive, .diacriticInsensitive]) }
public struct StringOptions: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int8

    /// Options from their raw bits.
    ///
    ///     StringOptions(rawValue: 1) == .caseInsensitive
    public init(rawValue: Int8) { self.rawValue = rawValue }

    /// Upper and lower case letters compare equal (`[c]`).
    ///
    ///     $0.name.starts(with: "a", options: .caseInsensitive)
    public static let caseInsensitive = StringOptions(rawValue: 1)

    /// Letters with and without diacritics compare equal (`[d]`).
    ///
    ///     $0.name.equals("Zoe", options: .diacriticInsensitive)   // matches "Zoë"
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    /// The predicate modifier: "", "[c]", "[d]" or "[cd]".
    var modifier: String {
        let c = contains(.caseInsensitive) ? "c" : ""
        let d = contains(.diacriticInsensitive) ? "d" : ""
        return c.isEmpty && d.isEmpty ? "" : "[\(c)\(d)]"
    }
}
