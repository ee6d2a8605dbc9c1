// RealmCollectionBase.swift — RealmCollectionBase: the requirements RealmCollection builds on.

import Foundation

/// The base of `RealmCollection` (Realm's protocol of the same name): a random-access, thread
/// confined collection of Realm values with integer indexes. Internal machinery of OpenRealm:
/// write generic code against `RealmCollection`.
///
///     func count<C: RealmCollectionBase>(_ collection: C) -> Int { collection.count }
public protocol RealmCollectionBase<Element>: RandomAccessCollection, CustomStringConvertible, ThreadConfined, _ResultsViewable
    where Element: RealmCollectionValue, Index == Int, _ViewElement == Element {}
