// List+RangeReplaceable.swift — List's RangeReplaceableCollection conformance and the range
// methods Realm's List declares itself (non-mutating, so they work on a `let` list): the range
// subscript, replaceSubrange, insert(contentsOf:at:), removeSubrange, removeFirst(_:),
// removeLast(_:), and SwiftUI's remove(atOffsets:) and move(fromOffsets:toOffset:).

import Foundation

extension List: RangeReplaceableCollection {
    /// Replaces the elements in `subrange` with `newElements` (in a write transaction when
    /// managed; removed objects stay in the Realm, removed embedded objects are deleted).
    ///
    ///     person.nicknames.replaceSubrange(0..<2, with: ["Ada"])
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C)
    where C.Element == Element, R.Bound == Int {
        let range = subrange.relative(to: self)
        // Realm removes at the lower bound once per element of the range, so a bad range stops
        // with the message of the first removal that fails: the lower bound against the count
        // left by then. Checked before anything changes.
        if !range.isEmpty {
            if range.lowerBound < 0 { indexFailure(range.lowerBound, count) }
            if range.upperBound > count { indexFailure(range.lowerBound, Swift.min(count, range.lowerBound)) }
        }
        for _ in range { remove(at: range.lowerBound) }
        for (offset, element) in newElements.enumerated() { insert(element, at: range.lowerBound + offset) }
    }

    /// The elements in `bounds` (get), or replaces them with other elements, of any number (set,
    /// in a write transaction when managed), as Realm's List does.
    ///
    ///     let firstTwo = Array(person.nicknames[0..<2])
    ///     person.nicknames[0..<2] = otherPerson.nicknames[0..<1]    // two replaced by one
    public subscript(bounds: Range<Int>) -> Slice<List> {
        get { Slice(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: newValue) }
    }

    /// Inserts `newElements` at index `i`, in order (in a write transaction when managed).
    ///
    ///     person.nicknames.insert(contentsOf: ["Ada", "Countess"], at: 1)
    public func insert<C: Collection>(contentsOf newElements: C, at i: Int) where C.Element == Element {
        var index = i
        for element in newElements {
            insert(element, at: index)
            index += 1
        }
    }

    /// Removes the elements in `bounds` (in a write transaction when managed; removed objects
    /// stay in the Realm).
    ///
    ///     person.nicknames.removeSubrange(1...2)
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        replaceSubrange(bounds, with: EmptyCollection())
    }

    /// Removes the first `number` elements. A negative number, or more than the list holds, is
    /// a programmer error with Realm's message.
    ///
    ///     person.nicknames.removeFirst(2)
    public func removeFirst(_ number: Int) {
        checkRemovalCount(number)
        for _ in 0..<number { remove(at: 0) }
    }

    /// Removes the last `number` elements. A negative number, or more than the list holds, is a
    /// programmer error with Realm's message.
    ///
    ///     person.nicknames.removeLast(2)
    public func removeLast(_ number: Int) {
        checkRemovalCount(number)
        for _ in 0..<number { remove(at: count - 1) }
    }

    /// Removes the elements at `offsets`, as SwiftUI's `onDelete` gives them.
    ///
    ///     List { ForEach(person.dogs) { Text($0.name) }.onDelete { person.dogs.remove(atOffsets: $0) } }
    public func remove(atOffsets offsets: IndexSet) {
        for offset in offsets.reversed() { remove(at: offset) }
    }

    /// Moves the elements at `offsets` to `destination`, as SwiftUI's `onMove` gives them and as
    /// Realm's List does it: each element in turn goes to `destination` (to the last index when
    /// `destination` is the list's count).
    ///
    ///     person.dogs.move(fromOffsets: IndexSet(integer: 0), toOffset: 2)
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        for offset in offsets {
            move(from: offset, to: destination >= count ? destination - 1 : destination)
        }
    }

    /// Realm's checks for removeFirst(_:) and removeLast(_:) (realm-swift List.swift).
    private func checkRemovalCount(_ number: Int) {
        if number < 0 { throwRealmException("Cannot pass a negative value for 'index'.") }
        let count = self.count
        if number > count {
            throwRealmException("It is not possible to remove more objects (\(number)) from a list"
                + " than it already contains (\(count)).")
        }
    }
}
