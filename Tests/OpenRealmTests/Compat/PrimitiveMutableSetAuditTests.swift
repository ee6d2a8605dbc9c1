// PrimitiveMutableSetAuditTests.swift — MutableSets of values against Realm Swift's
// PrimitiveMutableSetTests, for what ValueMatrixTests leaves out: invalidation, duplicates,
// subscripts, value(forKey: "self"), the set algebra between two sets (isSubset, intersects,
// formIntersection, formUnion, subtract), aggregates of empty sets, and sets of PersistableEnum
// and CustomPersistable values.

import Foundation
import Testing

import OpenRealm

/// Two unmanaged holders, or two added to one new in-memory Realm.
private func twoHolders(_ managed: Bool) throws -> (Realm?, PrimitiveAuditHolder, PrimitiveAuditHolder) {
    let (realm, first) = try primitiveAuditHolder(managed)
    let second = PrimitiveAuditHolder()
    if let realm { try realm.write { realm.add(second) } }
    return (realm, first, second)
}

/// Realm's PrimitiveMutableSetTests on three distinct values and two sets of one property.
private func setOperations<T: RealmCollectionValue>(_ realm: Realm?, _ set: MutableSet<T>, _ other: MutableSet<T>,
                                                    _ v: [T], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let kind = "MutableSet<\(T.self)> \(realm == nil ? "unmanaged" : "managed")"
    #expect(!set.isInvalidated, "\(kind)", sourceLocation: sourceLocation)
    try primitiveAuditWrite(realm) {
        set.insert(v[0])
        #expect(set.count == 1 && set.contains(v[0]), "\(kind) insert", sourceLocation: sourceLocation)
        set.insert(v[1])
        set.insert(v[2])
        set.insert(v[2])
        #expect(set.count == 3 && v.allSatisfy(set.contains), "\(kind) a duplicate is not inserted",
                sourceLocation: sourceLocation)
        #expect(Set((0..<3).map { set[$0] }) == Set(v), "\(kind) subscript reaches each value once",
                sourceLocation: sourceLocation)

        set.remove(v[0])
        #expect(set.count == 2 && !set.contains(v[0]) && set.contains(v[1]) && set.contains(v[2]), "\(kind) remove",
                sourceLocation: sourceLocation)
        set.remove(v[0])
        #expect(set.count == 2, "\(kind) removing an absent value", sourceLocation: sourceLocation)
        set.removeAll()
        #expect(set.isEmpty, "\(kind) removeAll", sourceLocation: sourceLocation)

        set.insert(objectsIn: v)
        other.insert(v[0])
        #expect(other.isSubset(of: set) && !set.isSubset(of: other), "\(kind) isSubset", sourceLocation: sourceLocation)
        #expect(other.intersects(set) && set.intersects(other), "\(kind) intersects", sourceLocation: sourceLocation)
        other.remove(v[0])
        #expect(!set.intersects(other) && other.isSubset(of: set), "\(kind) the empty set", sourceLocation: sourceLocation)

        other.insert(v[0])
        set.formIntersection(other)
        #expect(Array(set) == [v[0]], "\(kind) formIntersection", sourceLocation: sourceLocation)

        set.removeAll()
        other.removeAll()
        set.insert(objectsIn: [v[0], v[1]])
        other.insert(objectsIn: [v[0], v[2]])
        set.formUnion(other)
        #expect(set.count == 3 && v.allSatisfy(set.contains), "\(kind) formUnion", sourceLocation: sourceLocation)
        #expect(other.count == 2, "\(kind) formUnion leaves the other set", sourceLocation: sourceLocation)

        set.removeAll()
        set.insert(objectsIn: [v[0], v[1]])
        set.subtract(other)
        #expect(Array(set) == [v[1]], "\(kind) subtract", sourceLocation: sourceLocation)
        set.removeAll()
        other.removeAll()
    }
}

