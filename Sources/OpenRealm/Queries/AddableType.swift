// AddableType.swift — AddableType: the types that `sum` and `average` take.

import Foundation

/// A type that `sum` and `average` take: integers, floating point numbers, `Decimal128`,
/// `AnyRealmValue` and their optionals (Realm's protocol of the same name).
///
///     let total: Double = people.sum(ofProperty: "height")
public protocol AddableType {}
