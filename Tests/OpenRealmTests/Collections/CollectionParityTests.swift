// CollectionParityTests.swift — List, MutableSet, Map and Results behaving as Realm Swift's own
// tests (ListTests, MapTests, RealmCollectionTypeTests) say they do.

import Foundation
import Testing

import OpenRealm

final class ParityItem: Object {
    @Persisted var intCol = 0
    @Persisted var doubleCol = 0.0
    @Persisted var stringCol = ""
    @Persisted var boolCol = false
    @Persisted var dateCol = Date(timeIntervalSince1970: 0)
}

final class ParityHolder: Object {
    @Persisted var list: List<ParityItem>
    @Persisted var set: MutableSet<ParityItem>
    @Persisted var map: Map<String, ParityItem?>
    @Persisted var ints: List<Int>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var intMap: Map<String, Int>
}

@Suite("Collections as Realm")
struct CollectionParityTests {
    private func items() -> [ParityItem] {
        [ParityItem(value: [1, 1.11, "1", false, Date(timeIntervalSince1970: 1)]),
         ParityItem(value: [2, 2.22, "2", false, Date(timeIntervalSince1970: 2)]),
         ParityItem(value: [3, 2.22, "3", true, Date(timeIntervalSince1970: 2)])]
    }

    private func realm() throws -> Realm { try memoryRealm([ParityItem.self, ParityHolder.self]) }

    @Test("unmanaged collections are equal by contents (ListTests.testUnmanagedListComparison)")
    func unmanagedEquality() {
        let objects = items()
        let list1 = List<ParityItem>(), list2 = List<ParityItem>(), list3 = List<ParityItem>()
        #expect(list1 == list2)
        list1.append(objectsIn: objects)
        list2.append(objectsIn: objects)
        list3.append(objectsIn: objects.prefix(2))
        #expect(list1 !== list2)
        #expect(list1 == list2)
        #expect(list1 != list3)
        #expect(list1.isEqual(list2))
        #expect(!list1.isEqual(list3))
        list3.append(objects[2])
        #expect(list1 == list3)

        let map1 = Map<String, ParityItem?>(), map2 = Map<String, ParityItem?>(), map3 = Map<String, ParityItem?>()
        #expect(map1 == map2)
        map1.merge(["a": objects[0], "b": objects[1]]) { old, _ in old }
        map2.merge(["a": objects[0], "b": objects[1]]) { old, _ in old }
        map3["a"] = objects[0]
        #expect(map1 == map2)
        #expect(map1 != map3)
        map3["b"] = objects[1]
        #expect(map1.isEqual(map3))

        let set1 = MutableSet<Int>(), set2 = MutableSet<Int>()
        set1.insert(objectsIn: [1, 2, 3])
        set2.insert(objectsIn: [3, 2])
        #expect(set1 != set2)
        set2.insert(1)
        #expect(set1 == set2)
        #expect(Set([set1, set2]).count == 1)
    }

    @Test("managed collections are equal when they are the same collection of the same Realm")
    func managedEquality() throws {
        let realm = try realm()
        let (first, second) = try realm.write {
            (realm.create(ParityHolder.self, value: ["ints": [1]]), realm.create(ParityHolder.self, value: ["ints": [1]]))
        }
        #expect(first.ints == first.ints)
        #expect(first.ints == realm.objects(ParityHolder.self)[0].ints)
        #expect(first.ints != second.ints)
        #expect(first.intSet == first.intSet)
        #expect(first.intMap == first.intMap)
        #expect(first.intMap != second.intMap)
        let unmanaged = List<Int>()
        unmanaged.append(1)
        #expect(first.ints != unmanaged)
        #expect(Set([first.ints, realm.objects(ParityHolder.self)[0].ints]).count == 1)
    }
}

@Suite("Maps of objects as Realm")
struct MapParityTests {
    @Test("aggregates of a map of objects, unmanaged and managed (MapTests.testKeyedAggregatable)")
    func keyedAggregates() throws {
        let holder = ParityHolder()
        for (index, value) in [1, 2, 3].enumerated() {
            holder.map["key\(index)"] = ParityItem(value: ["intCol": value, "doubleCol": Double(value) / 2])
        }
        func check() {
            #expect(holder.map.min(of: \.intCol) == 1)
            #expect(holder.map.max(of: \.intCol) == 3)
            #expect(holder.map.sum(of: \.intCol) == 6)
            #expect(holder.map.average(of: \.intCol) == 2)
            #expect(holder.map.min(ofProperty: "doubleCol") as Double? == 0.5)
            #expect(holder.map.sum(ofProperty: "doubleCol") as Double == 3)
            #expect(holder.map.average(ofProperty: "intCol") as Double? == 2)
        }
        check()
        let realm = try memoryRealm([ParityItem.self, ParityHolder.self])
        try realm.write { realm.add(holder) }
        check()
        let sorted = holder.map.sorted(by: \.intCol, ascending: false)
        #expect(sorted.map { $0?.intCol } == [3, 2, 1])
    }
}

