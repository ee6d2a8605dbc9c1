// ValueCollectionTests.swift — what Realm offers on every collection of values (Realm Swift's
// RealmCollection extensions where Element.PersistedType is SortableType, MinMaxType or
// AddableType, and Map's): sorted(ascending:), distinct(), min/max/sum/average, chained, on
// Results, List, MutableSet, Map and AnyRealmCollection of every value type; Map's
// setValue(_:forKey:); Realm's messages for sorting values by another key path.

import Foundation
import Testing

import OpenRealm

/// Collections of values of every type Realm sorts.
final class ValueCollectionsHolder: Object {
    @Persisted var ints: List<Int>
    @Persisted var optionalInts: List<Int?>
    @Persisted var decimals: List<Decimal128>
    @Persisted var objectIds: List<ObjectId>
    @Persisted var uuids: MutableSet<UUID>
    @Persisted var dates: List<Date>
    @Persisted var datas: MutableSet<Data>
    @Persisted var optionalStrings: List<String?>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var doubleMap: Map<String, Double>
    @Persisted var optionalStringMap: Map<String, String?>
    @Persisted var dogMap: Map<String, Dog?>
}

private func valuesRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "values-\(UUID().uuidString)"))
}

@Suite("Collections of values: sort, distinct and aggregates as Realm")
struct ValueCollectionTests {
    @Test("sorted(ascending:) and distinct() of a List, chained either way")
    func listSortDistinct() throws {
        let realm = try valuesRealm()
        let holder = ValueCollectionsHolder()
        try realm.write {
            realm.add(holder)
            holder.ints.append(objectsIn: [3, 1, 3, 2, 1])
        }
        #expect(Array(holder.ints.sorted(ascending: true)) == [1, 1, 2, 3, 3])
        #expect(Array(holder.ints.distinct()) == [3, 1, 2])
        #expect(Array(holder.ints.distinct().sorted(ascending: false)) == [3, 2, 1])
        #expect(Array(holder.ints.sorted(ascending: false).distinct()) == [3, 2, 1])
        #expect(Array(holder.ints.sorted(byKeyPath: "self", ascending: false)) == [3, 3, 2, 1, 1])
        #expect(Array(holder.ints.distinct(by: ["self"])) == [3, 1, 2])
        #expect(holder.ints.distinct().count == 3)
        #expect(holder.ints.distinct()[2] == 2)
        #expect(holder.ints.distinct().index(of: 2) == 2)
        // An empty list of descriptors or key paths leaves the values as they are (Realm's).
        let noDescriptors: [OpenRealm.SortDescriptor] = []
        #expect(Array(holder.ints.sorted(by: noDescriptors)) == [3, 1, 3, 2, 1])
        // Live: the results read the list's current values.
        let distinct = holder.ints.distinct()
        try realm.write { holder.ints.append(7) }
        #expect(Array(distinct) == [3, 1, 2, 7])
    }

    @Test("sorting and distinct of optional values, nil first ascending")
    func optionalValues() throws {
        let realm = try valuesRealm()
        let holder = ValueCollectionsHolder()
        try realm.write {
            realm.add(holder)
            holder.optionalInts.append(objectsIn: [2, nil, 1, nil, 2])
            holder.optionalStrings.append(objectsIn: ["b", nil, "a", "b"])
        }
        #expect(Array(holder.optionalInts.sorted(ascending: true)) == [nil, nil, 1, 2, 2])
        #expect(Array(holder.optionalInts.sorted(ascending: false)) == [2, 2, 1, nil, nil])
        #expect(Array(holder.optionalInts.distinct()) == [2, nil, 1])
        #expect(Array(holder.optionalStrings.distinct().sorted(ascending: true)) == [nil, "a", "b"])
        #expect(holder.optionalInts.distinct().sum() == 3)
    }

