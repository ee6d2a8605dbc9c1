// Decimal128AverageTests.swift — average() of collections of Decimal128: the exact decimal
// quotient (as realm-core's Decimal128 average), read as a Decimal128 or as a Double.

import Foundation
import Testing

import OpenRealm

final class DecimalCollections: Object {
    @Persisted var list: List<Decimal128>
    @Persisted var set: MutableSet<Decimal128>
    @Persisted var map: Map<String, Decimal128>
    @Persisted var optionalSet: MutableSet<Decimal128?>
    @Persisted var optionalMap: Map<String, Decimal128?>
}

@Suite("Decimal128 averages")
struct Decimal128AverageTests {
    private func holder(managed: Bool) throws -> DecimalCollections {
        let holder = DecimalCollections()
        let values: [Decimal128] = ["0.1", "0.2", "0.4"]
        holder.list.append(objectsIn: values)
        holder.set.insert(objectsIn: values)
        holder.optionalSet.insert(objectsIn: values + [nil])
        for (i, value) in values.enumerated() {
            holder.map["k\(i)"] = value
            holder.optionalMap["k\(i)"] = value
        }
        holder.optionalMap.updateValue(nil, forKey: "none")
        guard managed else { return holder }
        let realm = try Realm(configuration: .init(
            inMemoryIdentifier: "decimal-average-\(UUID().uuidString)", objectTypes: [DecimalCollections.self]))
        try realm.write { realm.add(holder) }
        return holder
    }

    @Test("the average of a List, MutableSet and Map of Decimal128 is the decimal quotient", arguments: [false, true])
    func decimalAverage(managed: Bool) throws {
        let holder = try holder(managed: managed)
        let expected = Decimal128("0.7") / Decimal128(3)
        let averages: [Decimal128?] = [holder.list.average(), holder.set.average(), holder.map.average(),
                                       holder.optionalSet.average(), holder.optionalMap.average()]
        #expect(averages == [expected, expected, expected, expected, expected])
        #expect(holder.set.sum() == Decimal128("0.7") && holder.map.sum() == Decimal128("0.7"))
    }

    @Test("the average of Decimal128 values read as a Double is the decimal's value", arguments: [false, true])
    func decimalAverageAsDouble(managed: Bool) throws {
        let holder = try holder(managed: managed)
        let averages: [Double?] = [holder.list.average(), holder.set.average(), holder.map.average()]
        for average in averages {
            #expect(abs(try #require(average) - 0.7 / 3) < 1e-12)
        }
    }
}
