// RLMIterator.swift — RLMIterator: the iterator of a List or a MutableSet, as in Realm Swift.

import Foundation

/// The iterator of a `List` or a `MutableSet` (Realm's `RLMIterator`): the elements the
/// collection had when iteration started, so that a loop that appends to the collection visits
/// those, as Realm's enumeration does. Elements removed meanwhile end the iteration early.
///
///     for name in person.nicknames { person.nicknames.append(name + "!") }   // visits the old ones
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private let element: (Int) -> Element
    private let currentCount: () -> Int
    private let count: Int
    private var index = 0

    init<C: RandomAccessCollection>(_ collection: C) where C.Element == Element, C.Index == Int {
        element = { collection[$0] }
        currentCount = { collection.count }
        count = collection.count
    }

    /// The next element, or nil at the end.
    public mutating func next() -> Element? {
        guard index < count, index < currentCount() else { return nil }
        defer { index += 1 }
        return element(index)
    }
}
