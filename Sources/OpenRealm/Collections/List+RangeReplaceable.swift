// List+RangeReplaceable.swift — List's RangeReplaceableCollection conformance, as Realm's List
// has it: replaceSubrange, and through it the collection's insert(contentsOf:at:),
// removeSubrange, removeFirst(_:), ...

import Foundation

extension List: RangeReplaceableCollection {
    /// Replaces the elements in `subrange` with `newElements` (in a write transaction when
    /// managed; removed objects stay in the Realm, removed embedded objects are deleted).
    ///
    ///     person.nicknames.replaceSubrange(0..<2, with: ["Ada"])
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C)
    where C.Element == Element, R.Bound == Int {
        let range = subrange.relative(to: self)
        if range.lowerBound < 0 { indexFailure(range.lowerBound, count) }
        if range.upperBound > count { indexFailure(range.upperBound, count + 1) }
        for _ in range { remove(at: range.lowerBound) }
        for (offset, element) in newElements.enumerated() { insert(element, at: range.lowerBound + offset) }
    }
}
