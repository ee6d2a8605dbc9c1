// RLMIterator.swift — RLMIterator: the iterator of a List or a MutableSet, as in Realm Swift.

import Foundation

/// The iterator of a `List` or a `MutableSet` (Realm's `RLMIterator`), which visits what Realm's
/// enumeration visits: an unmanaged collection's elements, and a managed collection's objects,
/// as they were when iteration started (a snapshot: removing or adding elements in the loop
/// changes nothing it visits); a managed collection of values live, by position, up to the
/// count it had when iteration started (removing values in the loop ends it early, as Realm's
/// live enumeration of values does).
///
///     for dog in person.dogs { try realm.write { person.dogs.remove(at: 0) } }    // visits every dog
///     for name in person.nicknames { person.nicknames.append(name + "!") }        // visits the old ones
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private let element: (Int) -> Element
    private let currentCount: () -> Int
    private let count: Int
    private var index = 0

    /// Live, by position (a managed collection of values).
    init<C: RandomAccessCollection>(_ collection: C) where C.Element == Element, C.Index == Int {
        element = { collection[$0] }
        currentCount = { collection.count }
        count = collection.count
    }

    /// A snapshot: `count` elements, each made when reached by `element`.
    init(snapshotCount: Int, element: @escaping (Int) -> Element) {
        self.element = element
        currentCount = { snapshotCount }
        count = snapshotCount
    }

    /// The next element, or nil at the end.
    public mutating func next() -> Element? {
        guard index < count, index < currentCount() else { return nil }
        defer { index += 1 }
        return element(index)
    }
}
