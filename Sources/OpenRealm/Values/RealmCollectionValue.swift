// RealmCollectionValue.swift — RealmCollectionValue: the element types of Realm's collections.

import Foundation

/// The element types of `List`, `MutableSet`, `Map` values and `Results` (Realm's protocol of
/// the same name): the stored types, hashable, each naming the type it is stored as. Generic
/// code over Realm's collections constrains on it:
///
///     func firstTwo<T: RealmCollectionValue>(_ list: List<T>) -> [T] { Array(list.prefix(2)) }
///     let tags = List<String>()          // String: RealmCollectionValue
public protocol RealmCollectionValue: _CValueConvertible, Hashable, _HasPersistedType
where PersistedType: RealmCollectionValue {}
