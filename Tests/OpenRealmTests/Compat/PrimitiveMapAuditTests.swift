// PrimitiveMapAuditTests.swift — Maps of values against Realm Swift's PrimitiveMapTests, for
// what ValueMatrixTests leaves out: invalidation, enumeration, keys and values, merge,
// updateValue, removing by subscript, setValue(nil) and removeObject, key-value coding,
// aggregates of empty maps, sorted(), and maps of PersistableEnum and CustomPersistable values.

import Foundation
import Testing

import OpenRealm

/// Realm's PrimitiveMapTests on three distinct values, keyed "key0", "key1", "key2".
private func mapOperations<T: RealmCollectionValue>(_ realm: Realm?, _ map: Map<String, T>, _ v: [T],
                                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
    let kind = "Map<String, \(T.self)> \(realm == nil ? "unmanaged" : "managed")"
    let entries = v.enumerated().map { (key: "key\($0.offset)", value: $0.element) }
    #expect(!map.isInvalidated, "\(kind)", sourceLocation: sourceLocation)
    try primitiveAuditWrite(realm) {
        // Insert by subscript.
        map[entries[0].key] = entries[0].value
        #expect(map.count == 1 && map.keys == ["key0"] && map.values.count == 1, "\(kind) insert",
                sourceLocation: sourceLocation)
        #expect(map[entries[0].key] == entries[0].value, "\(kind) subscript", sourceLocation: sourceLocation)
        map[entries[1].key] = entries[1].value
        map[entries[2].key] = entries[2].value
        #expect(map.count == 3 && map.keys == ["key0", "key1", "key2"] && map.values == v, "\(kind) keys and values",
                sourceLocation: sourceLocation)

        // Enumeration gives each key with its value.
        var seen: [String: T] = [:]
        for element in map { seen[element.key] = element.value }
        #expect(seen == Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }), "\(kind) enumeration",
                sourceLocation: sourceLocation)

        // updateValue replaces the value of an existing key.
        map.removeAll()
        map[entries[0].key] = entries[0].value
        map.updateValue(entries[1].value, forKey: entries[0].key)
        #expect(map.count == 1 && map.keys == ["key0"] && map["key0"] == entries[1].value, "\(kind) updateValue",
                sourceLocation: sourceLocation)

        // Removing: setValue(nil), removeAll, subscript nil, removeObject(for:).
        map.removeAll()
        map.merge(entries) { $1 }
        #expect(map.count == 3, "\(kind) merge", sourceLocation: sourceLocation)
        map.setValue(nil, forKey: "key0")
        #expect(map.value(forKey: "key0") == nil && map.count == 2, "\(kind) setValue(nil)", sourceLocation: sourceLocation)
        map.removeAll()
        #expect(map.isEmpty && map["key0"] == nil, "\(kind) removeAll", sourceLocation: sourceLocation)
        map.merge(entries) { $1 }
        map[entries[1].key] = nil
        #expect(map["key1"] == nil && map.count == 2, "\(kind) subscript nil removes the key", sourceLocation: sourceLocation)
        map.removeObject(for: "key2")
        #expect(map.keys == ["key0"], "\(kind) removeObject(for:)", sourceLocation: sourceLocation)

        // A merge keeps what the combining closure picks for keys already there.
        map.merge([(key: "key0", value: entries[2].value), (key: "key1", value: entries[1].value)]) { old, _ in old }
        #expect(map["key0"] == entries[0].value && map["key1"] == entries[1].value, "\(kind) merge keeping old values",
                sourceLocation: sourceLocation)
        map.removeAll()
    }
}

@Suite("Maps of values as Realm (PrimitiveMapTests)")
struct PrimitiveMapAuditTests {
    @Test("insert, update, enumerate and remove values of each type", arguments: [false, true])
    func operations(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        let date = Date(timeIntervalSince1970: 1_000_000)
        try mapOperations(realm, h.intMap, [1, 2, 3])
        try mapOperations(realm, h.optStringMap, ["a", nil, "c"])
        try mapOperations(realm, h.floatMap, [1.1, 2.2, 3.3])
        try mapOperations(realm, h.optDecimalMap, [nil, "1.1", "3.3"])
        try mapOperations(realm, h.dateMap, [date, date.addingTimeInterval(10), date.addingTimeInterval(20)])
        try mapOperations(realm, h.objectIdMap, [ObjectId.generate(), ObjectId.generate(), ObjectId.generate()])
        try mapOperations(realm, h.optBoolMap, [true, nil, false])
        try mapOperations(realm, h.rankMap, [.low, .middle, .high])
        try mapOperations(realm, h.optTagMap, [nil, .alpha, .gamma])
        try mapOperations(realm, h.countMap, [PrimitiveAuditCount(1), PrimitiveAuditCount(2), PrimitiveAuditCount(3)])
        try mapOperations(realm, h.optLabelMap, [PrimitiveAuditLabel("a"), nil, PrimitiveAuditLabel("c")])
    }

    @Test("a key can hold nil in a map of optionals; assigning nil removes the key", arguments: [false, true])
    func storedNil(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        try primitiveAuditWrite(realm) {
            h.optStringMap["held"] = .some(nil)
            h.optStringMap["gone"] = "x"
            h.optStringMap["gone"] = nil
        }
        #expect(h.optStringMap.keys == ["held"])
        #expect(h.optStringMap["held"] == .some(nil))
        #expect(h.optStringMap["gone"] == nil)
    }