    @Test("every value type: Decimal128, ObjectId, UUID, Date, Data, AnyRealmValue")
    func everyType() throws {
        let realm = try valuesRealm()
        let holder = ValueCollectionsHolder()
        let ids = [ObjectId("000000000000000000000002"), ObjectId("000000000000000000000001")]
        let uuids = [UUID(uuidString: "00000000-0000-0000-0000-000000000002")!,
                     UUID(uuidString: "00000000-0000-0000-0000-000000000001")!]
        let early = Date(timeIntervalSince1970: 10), late = Date(timeIntervalSince1970: 20)
        try realm.write {
            realm.add(holder)
            holder.decimals.append(objectsIn: [Decimal128(2.5), Decimal128(1), Decimal128(2.5)])
            holder.objectIds.append(objectsIn: [ids[0], ids[1], ids[0]])
            holder.uuids.insert(objectsIn: uuids)
            holder.dates.append(objectsIn: [late, early, late])
            holder.datas.insert(objectsIn: [Data([2]), Data([1, 5])])
            holder.mixed.append(objectsIn: [.string("x"), .int(2), .int(1), .int(2), .none])
        }
        #expect(Array(holder.decimals.sorted(ascending: true)) == [Decimal128(1), Decimal128(2.5), Decimal128(2.5)])
        #expect(Array(holder.decimals.distinct()) == [Decimal128(2.5), Decimal128(1)])
        #expect(Array(holder.objectIds.distinct().sorted(ascending: true)) == [ids[1], ids[0]])
        #expect(Array(holder.uuids.sorted(ascending: false)) == uuids)
        #expect(Array(holder.dates.distinct().sorted(ascending: true)) == [early, late])
        #expect(holder.dates.distinct().min() == early)
        #expect(Array(holder.datas.sorted(ascending: true)) == [Data([1, 5]), Data([2])])
        #expect(Array(holder.mixed.distinct()) == [.string("x"), .int(2), .int(1), .none])
        #expect(Array(holder.mixed.sorted(ascending: true)).first == AnyRealmValue.none)
        #expect(holder.decimals.distinct().sum() == Decimal128(3.5))
    }

    @Test("Results and AnyRealmCollection of values sort, distinct and aggregate again")
    func resultsOfValues() throws {
        let realm = try valuesRealm()
        let holder = ValueCollectionsHolder()
        try realm.write {
            realm.add(holder)
            holder.ints.append(objectsIn: [5, 1, 5, 3])
            holder.intSet.insert(objectsIn: [4, 8, 6])
        }
        let sorted: Results<Int> = holder.ints.sorted(ascending: true)
        #expect(Array(sorted.distinct()) == [1, 3, 5])
        #expect(Array(sorted.sorted(ascending: false)) == [5, 5, 3, 1])
        #expect(sorted.min() == 1)
        #expect(sorted.max() == 5)
        #expect(sorted.sum() == 14)
        #expect(sorted.distinct().sum() == 9)
        #expect(sorted.distinct().average() as Double? == 3)
        let any = AnyRealmCollection(holder.intSet)
        #expect(Array(any.sorted(ascending: false)) == [8, 6, 4])
        #expect(Array(any.distinct()).sorted() == [4, 6, 8])
        #expect(any.min() == 4)
        #expect(any.sum() == 18)
        let anyList = AnyRealmCollection(holder.ints)
        #expect(Array(anyList.distinct()) == [5, 1, 3])
        // Generic code over RealmCollection.
        func smallestFirst<C: RealmCollection>(_ values: C) -> [Int] where C.Element == Int {
            Array(values.distinct().sorted(ascending: true))
        }
        #expect(smallestFirst(holder.ints) == [1, 3, 5])
        #expect(smallestFirst(holder.intSet) == [4, 6, 8])
    }

    @Test("a Map's values: sorted(ascending:), distinct(), aggregates")
    func mapValues() throws {
        let realm = try valuesRealm()
        let holder = ValueCollectionsHolder()
        try realm.write {
            realm.add(holder)
            holder.doubleMap["a"] = 2.5
            holder.doubleMap["b"] = 0.5
            holder.doubleMap["c"] = 2.5
            holder.optionalStringMap["x"] = "q"
            holder.optionalStringMap["y"] = .some(nil)  // a nil value, not a removal
            holder.optionalStringMap.updateValue(nil, forKey: "z")
        }
        #expect(Array(holder.doubleMap.sorted(ascending: true)) == [0.5, 2.5, 2.5])
        #expect(Array(holder.doubleMap.distinct()) == [2.5, 0.5])
        #expect(Array(holder.doubleMap.distinct(by: ["self"]).sorted(ascending: true)) == [0.5, 2.5])
        #expect(holder.doubleMap.distinct().sum() == 3)
        #expect(Array(holder.optionalStringMap.sorted(ascending: true)) == [nil, nil, "q"])
        #expect(Array(holder.optionalStringMap.distinct()) == ["q", nil])
    }