@Suite("MutableSets of values as Realm (PrimitiveMutableSetTests)")
struct PrimitiveMutableSetAuditTests {
    @Test("insert, remove and the set algebra on values of each type", arguments: [false, true])
    func operations(managed: Bool) throws {
        let (realm, a, b) = try twoHolders(managed)
        let date = Date(timeIntervalSince1970: 1_000_000)
        try setOperations(realm, a.intSet, b.intSet, [1, 2, 3])
        try setOperations(realm, a.optStringSet, b.optStringSet, [nil, "a", "c"])
        try setOperations(realm, a.doubleSet, b.doubleSet, [1.1, 2.2, 3.3])
        try setOperations(realm, a.optDateSet, b.optDateSet, [nil, date, date.addingTimeInterval(20)])
        try setOperations(realm, a.decimalSet, b.decimalSet, ["1.1", "2.2", "3.3"])
        try setOperations(realm, a.uuidSet, b.uuidSet, [UUID(), UUID(), UUID()])
        try setOperations(realm, a.dataSet, b.dataSet, [Data("a".utf8), Data("b".utf8), Data("c".utf8)])
        try setOperations(realm, a.rankSet, b.rankSet, [.low, .middle, .high])
        try setOperations(realm, a.optTagSet, b.optTagSet, [nil, .alpha, .gamma])
        try setOperations(realm, a.countSet, b.countSet, [PrimitiveAuditCount(1), PrimitiveAuditCount(2), PrimitiveAuditCount(3)])
        try setOperations(realm, a.optLabelSet, b.optLabelSet, [nil, PrimitiveAuditLabel("a"), PrimitiveAuditLabel("c")])
    }

    @Test("a managed MutableSet is invalidated with its object")
    func invalidatedWithObject() throws {
        let (realm, holder) = try primitiveAuditHolder(true)
        #expect(!holder.intSet.isInvalidated && !PrimitiveAuditHolder().intSet.isInvalidated)
        try realm!.write { realm!.delete(holder) }
        #expect(holder.intSet.isInvalidated && holder.optTagSet.isInvalidated)
    }

    @Test("value(forKey: \"self\") gives the values", arguments: [false, true])
    func valueForSelf(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        #expect(h.intSet.value(forKey: "self").isEmpty)
        try primitiveAuditWrite(realm) { h.intSet.insert(objectsIn: [3, 1, 2, 1]) }
        #expect(Set(h.intSet.value(forKey: "self").compactMap { $0 as? Int }) == [1, 2, 3])
        #expect(h.intSet.value(forKey: "self").count == 3)
    }

    @Test("min, max, sum and average: nil and zero when empty, then of the values, wrappers included",
          arguments: [false, true])
    func aggregates(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        #expect(h.intSet.min() == nil && h.intSet.max() == nil)
        #expect(h.intSet.sum() == 0 && h.intSet.average() as Double? == nil)
        #expect(h.countSet.min() == nil && h.countSet.sum() == PrimitiveAuditCount(0))
        #expect(h.decimalSet.average() as Decimal128? == nil)
        #expect(h.rankSet.max() == nil)
        let noDate: Date? = h.optDateSet.min()
        #expect(noDate == nil)
        try primitiveAuditWrite(realm) {
            h.intSet.insert(objectsIn: [3, 1, 2, 3])
            h.countSet.insert(objectsIn: [2, 7, 3].map { PrimitiveAuditCount($0) })
            h.rankSet.insert(objectsIn: [.middle, .low])
            h.optDateSet.insert(objectsIn: [nil, Date(timeIntervalSince1970: 5), Date(timeIntervalSince1970: 9)])
        }
        #expect(h.intSet.min() == 1 && h.intSet.max() == 3 && h.intSet.sum() == 6 && h.intSet.average() as Double? == 2)
        #expect(h.countSet.min() == PrimitiveAuditCount(2) && h.countSet.max() == PrimitiveAuditCount(7))
        #expect(h.countSet.sum() == PrimitiveAuditCount(12) && h.countSet.average() as Double? == 4)
        #expect(h.rankSet.min() == .low && h.rankSet.max() == .middle)
        let dates: [Date?] = [h.optDateSet.min(), h.optDateSet.max()]
        #expect(dates == [Date(timeIntervalSince1970: 5), Date(timeIntervalSince1970: 9)])
    }

    @Test("managed sets of enums and wrappers sort by their stored values")
    func sorted() throws {
        let (realm, h) = try primitiveAuditHolder(true)
        try realm!.write {
            h.rankSet.insert(objectsIn: [.middle, .high, .low])
            h.optTagSet.insert(objectsIn: [.gamma, nil, .alpha])
            h.countSet.insert(objectsIn: [3, 1, 2].map { PrimitiveAuditCount($0) })
        }
        #expect(Array(h.rankSet.sorted(ascending: true)) == [.low, .middle, .high])
        #expect(Array(h.rankSet.sorted(ascending: false)) == [.high, .middle, .low])
        #expect(Array(h.optTagSet.sorted(ascending: true)) == [nil, .alpha, .gamma])
        #expect(Array(h.countSet.sorted(ascending: false)).map(\.count) == [3, 2, 1])
    }
}