    @Test("a managed Map is invalidated with its object")
    func invalidatedWithObject() throws {
        let (realm, holder) = try primitiveAuditHolder(true)
        #expect(!holder.intMap.isInvalidated && !PrimitiveAuditHolder().intMap.isInvalidated)
        try realm!.write { realm!.delete(holder) }
        #expect(holder.intMap.isInvalidated && holder.optTagMap.isInvalidated)
    }

    @Test("value(forKey:), setValue(_:forKey:) and object(forKey:) read and write by key", arguments: [false, true])
    func keyValueCoding(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        #expect(h.intMap.value(forKey: "a") == nil)
        try primitiveAuditWrite(realm) {
            h.intMap.setValue(5, forKey: "a")
            h.rankMap.setValue(PrimitiveAuditRank.high, forKey: "r")
        }
        #expect(h.intMap.value(forKey: "a") as? Int == 5)
        #expect(h.intMap.object(forKey: "a" as NSString) as? Int == 5)
        #expect(h.intMap["a"] == 5)
        #expect(h.rankMap["r"] == .high)
    }

    @Test("min, max, sum and average: nil and zero when empty, then of the values, nil skipped",
          arguments: [false, true])
    func aggregates(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        #expect(h.intMap.min() == nil && h.intMap.max() == nil)
        #expect(h.intMap.sum() == 0 && h.intMap.average() as Double? == nil)
        #expect(h.countMap.min() == nil && h.countMap.sum() == PrimitiveAuditCount(0))
        let noDecimal: Decimal128? = h.optDecimalMap.min()
        #expect(noDecimal == nil && h.optDecimalMap.sum() == 0 && h.optDecimalMap.average() as Decimal128? == nil)
        try primitiveAuditWrite(realm) {
            h.intMap.merge(["a": 1, "b": 2, "c": 6]) { $1 }
            h.intMap.merge(["a": 1, "b": 2, "c": 6]) { $1 }
            h.countMap.merge(["a": PrimitiveAuditCount(4), "b": PrimitiveAuditCount(2)]) { $1 }
            h.optDecimalMap.merge(["a": nil, "b": "1.5", "c": "2.5"]) { $1 }
            h.rankMap.merge(["a": .high, "b": .middle]) { $1 }
        }
        #expect(h.intMap.min() == 1 && h.intMap.max() == 6 && h.intMap.sum() == 9 && h.intMap.average() as Double? == 3)
        #expect(h.countMap.min() == PrimitiveAuditCount(2) && h.countMap.max() == PrimitiveAuditCount(4))
        #expect(h.countMap.sum() == PrimitiveAuditCount(6) && h.countMap.average() as Double? == 3)
        let decimals: [Decimal128?] = [h.optDecimalMap.min(), h.optDecimalMap.max(), h.optDecimalMap.sum(),
                                       h.optDecimalMap.average()]
        #expect(decimals == ["1.5", "2.5", "4", "2"])
        #expect(h.rankMap.min() == .middle && h.rankMap.max() == .high)
    }

    @Test("maps of enums and wrappers aggregate by their persisted type (MinMaxPrimitiveMapTests)",
          arguments: [false, true])
    func enumAndWrapperAggregates(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        #expect(h.rankMap.min() == nil && h.rankMap.max() == nil)
        let noRank: PrimitiveAuditRank? = h.optRankMap.min()
        #expect(noRank == nil)
        #expect(h.countMap.sum() == PrimitiveAuditCount(0) && h.countMap.average() as Double? == nil)
        try primitiveAuditWrite(realm) {
            h.rankMap.merge(["a": .middle, "b": .low, "c": .high]) { $1 }
            h.optRankMap.merge(["a": nil, "b": .high, "c": .middle]) { $1 }
            h.countMap.merge(["a": PrimitiveAuditCount(5), "b": PrimitiveAuditCount(1)]) { $1 }
        }
        #expect(h.rankMap.min() == .low && h.rankMap.max() == .high)
        let ranks: [PrimitiveAuditRank?] = [h.optRankMap.min(), h.optRankMap.max()]
        #expect(ranks == [.middle, .high])
        #expect(h.countMap.min() == PrimitiveAuditCount(1) && h.countMap.max() == PrimitiveAuditCount(5))
        #expect(h.countMap.sum() == PrimitiveAuditCount(6) && h.countMap.average() as Double? == 3)
    }

    @Test("sorted() and sorted(ascending:) of a managed map's values, enums and wrappers included")
    func sortedValues() throws {
        let (realm, h) = try primitiveAuditHolder(true)
        try realm!.write {
            h.intMap.merge(["x": 3, "y": 1, "z": 2]) { $1 }
            h.optTagMap.merge(["x": .gamma, "y": nil, "z": .alpha]) { $1 }
            h.countMap.merge(["x": PrimitiveAuditCount(2), "y": PrimitiveAuditCount(9)]) { $1 }
        }
        #expect(Array(h.intMap.sorted()) == [1, 2, 3])
        #expect(Array(h.intMap.sorted(ascending: true)) == [1, 2, 3])
        #expect(Array(h.intMap.sorted(ascending: false)) == [3, 2, 1])
        #expect(Array(h.optTagMap.sorted()) == [nil, .alpha, .gamma])
        #expect(Array(h.countMap.sorted(ascending: false)).map(\.count) == [9, 2])
    }
}