    @Test("Map.setValue(_:forKey:) sets, replaces and (with nil) removes the key's value")
    func mapSetValue() throws {
        let realm = try valuesRealm()
        let holder = ValueCollectionsHolder()
        try realm.write {
            realm.add(holder)
            holder.doubleMap.setValue(1.5, forKey: "a")
            holder.doubleMap.setValue(2, forKey: "b")
            holder.doubleMap.setValue(3.5, forKey: "a")
        }
        #expect(holder.doubleMap["a"] == 3.5)
        #expect(holder.doubleMap["b"] == 2)
        try realm.write { holder.doubleMap.setValue(nil, forKey: "a") }
        #expect(holder.doubleMap.keys == ["b"])
        // A map of objects takes an object, or the values of a new one.
        let rex = Dog(value: ["name": "Rex", "age": 3])
        try realm.write {
            holder.dogMap.setValue(rex, forKey: "rex")
            holder.dogMap.setValue(["name": "Fido", "age": 5], forKey: "fido")
        }
        #expect(rex.realm != nil)
        #expect(holder.dogMap["rex"]??.name == "Rex")
        #expect(holder.dogMap["fido"]??.age == 5)
        #expect(realm.objects(Dog.self).count == 2)
        try realm.write { holder.dogMap.setValue(NSNull(), forKey: "rex") }
        #expect(holder.dogMap.keys == ["fido"])
        // Unmanaged maps too.
        let map = Map<String, Int>()
        map.setValue(4, forKey: "four")
        #expect(map["four"] == 4)
        map.setValue(nil, forKey: "four")
        #expect(map.isEmpty)
    }

    @Test("unmanaged collections of values aggregate self through the RealmCollection extensions")
    func unmanagedAggregates() {
        let ints = List<Int>()
        ints.append(objectsIn: [4, 2, 9])
        func total<C: RealmCollection>(_ values: C) -> Int where C.Element == Int { values.sum() }
        func smallest<C: RealmCollection>(_ values: C) -> Int? where C.Element == Int { values.min() }
        #expect(total(ints) == 15)
        #expect(smallest(ints) == 2)
        let set = MutableSet<Int>()
        set.insert(objectsIn: [5, 1])
        #expect(total(set) == 6)
        #expect(set.min(ofProperty: "self") as Int? == 1)
        let map = Map<String, Double>()
        map["a"] = 1.5
        #expect(map.max(ofProperty: "self") as Double? == 1.5)
    }
}

@Suite("Collections of values: Realm's messages")
struct ValueCollectionErrorTests {
    @Test("sorting values by a key path other than self stops with Realm's message")
    func sortByOtherKeyPath() async {
        removeInMemoryRealm("values-exit-sortOther")
        defer { removeInMemoryRealm("values-exit-sortOther") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "values-exit-sortOther"))
            let holder = try realm.write { realm.create(ValueCollectionsHolder.self, value: ["ints": [1, 2]]) }
            _ = holder.ints.sorted(byKeyPath: "not self", ascending: true)
        }
        expectStop("Cannot sort on key path 'not self': arrays of 'int' can only be sorted on 'self'", result)
    }

    @Test("sorting values by two key paths stops with Realm's message")
    func sortByTwoKeyPaths() async {
        removeInMemoryRealm("values-exit-sortTwo")
        defer { removeInMemoryRealm("values-exit-sortTwo") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "values-exit-sortTwo"))
            let holder = try realm.write { realm.create(ValueCollectionsHolder.self, value: ["ints": [1, 2]]) }
            _ = holder.ints.sorted(by: [SortDescriptor(keyPath: "self"), SortDescriptor(keyPath: "self", ascending: false)])
        }
        expectStop("Cannot sort array of 'int' on more than one key path", result)
    }

    @Test("distinct of values by a key path other than self stops with Realm's message")
    func distinctByOtherKeyPath() async {
        removeInMemoryRealm("values-exit-distinctOther")
        defer { removeInMemoryRealm("values-exit-distinctOther") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "values-exit-distinctOther"))
            let holder = try realm.write { realm.create(ValueCollectionsHolder.self, value: ["dates": [Date()]]) }
            _ = holder.dates.distinct(by: ["timeIntervalSince1970"])
        }
        expectStop("Cannot sort on key path 'timeIntervalSince1970': arrays of 'date' can only be sorted on 'self'", result)
    }

    @Test("aggregating values by a property other than self stops with Realm's message")
    func aggregateOtherProperty() async {
        removeInMemoryRealm("values-exit-aggregateOther")
        defer { removeInMemoryRealm("values-exit-aggregateOther") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "values-exit-aggregateOther"))
            let holder = try realm.write { realm.create(ValueCollectionsHolder.self, value: ["intSet": [1, 2]]) }
            let _: Int? = holder.intSet.min(ofProperty: "age")
        }
        expectStop("Sets of 'int' can only be aggregated on \"self\"", result)
    }

    @Test("sorting an unmanaged List of values stops with Realm's message")
    func sortUnmanaged() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let ints = List<Int>()
            ints.append(1)
            _ = ints.distinct()
        }
        expectStop("This method may only be called on RLMArray instances retrieved from an RLMRealm", result)
    }

    @Test("sorting or distinct by a collection operator stops with Realm's message")
    func collectionOperators() async {
        removeInMemoryRealm("values-exit-sortCount")
        defer { removeInMemoryRealm("values-exit-sortCount") }
        let sort = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "values-exit-sortCount"))
            _ = realm.objects(Person.self).sorted(byKeyPath: "dogs.@count")
        }
        expectStop("Cannot sort on key path 'dogs.@count': KVC collection operators are not supported.", sort)
        removeInMemoryRealm("values-exit-distinctCount")
        defer { removeInMemoryRealm("values-exit-distinctCount") }
        let distinct = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "values-exit-distinctCount"))
            _ = realm.objects(Person.self).distinct(by: ["dogs.@count"])
        }
        expectStop("Cannot distinct on keypath 'dogs.@count': KVC collection operators are not supported.", distinct)
    }
}

