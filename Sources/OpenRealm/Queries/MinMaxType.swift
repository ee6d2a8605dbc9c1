// MinMaxType.swift — MinMaxType: the types that `min` and `max` take.

import Foundation

// MARK: - Aggregatable types

/// A type that `min` and `max` take: integers, floating point numbers, `Decimal128`, `Date`,
/// `AnyRealmValue` and their optionals (Realm's protocol of the same name).
///
///     let youngest: Int? = people.min(ofProperty: "age")
public protocol MinMaxType {}
