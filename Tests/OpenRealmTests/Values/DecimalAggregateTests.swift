// DecimalAggregateTests.swift — sums and averages of Decimal128 are exact decimals (never through
// a Double) on Results, List, MutableSet and Map, managed and unmanaged.

import Foundation
import Testing

import OpenRealm

/// Decimal values in every kind of collection, and as a property of its objects.
final class Ledger: Object {
    @Persisted var amount: Decimal128
    @Persisted var optionalAmount: Decimal128?
    @Persisted var entries: List<Decimal128>
    @Persisted var optionalEntries: List<Decimal128?>
    @Persisted var distinctEntries: MutableSet<Decimal128>
    @Persisted var entriesByName: Map<String, Decimal128>
}

/// 0.1 as a decimal (a Double cannot hold it: ten of them add up to 0.9999999999999999).
private let tenth = Decimal128(stringLiteral: "0.1")

@Suite("Decimal128 aggregates")
struct DecimalAggregateTests {
    @Test("0.1 as a Double does not add up to 1 ten times (what the tests below guard against)")
    func doubleIsInexact() {
        #expect((0..<10).reduce(0.0) { sum, _ in sum + 0.1 } != 1.0)
        #expect(0.1 + 0.2 + 0.3 != 0.6)
    }

    @Test("sum and average of a Decimal128 property over Results: exact")
    func results() throws {
        let realm = try memoryRealm([Ledger.self])
        try realm.write {
            for _ in 0..<10 { realm.create(Ledger.self, value: ["amount": tenth, "optionalAmount": tenth]) }
            realm.create(Ledger.self, value: ["amount": Decimal128(0)])   // optionalAmount nil: skipped
        }
        let ledgers = realm.objects(Ledger.self)
        #expect(ledgers.sum(ofProperty: "amount") as Decimal128 == Decimal128(stringLiteral: "1"))
        #expect(ledgers.sum(ofProperty: "optionalAmount") as Decimal128 == Decimal128(1))
        #expect(ledgers.sum(ofProperty: "optionalAmount") as Decimal128? == Decimal128(1))
        #expect(ledgers.average(ofProperty: "optionalAmount") as Decimal128? == tenth)
        #expect(ledgers.average(ofProperty: "amount") as Decimal128? == Decimal128(1) / Decimal128(11))
        #expect(ledgers.filter("amount > 0").sum(of: \.amount) == Decimal128(1))
        #expect(ledgers.filter("amount > 0").average(of: \.amount) == tenth)
        // Through RealmCollection and AnyRealmCollection, the same exact values.
        func total<C: RealmCollection>(_ c: C) -> Decimal128 where C.Element == Ledger { c.sum(ofProperty: "amount") }
        #expect(total(ledgers) == Decimal128(1))
        #expect(total(AnyRealmCollection(ledgers)) == Decimal128(1))
    }

    @Test("sum and average of a List<Decimal128>, managed and unmanaged: exact")
    func list() throws {
        let realm = try memoryRealm([Ledger.self])
        let ledger = try realm.write {
            realm.create(Ledger.self, value: ["entries": Array(repeating: tenth, count: 10),
                                              "optionalEntries": Array(repeating: tenth, count: 10) + [nil]])
        }
        #expect(ledger.entries.sum() == Decimal128(1))
        #expect(ledger.entries.average() as Decimal128? == tenth)
        #expect(ledger.optionalEntries.sum() == Decimal128(1))
        #expect(ledger.optionalEntries.average() as Decimal128?? == tenth)
        let loose = List<Decimal128>()
        loose.append(objectsIn: Array(repeating: tenth, count: 10))
        #expect(loose.sum() == Decimal128(1))
        #expect(loose.average() as Decimal128? == tenth)
        // Results of a list's objects' decimals (a list of links) are exact too.
        let third = Decimal128(stringLiteral: "0.3")
        try realm.write { ledger.entries.append(third) }
        #expect(ledger.entries.sum() == Decimal128(stringLiteral: "1.3"))
        #expect(ledger.entries.sum().stringValue == "1.3")
    }

    @Test("sum and average of a MutableSet<Decimal128>, managed and unmanaged: exact")
    func mutableSet() throws {
        let realm = try memoryRealm([Ledger.self])
        let values = ["0.1", "0.2", "0.3"].map { Decimal128(stringLiteral: $0) }
        let ledger = try realm.write { realm.create(Ledger.self, value: ["distinctEntries": values]) }
        #expect(ledger.distinctEntries.sum() == Decimal128(stringLiteral: "0.6"))
        #expect(ledger.distinctEntries.average() as Decimal128? == Decimal128(stringLiteral: "0.2"))
        let loose = MutableSet<Decimal128>()
        loose.insert(objectsIn: values)
        #expect(loose.sum() == Decimal128(stringLiteral: "0.6"))
        #expect(loose.average() as Decimal128? == Decimal128(stringLiteral: "0.2"))
    }

    @Test("sum and average of a Map<String, Decimal128>, managed and unmanaged: exact")
    func map() throws {
        let realm = try memoryRealm([Ledger.self])
        let values = Dictionary(uniqueKeysWithValues: (0..<10).map { ("k\($0)", tenth) })
        let ledger = try realm.write { realm.create(Ledger.self, value: ["entriesByName": values]) }
        #expect(ledger.entriesByName.sum() == Decimal128(1))
        #expect(ledger.entriesByName.average() as Decimal128? == tenth)
        let loose = Map<String, Decimal128>()
        for (key, value) in values { loose[key] = value }
        #expect(loose.sum() == Decimal128(1))
        #expect(loose.average() as Decimal128? == tenth)
    }

    @Test("a list of mixed values aggregates its numbers, summed as exact decimals (unmanaged: read as a double, as Realm)")
    func mixed() throws {
        let realm = try memoryRealm()
        let values: [AnyRealmValue] = [.int(2), .string("x"), .decimal128(tenth), .none, .double(0.5), .bool(true)]
        let collections = try realm.write {
            let collections = realm.create(Collections.self)
            collections.mixedList.append(objectsIn: values)
            return collections
        }
        let loose = List<AnyRealmValue>()
        loose.append(objectsIn: values)
        let managed = collections.mixedList
        #expect(managed.sum() == .decimal128(Decimal128(stringLiteral: "2.6")))
        #expect(managed.average() as AnyRealmValue? == .decimal128(Decimal128(stringLiteral: "2.6") / Decimal128(3)))
        // Realm sums an unmanaged collection with Foundation's @sum and @avg: a double.
        #expect(loose.sum() == .double(2.6))
        #expect(loose.average() as AnyRealmValue? == .double((Decimal128(stringLiteral: "2.6") / Decimal128(3)).doubleValue))
        for list in [managed, loose] {
            #expect(list.max() == .int(2))
            #expect(list.min() == .decimal128(tenth))
        }
        let tenths = List<AnyRealmValue>()
        tenths.append(objectsIn: Array(repeating: .decimal128(tenth), count: 10))
        #expect(tenths.sum() == .double(1))
        let managedTenths = try realm.write { () -> List<AnyRealmValue> in
            let holder = realm.create(Collections.self)
            holder.mixedList.append(objectsIn: Array(repeating: .decimal128(tenth), count: 10))
            return holder.mixedList
        }
        #expect(managedTenths.sum() == .decimal128(Decimal128(1)))
    }
}
