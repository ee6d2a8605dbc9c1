// TypedQueryAggregateAuditTests.swift — typed queries checked against Realm Swift's generated
// QueryTests (the newest template): aggregates of float and decimal collections compared with
// values computed in the element's own type, a map's value under one key, column comparisons
// through a missing link, and aggregates of CustomPersistable collections through a link.

import Foundation
import Testing

import OpenRealm

/// A value stored as a Float (CustomPersistable).
struct TQAGrams: CustomPersistable, Hashable {
    typealias PersistedType = Float
    var grams: Float
    init(persistedValue: Float) { grams = persistedValue }
    var persistableValue: Float { grams }
}

final class TQAMeasures: Object {
    @Persisted var label = ""
    @Persisted var level = 0
    @Persisted var floats: List<Float>
    @Persisted var optFloats: MutableSet<Float?>
    @Persisted var decimals: List<Decimal128>
    @Persisted var decimalMap: Map<String, Decimal128>
    @Persisted var counts: Map<String, Int>
    @Persisted var weights: List<TQAGrams>
    @Persisted var next: TQAMeasures?
}

final class TQAHolder: Object {
    @Persisted var measures: TQAMeasures?
}

private let floatValues: [Float] = [5.55444333, 6.55444333, 7.55444333]
private let decimalValues: [Decimal128] = [Decimal128(123.456), Decimal128(456.789), Decimal128(963.852)]

/// One holder linking one TQAMeasures that holds the three floats and decimals, counts
/// {"a": 1, "b": 2} and weights 1, 2, 3; its `next` link is nil.
private func measuresRealm() throws -> Realm {
    let realm = try Realm(configuration: .init(inMemoryIdentifier: "tqa-\(UUID().uuidString)",
                                               objectTypes: [TQAMeasures.self, TQAHolder.self]))
    try realm.write {
        let measures = TQAMeasures()
        measures.label = "m"
        measures.level = 4
        measures.floats.append(objectsIn: floatValues)
        measures.optFloats.insert(objectsIn: floatValues)
        measures.decimals.append(objectsIn: decimalValues)
        for (key, value) in zip(["x", "y", "z"], decimalValues) { measures.decimalMap[key] = value }
        measures.counts["a"] = 1
        measures.counts["b"] = 2
        measures.weights.append(objectsIn: [Float(1), 2, 3].map(TQAGrams.init(persistedValue:)))
        let holder = TQAHolder()
        holder.measures = measures
        realm.add(holder)
    }
    return realm
}

@Suite("Typed query aggregates and comparisons as Realm (generated QueryTests)")
struct TypedQueryAggregateAuditTests {
    @Test("@sum and @avg of floats equal the sum and average computed in Float")
    func floatAggregates() throws {
        let realm = try measuresRealm()
        let all = realm.objects(TQAMeasures.self)
        let sum = floatValues[0] + floatValues[1] + floatValues[2]
        #expect(all.where { $0.floats.sum == sum }.count == 1)
        #expect(all.where { $0.floats.avg == sum / 3 }.count == 1)
        #expect(all.where { $0.optFloats.sum == sum }.count == 1)
        #expect(all.where { $0.floats.avg > floatValues[0] && $0.floats.avg < floatValues[2] }.count == 1)
        #expect(realm.objects(TQAHolder.self).where { $0.measures.floats.avg == sum / 3 }.count == 1)
        #expect(realm.objects(TQAHolder.self).where { $0.measures.floats.avg != sum / 3 }.count == 0)
    }

    @Test("@sum and @avg of decimals equal the Decimal128 sum and sum / 3, in lists and maps")
    func decimalAggregates() throws {
        let realm = try measuresRealm()
        let all = realm.objects(TQAMeasures.self)
        let sum = decimalValues[0] + decimalValues[1] + decimalValues[2]
        #expect(all.where { $0.decimals.sum == sum }.count == 1)
        #expect(all.where { $0.decimals.avg == sum / 3 }.count == 1)
        #expect(all.where { $0.decimalMap.avg == sum / 3 }.count == 1)
        #expect(all.where { $0.decimalMap.max == decimalValues[2] }.count == 1)
        #expect(realm.objects(TQAHolder.self).where { $0.measures.decimals.avg > decimalValues[0] }.count == 1)
    }

    @Test("a map's value under a key is compared alone, whatever the other keys hold")
    func mapValueUnderKey() throws {
        let realm = try measuresRealm()
        let all = realm.objects(TQAMeasures.self)
        #expect(all.where { $0.counts["a"] == 1 }.count == 1)
        // "b" holds 2, which is not 1 and is greater than 1: only the value under "a" counts.
        #expect(all.where { $0.counts["a"] != 1 }.count == 0)
        #expect(all.where { $0.counts["a"] > 1 }.count == 0)
        #expect(all.where { $0.counts["a"] >= 1 }.count == 1)
        #expect(all.where { $0.counts["a"] < 1 }.count == 0)
        #expect(all.where { $0.counts["missing"] == 2 }.count == 0)
    }

    @Test("comparing a property with itself through a nil link matches as null equals null")
    func columnsThroughMissingLink() throws {
        let realm = try measuresRealm()
        let all = realm.objects(TQAMeasures.self)
        #expect(all.where { $0.next.label == $0.next.label }.count == 1)
        #expect(all.where { $0.next.label != $0.next.label }.count == 0)
        #expect(all.where { $0.next.level >= $0.next.level }.count == 1)
        #expect(all.where { $0.next.level > $0.next.level }.count == 0)
        #expect(all.where { $0.level <= $0.level }.count == 1)
    }

    @Test("aggregates of a CustomPersistable list, directly and through a link")
    func customPersistableAggregates() throws {
        let realm = try measuresRealm()
        #expect(realm.objects(TQAMeasures.self).where { $0.weights.sum == TQAGrams(persistedValue: 6) }.count == 1)
        #expect(realm.objects(TQAMeasures.self).where { $0.weights.avg == TQAGrams(persistedValue: 2) }.count == 1)
        #expect(realm.objects(TQAMeasures.self).where { $0.weights.min == TQAGrams(persistedValue: 1) }.count == 1)
        let holders = realm.objects(TQAHolder.self)
        #expect(holders.where { $0.measures.weights.sum == TQAGrams(persistedValue: 6) }.count == 1)
        #expect(holders.where { $0.measures.weights.max > TQAGrams(persistedValue: 3) }.count == 0)
        #expect(holders.where { $0.measures.weights.count == 3 }.count == 1)
    }
}