@Suite("Queries Realm refuses stop with Realm's messages")
struct RefusedQueryTests {
    @Test("nil compared with a required property")
    func nilWithRequired() async {
        removeInMemoryRealm("refused-exit-requiredNil")
        defer { removeInMemoryRealm("refused-exit-requiredNil") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "refused-exit-requiredNil"))
            try realm.write { realm.add(Person()) }
            _ = realm.objects(Person.self).filter("age == nil").count
        }
        expectStop("Expected object of type int for property 'age' on object of type 'Person', but received: (null)", result)
        removeInMemoryRealm("refused-exit-requiredNilArgument")
        defer { removeInMemoryRealm("refused-exit-requiredNilArgument") }
        let argument = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "refused-exit-requiredNilArgument"))
            try realm.write { realm.add(Person()) }
            let none: Int? = nil
            _ = realm.objects(Person.self).filter("dog.age > %@", none as Any).count
        }
        expectStop("Expected object of type int for property 'dog.age' on object of type 'Person', but received: (null)", argument)
    }

    @Test("nil compared with an optional property, a link or a mixed value is taken")
    func nilWithOptional() throws {
        let realm = try valuesRealm()
        try realm.write { realm.add(Person()) }
        #expect(realm.objects(Person.self).filter("height == nil").count == 1)
        #expect(realm.objects(Person.self).filter("dog == nil AND anything == nil").count == 1)
    }

    @Test("a fractional number compared with an int property")
    func fractionWithInt() async {
        removeInMemoryRealm("refused-exit-intFraction")
        defer { removeInMemoryRealm("refused-exit-intFraction") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "refused-exit-intFraction"))
            try realm.write { realm.add(Person()) }
            _ = realm.objects(Person.self).filter("age > %@", 17.5).count
        }
        expectStop("Expected object of type int for property 'age' on object of type 'Person', but received: 17.5", result)
    }

    @Test("sorting or distinct by a Data property")
    func sortByData() async {
        removeInMemoryRealm("refused-exit-sortData")
        defer { removeInMemoryRealm("refused-exit-sortData") }
        let sort = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "refused-exit-sortData"))
            _ = realm.objects(AllTypes.self).sorted(byKeyPath: "data")
        }
        expectStop("Cannot sort on key path 'data': property 'AllTypes.data' is of unsupported type 'data'.", sort)
        removeInMemoryRealm("refused-exit-distinctData")
        defer { removeInMemoryRealm("refused-exit-distinctData") }
        let distinct = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "refused-exit-distinctData"))
            _ = realm.objects(AllTypes.self).distinct(by: ["optData"])
        }
        expectStop("Cannot sort on key path 'optData': property 'AllTypes.optData' is of unsupported type 'data'.", distinct)
    }

    @Test("a date literal before 1900")
    func dateBefore1900() async {
        removeInMemoryRealm("refused-exit-date1899")
        defer { removeInMemoryRealm("refused-exit-date1899") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "refused-exit-date1899"))
            try realm.write { realm.add(AllTypes()) }
            _ = realm.objects(AllTypes.self).filter("date > 1899-12-31@23:59:59").count
        }
        expectStop("Conversion of dates before 1900 is not supported.", result)
    }
}

