// RealmCollectionValue.swift — RealmCollectionValue: the element types of Realm's collections.

import Foundation

/// The element types of `List`, `MutableSet`, `Map` values and `Results` (Realm's protocol of
/// the same name): every `_CValueConvertible` type that is also `Hashable`.
///
///     let tags = List<String>()          // String: RealmCollectionValue
public protocol RealmCollectionValue: _CValueConvertible, Hashable {}