@Suite("Key-value coding operators of collections as Realm")
struct CollectionOperatorTests {
    @Test("@count, @min, @max, @sum, @avg and @unionOfObjects (RealmCollectionTypeTests.testValueForKeyPath)")
    func operators() throws {
        let holder = ParityHolder()
        let values = [(1, 1.11, "1"), (2, 2.22, "2"), (3, 2.22, "2")]
        for (int, double, string) in values {
            holder.list.append(ParityItem(value: ["intCol": int, "doubleCol": double, "stringCol": string,
                                                  "dateCol": Date(timeIntervalSince1970: Double(int))]))
        }
        func check<C: RealmCollection>(_ collection: C) where C.Element == ParityItem {
            #expect(collection.value(forKeyPath: "@count") as? Int == 3)
            #expect(collection.value(forKeyPath: "@max.intCol") as? Int == 3)
            #expect(collection.value(forKeyPath: "@min.intCol") as? Int == 1)
            #expect(collection.value(forKeyPath: "@sum.intCol") as? Int == 6)
            #expect(collection.value(forKeyPath: "@avg.intCol") as? Double == 2)
            #expect(collection.value(forKeyPath: "@max.doubleCol") as? Double == 2.22)
            #expect(collection.value(forKeyPath: "@min.dateCol") as? Date == Date(timeIntervalSince1970: 1))
            #expect(collection.value(forKeyPath: "@unionOfObjects.stringCol") as? [String] == ["1", "2", "2"])
            #expect(collection.value(forKeyPath: "@distinctUnionOfObjects.stringCol") as? [String] == ["1", "2"])
        }
        check(holder.list)
        let realm = try memoryRealm([ParityItem.self, ParityHolder.self])
        try realm.write { realm.add(holder) }
        check(holder.list)
        check(realm.objects(ParityItem.self))
        let none = realm.objects(ParityItem.self).filter("intCol > 10")
        #expect(none.value(forKeyPath: "@max.intCol") == nil)
        #expect(none.value(forKeyPath: "@sum.intCol") as? Int == 0)
    }
}

@Suite("Unmanaged collections: Realm's messages")
struct UnmanagedCollectionMessageTests {
    @Test("sorting an unmanaged set names RLMSet, as Realm's message does")
    func unmanagedSetSort() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let holder = ParityHolder()
            holder.set.insert(ParityItem())
            _ = holder.set.sorted(byKeyPath: "intCol")
        }
        expectStop("This method may only be called on RLMSet instances retrieved from an RLMRealm", result)
    }

    @Test("filtering a managed list of values stops with Realm's message and nothing after it")
    func filterValues() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try memoryRealm([ParityItem.self, ParityHolder.self])
            let holder = try realm.write { realm.create(ParityHolder.self, value: ["ints": [1, 2]]) }
            _ = holder.ints.filter("self > 1")
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Querying is currently only implemented for arrays of Realm Objects\n"), "\(stderr)")
    }

    @Test("filtering an unmanaged map names RLMDictionary, as Realm's message does")
    func unmanagedMapFilter() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let holder = ParityHolder()
            holder.map["a"] = ParityItem()
            _ = holder.map.filter("intCol = 1")
        }
        expectStop("This method may only be called on RLMDictionary instances retrieved from an RLMRealm", result)
    }
}

@Suite("Invalidated collections as Realm")
struct InvalidatedCollectionTests {
    @Test("invalidate() invalidates the results and collections made before it (testInvalidate)")
    func invalidateRealm() throws {
        let realm = try memoryRealm([ParityItem.self, ParityHolder.self])
        let holder = try realm.write { realm.create(ParityHolder.self, value: ["ints": [1, 2], "list": [[1]]]) }
        let results = realm.objects(ParityItem.self)
        let filtered = results.filter("intCol > 0")
        let ints = holder.ints, sortedInts = holder.ints.sorted()
        #expect(!results.isInvalidated && !filtered.isInvalidated && !ints.isInvalidated && !sortedInts.isInvalidated)
        realm.invalidate()
        #expect(results.isInvalidated)
        #expect(filtered.isInvalidated)
        #expect(ints.isInvalidated)
        #expect(sortedInts.isInvalidated)
        #expect(!realm.objects(ParityItem.self).isInvalidated)
        #expect(!realm.objects(ParityItem.self).freeze().isInvalidated)
        // Results made after invalidate() read the version the Realm reads next.
        #expect(realm.objects(ParityItem.self).filter("intCol > 0").count == 1)
    }

    @Test("deleting the object invalidates its collections and their results (ListTests.testInvalidated)")
    func deleteParent() throws {
        let realm = try memoryRealm([ParityItem.self, ParityHolder.self])
        let holder = try realm.write { realm.create(ParityHolder.self, value: ["ints": [1, 2]]) }
        let ints = holder.ints, map = holder.intMap, set = holder.intSet, sorted = holder.ints.sorted()
        try realm.write { realm.delete(holder) }
        #expect(ints.isInvalidated && map.isInvalidated && set.isInvalidated && sorted.isInvalidated)
    }
}

/// Generic code over Realm's keyed collection protocol, as ports write it.
private func describeKeyed<M: RealmKeyedCollection>(_ map: M) -> (count: Int, top: Int?, frozen: Bool) where M.Value == ParityItem? {
    (map.count, map.max(ofProperty: "intCol"), map.freeze().isFrozen)
}

@Suite("RealmKeyedCollection as Realm's protocol")
struct KeyedCollectionProtocolTests {
    @Test("generic code reads, sorts, aggregates and freezes through RealmKeyedCollection")
    func genericKeyedCollection() throws {
        let realm = try memoryRealm([ParityItem.self, ParityHolder.self])
        let holder = try realm.write {
            realm.create(ParityHolder.self, value: ["map": ["a": ["intCol": 4], "b": ["intCol": 7]]])
        }
        let summary = describeKeyed(holder.map)
        #expect(summary.count == 2 && summary.top == 7 && summary.frozen)
        func sortedValues<M: RealmKeyedCollection>(_ map: M) -> Results<M.Value> { map.sorted(byKeyPath: "intCol", ascending: false) }
        #expect(sortedValues(holder.map).map { $0?.intCol } == [7, 4])
    }
}