@Suite("An object that is not stored, compared with a list of objects")
struct NoObjectInListTests {
    @Test("ANY list == unmanaged object, and list == nil, match the empty lists (Realm's add_link_constraint)")
    func unmanagedInList() throws {
        let realm = try valuesRealm()
        let rex = Dog(value: ["name": "Rex"])
        try realm.write {
            realm.add(Person(value: ["id": 1, "dogs": [rex]]))
            realm.add(Person(value: ["id": 2]))
        }
        let people = realm.objects(Person.self)
        #expect(people.filter("ANY dogs == %@", Dog()).map(\.id) == [2])
        #expect(people.filter("dogs == %@", Dog()).map(\.id) == [2])
        #expect(people.filter("ANY dogs != %@", Dog()).map(\.id) == [1])
        #expect(people.filter("dogs == nil").map(\.id) == [2])
        #expect(people.filter("ANY dogs == %@", rex).map(\.id) == [1])
        // A deleted object is not stored either.
        let gone = Dog(value: ["name": "Gone"])
        try realm.write {
            realm.add(gone)
            realm.delete(gone)
        }
        #expect(people.filter("ANY dogs == %@", gone).map(\.id) == [2])
    }
}

@Suite("Iterating a List or MutableSet while the loop changes it, as Realm's enumeration")
struct IterationSnapshotTests {
    @Test("removing objects from a managed List in the loop visits every object (a snapshot)")
    func removeObjectsWhileIterating() throws {
        let realm = try valuesRealm()
        let person = Person(value: ["id": 1, "dogs": [["name": "a"], ["name": "b"], ["name": "c"]]])
        try realm.write { realm.add(person) }
        var names: [String] = []
        for dog in person.dogs {
            names.append(dog.name)
            try realm.write { person.dogs.remove(at: 0) }
        }
        #expect(names == ["a", "b", "c"])
        #expect(person.dogs.isEmpty)
        // Inside one write transaction too; deleted objects are visited, invalidated.
        try realm.write { person.dogs.append(objectsIn: realm.objects(Dog.self)) }
        var visited = 0
        try realm.write {
            for dog in person.dogs {
                visited += 1
                realm.delete(dog)
                #expect(dog.isInvalidated)
            }
        }
        #expect(visited == 3)
        #expect(realm.objects(Dog.self).isEmpty)
    }

    @Test("an unmanaged List or MutableSet iterates a copy of its elements")
    func unmanagedSnapshot() {
        let list = List<Int>()
        list.append(objectsIn: [1, 2, 3])
        var seen: [Int] = []
        for value in list {
            seen.append(value)
            list.removeAll()
        }
        #expect(seen == [1, 2, 3])
        let set = MutableSet<String>()
        set.insert(objectsIn: ["x", "y"])
        var count = 0
        for _ in set {
            count += 1
            set.removeAll()
        }
        #expect(count == 2)
    }

    @Test("removing values from a managed List in the loop ends it early (Realm's values are not snapshotted)")
    func removeValuesWhileIterating() throws {
        let realm = try valuesRealm()
        let holder = ValueCollectionsHolder()
        try realm.write {
            realm.add(holder)
            holder.ints.append(objectsIn: [1, 2, 3])
        }
        var seen: [Int] = []
        for value in holder.ints {
            seen.append(value)
            try realm.write { holder.ints.remove(at: 0) }
        }
        #expect(seen == [1, 3])
    }
}

@Suite("Empty descriptors leave Results as they are (realm-core's Results::sort and distinct)")
struct EmptyDescriptorTests {
    @Test("sorted(by: []) and distinct(by: []) on objects")
    func emptyDescriptors() throws {
        let realm = try valuesRealm()
        try realm.write {
            realm.add(Dog(value: ["name": "b", "age": 2]))
            realm.add(Dog(value: ["name": "a", "age": 2]))
        }
        let noDescriptors: [OpenRealm.SortDescriptor] = []
        let noKeyPaths: [String] = []
        #expect(realm.objects(Dog.self).sorted(by: noDescriptors).map(\.name) == ["b", "a"])
        #expect(realm.objects(Dog.self).distinct(by: noKeyPaths).map(\.name) == ["b", "a"])
        #expect(realm.objects(Dog.self).sorted(byKeyPath: "name").distinct(by: noKeyPaths).map(\.name) == ["a", "b"])
    }
}
