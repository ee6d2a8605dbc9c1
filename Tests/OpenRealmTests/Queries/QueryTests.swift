// QueryTests.swift — filtering (predicate strings and type-safe queries), sorting, distinct,
// aggregates and the liveness of Results.

import Foundation
import Testing

import OpenRealm

/// People with dogs: a small fixed data set every query test reads.
private func peopleRealm() throws -> Realm {
    let realm = try memoryRealm()
    try realm.write {
        let rex = Dog(value: ["name": "Rex", "age": 3])
        let fido = Dog(value: ["name": "Fido", "age": 7])
        let bello = Dog(value: ["name": "Bello", "age": 1])
        realm.add(Person(value: ["id": 1, "name": "Ada", "age": 36, "height": 1.65, "dog": rex, "dogs": [rex, fido],
                                 "nicknames": ["Countess"], "tags": ["math"]]))
        realm.add(Person(value: ["id": 2, "name": "Grace", "age": 45, "dog": fido, "dogs": [fido],
                                 "nicknames": ["Amazing", "Admiral"]]))
        realm.add(Person(value: ["id": 3, "name": "alan", "age": 41, "height": 1.80]))
        realm.add(Person(value: ["id": 4, "name": "Zoë", "age": 36, "height": 1.70, "dogs": [bello]]))
        realm.add(Person(value: ["id": 5, "name": "Edsger", "age": 72, "height": 1.85]))
    }
    return realm
}

/// The ids of people, in the results' order.
private func ids(_ results: Results<Person>) -> [Int] { results.map(\.id) }

@Suite("Queries")
struct QueryTests {
    @Test("filter with %@ arguments, chained, and sorted")
    func smoke() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        #expect(ids(people.filter("age > %@", 40)) == [2, 3, 5])
        #expect(ids(people.filter("age > %@", 40).filter("height != nil")) == [3, 5])
        #expect(ids(people.sorted(byKeyPath: "age", ascending: false)) == [5, 2, 3, 1, 4])
        #expect(ids(people.where { $0.age > 40 && $0.name.starts(with: "A", options: .caseInsensitive) }) == [3])
        #expect(people.sum(ofProperty: "age") as Int == 230)
    }
}

/// Three objects of every type: `low` (small values, optionals nil), `mid`, `high`.
private func allTypesRealm() throws -> (Realm, [ObjectId], [UUID], [Date]) {
    let realm = try memoryRealm()
    let oids = [try ObjectId(string: "000000000000000000000001"), try ObjectId(string: "000000000000000000000002"),
                try ObjectId(string: "000000000000000000000003")]
    let uuids = [UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "00000000-0000-0000-0000-000000000002")!,
                 UUID(uuidString: "00000000-0000-0000-0000-000000000003")!]
    let dates = [Date(timeIntervalSince1970: 1_000), Date(timeIntervalSince1970: 2_000), Date(timeIntervalSince1970: 3_000)]
    try realm.write {
        for i in 0..<3 {
            let object = AllTypes()
            object.int = i
            object.int8 = Int8(i)
            object.int16 = Int16(i)
            object.int32 = Int32(i)
            object.int64 = Int64(i)
            object.bool = i == 1
            object.float = Float(i) + 0.5
            object.double = Double(i) + 0.25
            object.string = ["a", "b", "c"][i]
            object.data = Data([UInt8(i)])
            object.date = dates[i]
            object.decimal = Decimal128(i)
            object.objectId = oids[i]
            object.uuid = uuids[i]
            if i > 0 {
                object.optInt = i * 10
                object.optBool = i == 2
                object.optFloat = Float(i)
                object.optDouble = Double(i)
                object.optString = "s\(i)"
                object.optData = Data([UInt8(i), 0])
                object.optDate = dates[i]
                object.optDecimal = Decimal128(i * 100)
                object.optObjectId = oids[i]
                object.optUUID = uuids[i]
                object.optMood = .happy
            }
            realm.add(object)
        }
    }
    return (realm, oids, uuids, dates)
}

/// The `int` values (0, 1, 2) of the objects of results, in order.
private func ints(_ results: Results<AllTypes>) -> [Int] { results.map(\.int) }

extension QueryTests {
    @Test("comparisons on integers of every width, floats, doubles, decimals")
    func numericComparisons() throws {
        let (realm, _, _, _) = try allTypesRealm()
        let all = realm.objects(AllTypes.self)
        for property in ["int", "int8", "int16", "int32", "int64", "decimal"] {
            #expect(ints(all.filter("\(property) == %@", 1)) == [1], "\(property)")
            #expect(ints(all.filter("\(property) != %@", 1)) == [0, 2], "\(property)")
            #expect(ints(all.filter("\(property) < %@", 1)) == [0], "\(property)")
            #expect(ints(all.filter("\(property) <= %@", 1)) == [0, 1], "\(property)")
            #expect(ints(all.filter("\(property) > %@", 1)) == [2], "\(property)")
            #expect(ints(all.filter("\(property) >= %@", 1)) == [1, 2], "\(property)")
        }
        #expect(ints(all.filter("float > %@", Float(1))) == [1, 2])
        #expect(ints(all.filter("float == %@", Float(1.5))) == [1])
        #expect(ints(all.filter("double < %@", 1.25)) == [0])
        #expect(ints(all.filter("double <= %@", 1.25)) == [0, 1])
        #expect(ints(all.filter("double >= 2.25")) == [2])
        #expect(ints(all.filter("decimal > %@", Decimal128(stringLiteral: "0.5"))) == [1, 2])
        #expect(ints(all.filter("double BETWEEN {%@, %@}", 0.0, 1.5)) == [0, 1])
    }

    @Test("comparisons on strings, bools, dates, data, object ids and UUIDs")
    func otherComparisons() throws {
        let (realm, oids, uuids, dates) = try allTypesRealm()
        let all = realm.objects(AllTypes.self)
        #expect(ints(all.filter("string == %@", "b")) == [1])
        #expect(ints(all.filter("string != 'b'")) == [0, 2])
        #expect(ints(all.filter("string > %@", "a")) == [1, 2])
        #expect(ints(all.filter("string <= %@", "b")) == [0, 1])
        #expect(ints(all.filter("bool == %@", true)) == [1])
        #expect(ints(all.filter("bool != true")) == [0, 2])
        #expect(ints(all.filter("date == %@", dates[1])) == [1])
        #expect(ints(all.filter("date < %@", dates[1])) == [0])
        #expect(ints(all.filter("date >= %@", dates[1])) == [1, 2])
        #expect(ints(all.filter("data == %@", Data([2]))) == [2])
        #expect(ints(all.filter("data != %@", Data([2]))) == [0, 1])
        #expect(ints(all.filter("objectId == %@", oids[0])) == [0])
        #expect(ints(all.filter("objectId > %@", oids[0])) == [1, 2])
        #expect(ints(all.filter("uuid == %@", uuids[2])) == [2])
        #expect(ints(all.filter("uuid != %@", uuids[2])) == [0, 1])
        // Foundation's reference types, as Realm takes them.
        #expect(ints(all.filter("date == %@", NSDate(timeIntervalSince1970: 2_000))) == [1])
        #expect(ints(all.filter("data == %@", NSData(data: Data([2])))) == [2])
        #expect(ints(all.filter("int == %@ OR double == %@", NSNumber(value: 0), NSNumber(value: 2.25))) == [0, 2])
        #expect(ints(all.filter("string == %@", NSString(string: "c"))) == [2])
    }

    @Test("optionals: nil compares equal only to nil; ordered comparisons skip nil")
    func optionals() throws {
        let (realm, oids, uuids, dates) = try allTypesRealm()
        let all = realm.objects(AllTypes.self)
        for property in ["optInt", "optBool", "optFloat", "optDouble", "optString", "optData", "optDate", "optDecimal",
                         "optObjectId", "optUUID", "optMood"] {
            #expect(ints(all.filter("\(property) == nil")) == [0], "\(property)")
            #expect(ints(all.filter("\(property) == %@", NSNull())) == [0], "\(property)")
            #expect(ints(all.filter("\(property) != nil")) == [1, 2], "\(property)")
        }
        let none: Int? = nil
        #expect(ints(all.filter("optInt == %@", none as Any)) == [0])
        #expect(ints(all.filter("optInt == %@", Optional(20) as Any)) == [2])
        #expect(ints(all.filter("optInt < %@", 15)) == [1])  // nil is not less than anything
        #expect(ints(all.filter("optInt != %@", 10)) == [0, 2])  // nil is unequal to 10
        #expect(ints(all.filter("optDate > %@", dates[0])) == [1, 2])
        #expect(ints(all.filter("optObjectId == %@", oids[1])) == [1])
        #expect(ints(all.filter("optUUID == %@", uuids[2])) == [2])
        #expect(ints(all.filter("optString BEGINSWITH 's'")) == [1, 2])
        #expect(ints(all.filter("optMood == %@", Mood.happy)) == [1, 2])
        #expect(ints(all.filter("optBool == false")) == [1])
    }

    @Test("string operators with [c], [d] and [cd]")
    func stringOperators() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        #expect(ids(people.filter("name BEGINSWITH %@", "A")) == [1])
        #expect(ids(people.filter("name BEGINSWITH[c] %@", "a")) == [1, 3])
        #expect(ids(people.filter("name ENDSWITH %@", "e")) == [2])
        #expect(ids(people.filter("name ENDSWITH[c] 'A'")) == [1])
        #expect(ids(people.filter("name CONTAINS %@", "ra")) == [2])
        #expect(ids(people.filter("name CONTAINS[c] %@", "A")) == [1, 2, 3])
        #expect(ids(people.filter("name LIKE %@", "?d*")) == [1, 5])
        #expect(ids(people.filter("name LIKE[c] %@", "A*")) == [1, 3])
        #expect(ids(people.filter("name == %@", "zoe")) == [])
        #expect(ids(people.filter("name ==[d] %@", "Zoe")) == [4])
        #expect(ids(people.filter("name ==[cd] %@", "zoe")) == [4])
        #expect(ids(people.filter("name CONTAINS[cd] %@", "OE")) == [4])
        #expect(ids(people.filter("name ==[c] %@", "ALAN")) == [3])
    }

    @Test("%K names a key path; IN takes an array; ANY over a list; @count")
    func argumentsInAndCollections() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        #expect(ids(people.filter("%K == %@", "name", "Grace")) == [2])
        #expect(ids(people.filter("%K > %@ AND %K < %@", "age", 40, "age", 50)) == [2, 3])
        #expect(ids(people.filter("name IN %@", ["Ada", "alan", "Nobody"])) == [1, 3])
        #expect(ids(people.filter("age IN %@", Set([36, 72]))) == [1, 4, 5])
        #expect(ids(people.filter("id IN {2, 4}")) == [2, 4])
        #expect(ids(people.filter("NOT (id IN %@)", [1, 2, 3])) == [4, 5])
        #expect(ids(people.filter("dogs.@count == %@", 2)) == [1])
        #expect(ids(people.filter("dogs.@count > 0")) == [1, 2, 4])
        #expect(ids(people.filter("ANY dogs.name == %@", "Fido")) == [1, 2])
        #expect(ids(people.filter("ANY dogs.age > 5")) == [1, 2])
        #expect(ids(people.filter("ALL dogs.age < 5")) == [3, 4, 5])  // ALL holds for no dogs
        #expect(ids(people.filter("NONE dogs.age > 2")) == [3, 4, 5])
        #expect(ids(people.filter("ANY nicknames == %@", "Admiral")) == [2])
        #expect(ids(people.filter("nicknames.@count == 2")) == [2])
        #expect(ids(people.filter("dogs.@max.age >= 7")) == [1, 2])
        #expect(ids(people.filter("SUBQUERY(dogs, $d, $d.age < 5).@count > 0")) == [1, 4])
    }

    @Test("link paths and objects as arguments")
    func linkPaths() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        let fido = realm.objects(Dog.self).filter("name == 'Fido'").first!
        #expect(ids(people.filter("dog.name == %@", "Rex")) == [1])
        #expect(ids(people.filter("dog.age > 5")) == [2])
        #expect(ids(people.filter("dog == nil")) == [3, 4, 5])
        #expect(ids(people.filter("dog == %@", fido)) == [2])
        #expect(ids(people.filter("dog != %@", fido)) == [1, 3, 4, 5])
        #expect(ids(people.filter("ANY dogs == %@", fido)) == [1, 2])
        #expect(ids(people.filter("%@ IN dogs", fido)) == [1, 2])
        #expect(realm.objects(Dog.self).filter("@links.Person.dogs.@count == 2").map(\.name) == ["Fido"])
        // LinkingObjects properties by their model names, as Realm's predicates write them.
        let dogs = realm.objects(Dog.self)
        #expect(dogs.filter("owners.@count == 2").map(\.name) == ["Fido"])
        #expect(dogs.filter("ANY owners.name == %@", "Zoë").map(\.name) == ["Bello"])
        #expect(dogs.filter("%K == 1", "owners.@count").map(\.name) == ["Rex", "Bello"])
        #expect(dogs.filter("SUBQUERY(owners, $o, $o.age > 40).@count > 0 AND name != 'owners'").map(\.name) == ["Fido"])
        #expect(ids(people.filter("ANY dogs.owners.name == 'Grace'")) == [1, 2])
        #expect(ids(people.sorted(byKeyPath: "dog.name").filter("dog != nil")) == [2, 1])
    }

    @Test("chained filters, and a filter after a sort keeps the sort's order")
    func chainedAndAfterSort() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        let chained = people.filter("age > %@", 30).filter("name CONTAINS[c] %@", "a").filter("height != nil")
        #expect(ids(chained) == [1, 3])
        // Realm Query Language's $N arguments, alone, mixed with %@ and chained.
        #expect(ids(people.filter("age > $0 AND name BEGINSWITH $1", 40, "G")) == [2])
        #expect(ids(people.filter("age > $0", 30).filter("name == %@", "alan").filter("height > $0 AND height < $1", 1.0, 2.0)) == [3])
        #expect(ids(people.filter("name == %@", "alan").filter("%K > $1", "age", 40)) == [3])
        // Extra arguments are ignored, as NSPredicate does: the next filter takes its own.
        #expect(ids(people.filter("age > %@", 40, "ignored").filter("name == %@", "alan")) == [3])
        let sorted = people.sorted(byKeyPath: "name", ascending: false)
        #expect(ids(sorted) == [3, 4, 2, 5, 1])  // by code points: "alan" > "Zoë" > "Grace" > "Edsger" > "Ada"
        #expect(ids(sorted.filter("age > %@", 40)) == [3, 2, 5])
        #expect(ids(sorted.filter("age > %@", 40).filter("height != nil")) == [3, 5])
        #expect(ids(people.filter("age < 50").sorted(byKeyPath: "age").filter("name != 'Grace'")) == [1, 4, 3])
    }
}

extension QueryTests {
    @Test("sorting by several keys, by key paths and descriptors; a sort is stable")
    func sorting() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        // Ada and Zoë are both 36: the second key orders them, and without it creation order does.
        #expect(ids(people.sorted(byKeyPath: "age")) == [1, 4, 3, 2, 5])
        #expect(ids(people.sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name", ascending: false)])) == [4, 1, 3, 2, 5])
        #expect(ids(people.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"])) == [5, 2, 3, 1, 4])
        #expect(ids(people.sorted(by: \.age, ascending: false)) == [5, 2, 3, 1, 4])
        #expect(ids(people.sorted(by: [SortDescriptor(keyPath: \Person.height)])) == [2, 1, 4, 3, 5])  // nil first
        #expect(ids(people.sorted(by: [SortDescriptor(keyPath: "height").reversed()])) == [5, 3, 4, 1, 2])
        // Sorting sorted results: the earlier sort breaks ties of the later one.
        #expect(ids(people.sorted(byKeyPath: "name", ascending: false).sorted(byKeyPath: "age")) == [4, 1, 3, 2, 5])
        // Without a dog: first when descending, last when ascending (realm-core's sorter:
        // "Sort null links at the end if ascending, else at beginning").
        #expect(ids(people.sorted(byKeyPath: "dog.age", ascending: false)) == [3, 4, 5, 2, 1])
        #expect(ids(people.sorted(byKeyPath: "dog.age")) == [1, 2, 3, 4, 5])
        #expect(SortDescriptor(keyPath: \Person.dog?.name).keyPath == "dog.name")
    }

    @Test("distinct keeps the first object of each combination of values")
    func distinct() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        #expect(ids(people.distinct(by: ["age"])) == [1, 2, 3, 5])
        #expect(ids(people.sorted(byKeyPath: "id", ascending: false).distinct(by: ["age"])) == [5, 4, 3, 2])
        #expect(ids(people.distinct(by: [\Person.age])) == [1, 2, 3, 5])
        #expect(ids(people.distinct(by: ["age", "height"])) == [1, 2, 3, 4, 5])
        #expect(ids(people.distinct(by: ["height"])) == [1, 2, 3, 4, 5])
        // As in Realm, a filter applies before the descriptors: Zoë is the first 36-year-old left.
        #expect(ids(people.distinct(by: ["age"]).filter("name != 'Ada'")) == [2, 3, 4, 5])
        #expect(people.distinct(by: ["age"]).count == 4)
    }

    @Test("min, max, sum and average by name and by key path, on every numeric type and dates")
    func aggregates() throws {
        let (realm, _, _, dates) = try allTypesRealm()
        let all = realm.objects(AllTypes.self)
        #expect(all.min(ofProperty: "int") as Int? == 0)
        #expect(all.max(ofProperty: "int8") as Int8? == 2)
        #expect(all.sum(ofProperty: "int16") as Int16 == 3)
        #expect(all.average(ofProperty: "int32") as Double? == 1)
        #expect(all.sum(ofProperty: "int64") as Int64 == 3)
        #expect(all.min(ofProperty: "float") as Float? == 0.5)
        #expect(all.sum(ofProperty: "float") as Float == 4.5)
        #expect(all.average(ofProperty: "float") as Float? == 1.5)
        #expect(all.max(ofProperty: "double") as Double? == 2.25)
        #expect(all.sum(ofProperty: "double") as Double == 3.75)
        #expect(all.average(ofProperty: "double") as Double? == 1.25)
        #expect(all.sum(ofProperty: "decimal") as Decimal128 == Decimal128(3))
        #expect(all.average(ofProperty: "decimal") as Decimal128? == Decimal128(1))
        #expect(all.max(ofProperty: "decimal") as Decimal128? == Decimal128(2))
        #expect(all.min(ofProperty: "date") as Date? == dates[0])
        #expect(all.max(ofProperty: "date") as Date? == dates[2])
        // nil values are skipped.
        #expect(all.min(ofProperty: "optInt") as Int? == 10)
        #expect(all.sum(ofProperty: "optInt") as Int == 30)
        #expect(all.average(ofProperty: "optDouble") as Double? == 1.5)
        #expect(all.max(ofProperty: "optDate") as Date? == dates[2])
        // Key path variants.
        #expect(all.min(of: \.int) == 0)
        #expect(all.max(of: \.double) == 2.25)
        #expect(all.sum(of: \.int) == 3)
        #expect(all.average(of: \.double) == 1.25)
        #expect(all.max(of: \.optInt) == .some(20))
        // Over filtered results.
        let some = all.filter("int >= 1")
        #expect(some.sum(ofProperty: "int") as Int == 3)
        #expect(some.min(of: \.double) == 1.25)
    }

    @Test("aggregates of no objects: sum 0, the others nil")
    func emptyAggregates() throws {
        let (realm, _, _, _) = try allTypesRealm()
        let none = realm.objects(AllTypes.self).filter("int > 100")
        #expect(none.isEmpty)
        #expect(none.sum(ofProperty: "int") as Int == 0)
        #expect(none.sum(ofProperty: "double") as Double == 0)
        #expect(none.sum(ofProperty: "decimal") as Decimal128 == Decimal128(0))
        #expect(none.min(ofProperty: "int") as Int? == nil)
        #expect(none.max(ofProperty: "date") as Date? == nil)
        #expect(none.average(ofProperty: "double") as Double? == nil)
        // Only nil values: as none.
        let nils = realm.objects(AllTypes.self).filter("optInt == nil")
        #expect(nils.count == 1)
        #expect(nils.min(ofProperty: "optInt") as Int? == nil)
        #expect(nils.sum(ofProperty: "optInt") as Int == 0)
        // A class never written (no table yet).
        let empty = try memoryRealm().objects(Dog.self)
        #expect(empty.sum(ofProperty: "age") as Int == 0)
        #expect(empty.max(ofProperty: "age") as Int? == nil)
        #expect(empty.filter("age > 1").count == 0)
    }

    @Test("first, last, count, isEmpty, index(of:), index(matching:)")
    func accessors() throws {
        let realm = try peopleRealm()
        let people = realm.objects(Person.self)
        let byAge = people.sorted(byKeyPath: "age", ascending: false)
        #expect(byAge.first?.name == "Edsger")
        #expect(byAge.last?.name == "Zoë")
        #expect(byAge.count == 5)
        #expect(!byAge.isEmpty)
        #expect(people.filter("name == 'Nobody'").first == nil)
        #expect(people.filter("name == 'Nobody'").isEmpty)
        #expect(people.filter("age == 36").last?.id == 4)
        let grace = people.filter("name == %@", "Grace").first!
        #expect(byAge.index(of: grace) == 1)
        #expect(byAge.filter("age < 40").index(of: grace) == nil)
        #expect(byAge.index(matching: "age < %@", 40) == 3)
        #expect(byAge.index(matching: "name == 'Nobody'") == nil)
        #expect(byAge.index(matching: { $0.name == "alan" }) == 2)
        #expect(people.distinct(by: ["age"]).sorted(byKeyPath: "id", ascending: false).index(matching: "age == 36") == 3)
        #expect(byAge[1].name == "Grace")
        #expect(Array(byAge.filter("age < 40")).map(\.id) == [1, 4])
    }

    @Test("Results are live: the same Results sees later commits")
    func liveness() throws {
        let realm = try peopleRealm()
        let adults = realm.objects(Person.self).filter("age >= %@", 40).sorted(byKeyPath: "age")
        let total = realm.objects(Person.self)
        #expect(ids(adults) == [3, 2, 5])
        #expect(adults.sum(ofProperty: "age") as Int == 158)
        try realm.write {
            realm.add(Person(value: ["id": 6, "name": "Barbara", "age": 50]))
            realm.objects(Person.self).filter("id == 3").first!.age = 20
        }
        #expect(ids(adults) == [2, 6, 5])
        #expect(adults.sum(ofProperty: "age") as Int == 167)
        #expect(total.count == 6)
        // Inside a write transaction, the results see the uncommitted changes.
        realm.beginWrite()
        realm.delete(realm.objects(Person.self).filter("id == 5").first!)
        #expect(ids(adults) == [2, 6])
        realm.cancelWrite()
        #expect(ids(adults) == [2, 6, 5])
    }

    @Test("Results made in a cancelled write that created the class's table read as empty, then live again")
    func cancelledTable() throws {
        let realm = try memoryRealm()
        realm.beginWrite()
        realm.add(Dog(value: ["name": "Rex", "age": 3]))
        let dogs = realm.objects(Dog.self).filter("age >= 0").sorted(byKeyPath: "name")
        #expect(dogs.count == 1)
        realm.cancelWrite()
        #expect(dogs.count == 0)
        #expect(dogs.max(ofProperty: "age") as Int? == nil)
        try realm.write { realm.add(Dog(value: ["name": "Fido", "age": 7])) }
        #expect(dogs.map(\.name) == ["Fido"])
    }

    @Test("Results see commits made by another Realm instance after refresh")
    func livenessAcrossInstances() throws {
        let identifier = "query-live-\(UUID().uuidString)"
        let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier))
        try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
        let old = realm.objects(Dog.self).filter("age > 2")
        #expect(old.count == 1)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: .init(inMemoryIdentifier: identifier))
            try! other.write { other.add(Dog(value: ["name": "Fido", "age": 7])) }
            done.signal()
        }.start()
        done.wait()
        _ = realm.refresh()
        #expect(old.map(\.name) == ["Rex", "Fido"])
    }
}

/// Expects a type-safe query and a predicate string to select the same, non-empty objects.
private func expectSame<T: Object>(
    _ typed: Results<T>, _ string: Results<T>, _ expected: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    // The same objects in the same order (isSameObject: the hash of an object of a class without
    // a primary key is its instance's, which two reads do not share).
    let a = Array(typed), b = Array(string)
    #expect(a.count == b.count && zip(a, b).allSatisfy { $0.isSameObject(as: $1) }, sourceLocation: sourceLocation)
    #expect(typed.count == expected, sourceLocation: sourceLocation)
}

extension QueryTests {
    @Test("type-safe comparisons, logic and string operators select what the predicate strings do")
    func typeSafeBasics() throws {
        let realm = try peopleRealm()
        let p = realm.objects(Person.self)
        expectSame(p.where { $0.age == 36 }, p.filter("age == 36"), 2)
        expectSame(p.where { $0.age != 36 }, p.filter("age != 36"), 3)
        expectSame(p.where { $0.age < 41 }, p.filter("age < 41"), 2)
        expectSame(p.where { $0.age <= 41 }, p.filter("age <= 41"), 3)
        expectSame(p.where { $0.age > 41 }, p.filter("age > 41"), 2)
        expectSame(p.where { $0.age >= 41 }, p.filter("age >= 41"), 3)
        expectSame(p.where { $0.height == nil }, p.filter("height == nil"), 1)
        expectSame(p.where { $0.height != nil }, p.filter("height != nil"), 4)
        expectSame(p.where { $0.height > 1.7 }, p.filter("height > 1.7"), 2)
        expectSame(p.where { $0.age > 40 && $0.height != nil }, p.filter("age > 40 AND height != nil"), 2)
        expectSame(p.where { $0.age < 40 || $0.name == "Grace" }, p.filter("age < 40 OR name == 'Grace'"), 3)
        expectSame(p.where { !($0.age < 40) }, p.filter("NOT age < 40"), 3)
        expectSame(p.where { $0.age > 40 && ($0.name == "alan" || $0.name == "Edsger") }, p.filter("age > 40 AND (name == 'alan' OR name == 'Edsger')"), 2)
        expectSame(p.where { $0.name.starts(with: "A") }, p.filter("name BEGINSWITH 'A'"), 1)
        expectSame(p.where { $0.name.starts(with: "a", options: .caseInsensitive) }, p.filter("name BEGINSWITH[c] 'a'"), 2)
        expectSame(p.where { $0.name.ends(with: "CE", options: [.caseInsensitive]) }, p.filter("name ENDSWITH[c] 'ce'"), 1)
        expectSame(p.where { $0.name.contains("a") }, p.filter("name CONTAINS 'a'"), 3)
        expectSame(p.where { $0.name.contains("zoe", options: [.caseInsensitive, .diacriticInsensitive]) }, p.filter("name CONTAINS[cd] 'zoe'"), 1)
        expectSame(p.where { $0.name.like("?d*") }, p.filter("name LIKE '?d*'"), 2)
        expectSame(p.where { $0.name.like("a*", caseInsensitive: true) }, p.filter("name LIKE[c] 'a*'"), 2)
        expectSame(p.where { $0.name.equals("ADA", options: .caseInsensitive) }, p.filter("name ==[c] 'ADA'"), 1)
        expectSame(p.where { $0.name.notEquals("ADA", options: .caseInsensitive) }, p.filter("name !=[c] 'ADA'"), 4)
        expectSame(p.where { $0.name.in(["Ada", "Grace", "x"]) }, p.filter("name IN %@", ["Ada", "Grace", "x"]), 2)
        expectSame(p.where { $0.age.contains(36...41) }, p.filter("age BETWEEN {36, 41}"), 3)
        expectSame(p.where { $0.age.contains(36..<41) }, p.filter("age >= 36 AND age < 41"), 2)
        expectSame(p.where { $0.mood == .happy }, p.filter("mood == %@", Mood.happy), 5)
        expectSame(p.where { $0.id == $0.age }, p.filter("id == age"), 0)
        expectSame(p.where { $0.id < $0.age }, p.filter("id < age"), 5)
        // A Bool property alone is a condition.
        let (all, _, _, _) = try allTypesRealm()
        let t = all.objects(AllTypes.self)
        expectSame(t.where { $0.bool }, t.filter("bool == true"), 1)
        expectSame(t.where { !$0.bool }, t.filter("NOT bool == true"), 2)
        expectSame(t.where { $0.bool && $0.int > 0 }, t.filter("bool == true AND int > 0"), 1)
        expectSame(t.where { $0.optString == "s1" }, t.filter("optString == 's1'"), 1)
        expectSame(t.where { $0.optString.starts(with: "s") }, t.filter("optString BEGINSWITH 's'"), 2)
        expectSame(t.where { $0.decimal > Decimal128(0) }, t.filter("decimal > 0"), 2)
        expectSame(t.where { $0.date.contains(Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 2_000)) }, t.filter("date <= %@", Date(timeIntervalSince1970: 2_000)), 2)
        expectSame(t.where { $0.optInt.in([10, nil]) }, t.filter("optInt IN {10, nil}"), 2)
    }

    @Test("type-safe link paths, collections (@count, ANY, contains, aggregates) and linking objects")
    func typeSafeCollections() throws {
        let realm = try peopleRealm()
        let p = realm.objects(Person.self)
        let fido = realm.objects(Dog.self).where { $0.name == "Fido" }.first!
        expectSame(p.where { $0.dog.name == "Rex" }, p.filter("dog.name == 'Rex'"), 1)
        expectSame(p.where { $0.dog.age > 2 }, p.filter("dog.age > 2"), 2)
        expectSame(p.where { $0.dog == nil }, p.filter("dog == nil"), 3)
        expectSame(p.where { $0.dog == fido }, p.filter("dog == %@", fido), 1)
        expectSame(p.where { $0.dogs.count > 0 }, p.filter("dogs.@count > 0"), 3)
        expectSame(p.where { $0.dogs.count == 2 }, p.filter("dogs.@count == 2"), 1)
        expectSame(p.where { $0.dogs.name == "Fido" }, p.filter("ANY dogs.name == 'Fido'"), 2)
        expectSame(p.where { $0.dogs.age < 2 }, p.filter("ANY dogs.age < 2"), 1)
        expectSame(p.where { $0.dogs.contains(fido) }, p.filter("%@ IN dogs", fido), 2)
        expectSame(p.where { $0.nicknames.contains("Admiral") }, p.filter("'Admiral' IN nicknames"), 1)
        expectSame(p.where { $0.nicknames.containsAny(in: ["Countess", "Admiral"]) }, p.filter("ANY nicknames IN %@", ["Countess", "Admiral"]), 2)
        expectSame(p.where { $0.nicknames.count >= 1 }, p.filter("nicknames.@count >= 1"), 2)
        expectSame(p.where { $0.tags.contains("math") }, p.filter("'math' IN tags"), 1)
        // Subqueries: the conditions hold for one and the same dog.
        expectSame(p.where { ($0.dogs.age < 5 && $0.dogs.name.starts(with: "F")).count > 0 },
                   p.filter("SUBQUERY(dogs, $d, $d.age < 5 AND $d.name BEGINSWITH 'F').@count > 0"), 0)
        expectSame(p.where { $0.dogs.age < 5 && $0.dogs.name.starts(with: "F") },
                   p.filter("ANY dogs.age < 5 AND ANY dogs.name BEGINSWITH 'F'"), 1)
        expectSame(p.where { ($0.dogs.age > 2 && $0.dogs.name.starts(with: "F")).count > 0 },
                   p.filter("SUBQUERY(dogs, $d, $d.age > 2 AND $d.name BEGINSWITH 'F').@count > 0"), 2)
        expectSame(p.where { ($0.dogs.age > 0).count == 2 }, p.filter("SUBQUERY(dogs, $d, $d.age > 0).@count == 2"), 1)
        expectSame(p.where { (!($0.dogs.name == "Rex") || $0.dogs.age.in([3])).count == 2 && $0.age > 30 },
                   p.filter("SUBQUERY(dogs, $d, NOT $d.name == 'Rex' OR $d.age IN {3}).@count == 2 AND age > 30"), 1)
        let dogs = realm.objects(Dog.self)
        expectSame(dogs.where { $0.owners.count == 2 }, dogs.filter("@links.Person.dogs.@count == 2"), 1)
        expectSame(dogs.where { $0.owners.name == "Zoë" }, dogs.filter("ANY @links.Person.dogs.name == 'Zoë'"), 1)

        let c = try memoryRealm()
        try c.write {
            c.add(Collections(value: ["ints": [1, 2, 3]]))
            c.add(Collections(value: ["ints": [10]]))
            c.add(Collections())
        }
        let cs = c.objects(Collections.self)
        expectSame(cs.where { $0.ints.avg > 2 }, cs.filter("ints.@avg > 2"), 1)
        expectSame(cs.where { $0.ints.sum == 6 }, cs.filter("ints.@sum == 6"), 1)
        expectSame(cs.where { $0.ints.min == 1 }, cs.filter("ints.@min == 1"), 1)
        expectSame(cs.where { $0.ints.max >= 3 }, cs.filter("ints.@max >= 3"), 2)
        expectSame(cs.where { $0.ints.count == 0 }, cs.filter("ints.@count == 0"), 1)
        expectSame(cs.where { $0.ints > 5 }, cs.filter("ANY ints > 5"), 1)
    }

    @Test("type-safe queries on maps: a key's value, keys, values, count, contains, aggregates")
    func typeSafeMaps() throws {
        let realm = try memoryRealm()
        try realm.write {
            realm.add(Person(value: ["id": 1, "name": "Ada", "scores": ["math": 10, "art": 4]]))
            realm.add(Person(value: ["id": 2, "name": "Grace", "scores": ["math": 7, "o'clock": 1]]))
            realm.add(Person(value: ["id": 3, "name": "Alan"]))
        }
        let p = realm.objects(Person.self)
        expectSame(p.where { $0.scores["math"] > 8 }, p.filter("scores['math'] > 8"), 1)
        expectSame(p.where { $0.scores["art"] != 4 }, p.filter("scores['art'] != 4"), 2)  // absent: null
        expectSame(p.where { $0.scores["o'clock"] == 1 }, p.filter("scores['o\\'clock'] == 1"), 1)
        expectSame(p.where { $0.scores.keys == "art" }, p.filter("scores.@allKeys == 'art'"), 1)
        expectSame(p.where { $0.scores.values < 5 }, p.filter("ANY scores.@allValues < 5"), 2)
        expectSame(p.where { $0.scores.count == 0 }, p.filter("scores.@count == 0"), 1)
        expectSame(p.where { $0.scores.contains(7) }, p.filter("7 IN scores"), 1)
        expectSame(p.where { $0.scores.containsAny(in: [4, 1]) }, p.filter("ANY scores IN {4, 1}"), 2)
        expectSame(p.where { $0.scores.sum > 10 }, p.filter("scores.@sum > 10"), 1)
        expectSame(p.where { $0.scores.max == 7 }, p.filter("scores.@max == 7"), 1)
        expectSame(p.where { $0.scores.min < 2 }, p.filter("scores.@min < 2"), 1)
        expectSame(p.where { $0.scores.avg == 7 }, p.filter("scores.@avg == 7"), 1)
    }

    @Test("type-safe queries on embedded objects, inherited properties and mixed values")
    func typeSafeOtherShapes() throws {
        let realm = try memoryRealm()
        try realm.write {
            realm.add(Person(value: ["id": 1, "address": ["street": "1 Main St", "city": "Oslo"], "anything": AnyRealmValue.int(5)]))
            realm.add(Person(value: ["id": 2, "address": ["street": "2 High St", "city": "Bergen"], "anything": AnyRealmValue.string("five")]))
            realm.add(Person(value: ["id": 3]))
            realm.add(Cat(value: ["species": "tabby", "lives": 9]))
            realm.add(Cat(value: ["species": "siamese", "lives": 3]))
        }
        let p = realm.objects(Person.self)
        expectSame(p.where { $0.address.city == "Oslo" }, p.filter("address.city == 'Oslo'"), 1)
        expectSame(p.where { $0.address == nil }, p.filter("address == nil"), 1)
        expectSame(p.where { $0.anything == .int(5) }, p.filter("anything == 5"), 1)
        expectSame(p.where { $0.anything == .string("five") }, p.filter("anything == 'five'"), 1)
        #expect(ids(p.sorted(by: \.address?.city)) == [2, 1, 3])  // no address: last when ascending
        let cats = realm.objects(Cat.self)
        expectSame(cats.where { $0.species.starts(with: "t") && $0.lives > 5 }, cats.filter("species BEGINSWITH 't' AND lives > 5"), 1)
        #expect(cats.sorted(by: \.species).map(\.lives) == [3, 9])
    }

    @Test("where, sorted and aggregates by key path chain like their string forms")
    func typeSafeChains() throws {
        let realm = try peopleRealm()
        let p = realm.objects(Person.self)
        let typed = p.where { $0.age > 30 }.sorted(by: \.name).where { $0.height != nil }
        let string = p.filter("age > 30").sorted(byKeyPath: "name").filter("height != nil")
        #expect(ids(typed) == ids(string))
        #expect(ids(typed) == [1, 5, 4, 3])
        #expect(p.where { $0.age > 40 }.max(of: \.age) == 72)
        let meanHeight = p.where { $0.dogs.count > 0 }.average(of: \.height)  // Ada 1.65 and Zoë 1.70; Grace has none
        let mean: Double = (meanHeight ?? nil) ?? 0
        #expect(abs(mean - 1.675) < 1e-9)
    }
}


@Suite("Query programmer errors stop with Realm's message and the engine's position")
struct QueryErrorTests {
    @Test("a predicate that does not parse")
    func parseError() async {
        removeInMemoryRealm("openrealm-exit-queryParse")
        defer { removeInMemoryRealm("openrealm-exit-queryParse") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryParse"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).filter("age > > 5")
        }
        expectStop("Unable to parse the format string \"age > > 5\"", result)
        expectStop("at position 6 ('>')", result)
    }

    @Test("a predicate naming an unknown property")
    func unknownProperty() async {
        removeInMemoryRealm("openrealm-exit-queryProperty")
        defer { removeInMemoryRealm("openrealm-exit-queryProperty") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryProperty"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).filter("agee > %@", 5)
        }
        expectStop("Invalid property name", result)
        expectStop("'agee'", result)
    }

    @Test("an argument of the wrong type")
    func wrongArgumentType() async {
        removeInMemoryRealm("openrealm-exit-queryArgument")
        defer { removeInMemoryRealm("openrealm-exit-queryArgument") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryArgument"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).filter("age > %@", "five")
        }
        expectStop("Unable to parse the format string \"age > %@\"", result)
    }

    @Test("sorting by an unknown property")
    func unknownSortKey() async {
        removeInMemoryRealm("openrealm-exit-querySort")
        defer { removeInMemoryRealm("openrealm-exit-querySort") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-querySort"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).sorted(byKeyPath: "weight")
        }
        expectStop("Cannot sort on key path 'weight': property 'Dog.weight' does not exist.", result)
    }

    @Test("the sum of a string property")
    func wrongAggregate() async {
        removeInMemoryRealm("openrealm-exit-queryAggregate")
        defer { removeInMemoryRealm("openrealm-exit-queryAggregate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryAggregate"))
            try realm.write { realm.add(Dog()) }
            let total: Int = realm.objects(Dog.self).sum(ofProperty: "name")
            print(total)
        }
        expectStop("Invalid sum on property 'Dog.name'", result)
    }
}

@Suite("Queries on collections")
struct CollectionQueryTests {
    @Test("a List of objects filters, sorts, makes distinct and aggregates in its own order, live")
    func listOfObjects() throws {
        let realm = try peopleRealm()
        let ada = realm.object(ofType: Person.self, forPrimaryKey: 1)!
        let bello = realm.objects(Dog.self).filter("name == 'Bello'").first!
        try realm.write { ada.dogs.insert(bello, at: 0) }  // Bello, Rex, Fido: not key order
        #expect(ada.dogs.map(\.name) == ["Bello", "Rex", "Fido"])
        let young = ada.dogs.filter("age < %@", 5)
        #expect(young.map(\.name) == ["Bello", "Rex"])
        #expect(ada.dogs.where { $0.age > 2 }.map(\.name) == ["Rex", "Fido"])
        #expect(ada.dogs.sorted(byKeyPath: "name").map(\.name) == ["Bello", "Fido", "Rex"])
        #expect(ada.dogs.sorted(by: \.age, ascending: false).map(\.name) == ["Fido", "Rex", "Bello"])
        #expect(ada.dogs.sorted(by: [SortDescriptor(keyPath: "age")]).filter("age > 1").map(\.name) == ["Rex", "Fido"])
        #expect(ada.dogs.index(matching: "name == %@", "Fido") == 2)
        #expect(ada.dogs.index(matching: { $0.name == "Rex" }) == 1)
        #expect(ada.dogs.index(matching: "name == 'Nobody'") == nil)
        #expect(ada.dogs.min(ofProperty: "age") as Int? == 1)
        #expect(ada.dogs.max(of: \.age) == 7)
        #expect(ada.dogs.sum(ofProperty: "age") as Int == 11)
        #expect(ada.dogs.sum(of: \.age) == 11)
        #expect(ada.dogs.average(ofProperty: "age") as Double? == 11.0 / 3)
        #expect(ada.dogs.average(of: \.age) == 3)  // read as Int: truncated
        // The same Results sees the list change.
        try realm.write { ada.dogs.append(Dog(value: ["name": "Puppy", "age": 0])) }
        #expect(young.map(\.name) == ["Bello", "Rex", "Puppy"])
        #expect(young.count == 3)
        try realm.write { ada.dogs.remove(at: 0) }
        #expect(young.map(\.name) == ["Rex", "Puppy"])
        // A list holding an object twice lists it twice.
        try realm.write { ada.dogs.append(bello); ada.dogs.append(bello) }
        #expect(ada.dogs.filter("name == 'Bello'").count == 2)
        #expect(ada.dogs.distinct(by: ["name"]).map(\.name) == ["Rex", "Fido", "Puppy", "Bello"])
        #expect(ada.dogs.distinct(by: [\Dog.age]).count == 4)
        // An empty list: sum 0, the others nil.
        let alan = realm.object(ofType: Person.self, forPrimaryKey: 3)!
        #expect(alan.dogs.filter("age > 0").isEmpty)
        #expect(alan.dogs.sum(ofProperty: "age") as Int == 0)
        #expect(alan.dogs.max(ofProperty: "age") as Int? == nil)
        #expect(alan.dogs.average(of: \.age) == nil)
    }

    @Test("a MutableSet of objects filters and sorts")
    func setOfObjects() throws {
        let realm = try memoryRealm()
        let holder = Collections()
        try realm.write {
            holder.dogSet.insert(objectsIn: [Dog(value: ["name": "Rex", "age": 3]), Dog(value: ["name": "Fido", "age": 7]),
                                             Dog(value: ["name": "Bello", "age": 1])])
            realm.add(holder)
            realm.add(Dog(value: ["name": "Stray", "age": 5]))
        }
        #expect(holder.dogSet.filter("age > 2").count == 2)
        #expect(holder.dogSet.sorted(byKeyPath: "age").map(\.name) == ["Bello", "Rex", "Fido"])
        #expect(holder.dogSet.where { $0.name.ends(with: "o") }.sorted(by: \.name).map(\.name) == ["Bello", "Fido"])
        #expect(holder.dogSet.max(ofProperty: "age") as Int? == 7)
        #expect(holder.dogSet.sum(of: \.age) == 11)
    }

    @Test("LinkingObjects filter, sort and aggregate the objects linking to one")
    func linkingObjects() throws {
        let realm = try peopleRealm()
        let fido = realm.objects(Dog.self).filter("name == 'Fido'").first!
        #expect(fido.owners.count == 2)
        #expect(fido.owners.filter("age > 40").map(\.id) == [2])
        #expect(fido.owners.where { $0.name.starts(with: "A") }.map(\.id) == [1])
        #expect(fido.owners.sorted(byKeyPath: "age", ascending: false).map(\.id) == [2, 1])
        #expect(fido.owners.sum(ofProperty: "age") as Int == 81)
        #expect(fido.owners.min(of: \.age) == 36)
        #expect(fido.owners.index(matching: "name == 'Grace'") == 1)
        let owners = fido.owners.filter("age < 100")
        try realm.write { realm.object(ofType: Person.self, forPrimaryKey: 5)!.dogs.append(fido) }
        #expect(owners.map(\.id) == [1, 2, 5])
        #expect(realm.objects(Dog.self).filter("name == 'Bello'").first!.owners.filter("age > 0").map(\.id) == [4])
    }

    @Test("aggregates of lists and sets of values, managed and unmanaged")
    func collectionsOfValues() throws {
        let realm = try memoryRealm()
        let dates = [Date(timeIntervalSince1970: 1_000), Date(timeIntervalSince1970: 3_000), Date(timeIntervalSince1970: 2_000)]
        let holder = Collections(value: ["ints": [4, 1, 7], "dates": dates])
        let unmanagedInts = List<Int>()
        unmanagedInts.append(objectsIn: [4, 1, 7])
        #expect(unmanagedInts.min() == 1)
        #expect(unmanagedInts.max() == 7)
        #expect(unmanagedInts.sum() == 12)
        #expect(unmanagedInts.average() as Double? == 4)
        #expect(List<Double>().sum() == 0)
        #expect(List<Double>().average() as Double? == nil)
        // An unmanaged aggregate is read back as a managed one is: a small integer's sum wraps
        // as the engine's does (it was 0: the conversion refused 200 as an Int8).
        let bytes = List<Int8>()
        bytes.append(objectsIn: [100, 100])
        #expect(bytes.sum() == Int8(truncatingIfNeeded: 200))
        try realm.write { realm.add(holder) }
        #expect(holder.ints.min() == 1)
        #expect(holder.ints.max() == 7)
        #expect(holder.ints.sum() == 12)
        #expect(holder.ints.average() as Double? == 4)
        #expect(holder.dates.min() == dates[0])
        #expect(holder.dates.max() == dates[1])
        try realm.write { holder.ints.append(8) }
        #expect(holder.ints.sum() == 20)
        let empty = try memoryRealm()
        let none = Collections()
        try empty.write { empty.add(none) }
        #expect(none.ints.sum() == 0)
        #expect(none.ints.min() == nil)
        #expect(none.ints.average() as Double? == nil)
        #expect(none.dates.max() == nil)
        let optionals = List<Int?>()
        optionals.append(objectsIn: [nil, 2, nil, 4])
        #expect(optionals.sum() == .some(6))
        #expect(optionals.average() as Double? == 3)
    }

    @Test("lists and sets of values sorted by value, as live Results")
    func sortedValues() throws {
        let realm = try memoryRealm()
        let dates = [Date(timeIntervalSince1970: 1_000), Date(timeIntervalSince1970: 3_000), Date(timeIntervalSince1970: 2_000)]
        let holder = Collections(value: ["ints": [4, 1, 7, 1], "optionalStrings": ["b", nil, "a"], "dates": dates])
        try realm.write { realm.add(holder) }
        let ascending: Results<Int> = holder.ints.sorted()
        let descending = holder.ints.sorted(ascending: false)
        #expect(Array(ascending) == [1, 1, 4, 7])
        #expect(Array(descending) == [7, 4, 1, 1])
        #expect(descending.count == 4)
        #expect(descending.first == 7)
        #expect(descending.last == 1)
        #expect(descending[1] == 4)
        #expect(descending.index(of: 4) == 1)
        #expect(descending.index(of: 5) == nil)
        try realm.write { holder.ints.append(10) }
        #expect(descending.first == 10)
        #expect(Array(holder.optionalStrings.sorted()) == [nil, "a", "b"])
        #expect(Array(holder.dates.sorted(ascending: false)) == [dates[1], dates[2], dates[0]])
        #expect(holder.ints.sorted().description.contains("[0] 1"))
    }

    @Test("filtering an unmanaged List stops with Realm's message")
    func unmanagedFilter() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Person().dogs.filter("age > 1")
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("This method may only be called on RLMArray instances retrieved from an RLMRealm"), "\(stderr)")
    }
}

extension QueryErrorTests {
    @Test("a key path that is not a persisted property")
    func keyPathNotPersisted() async {
        removeInMemoryRealm("openrealm-exit-queryKeyPath")
        defer { removeInMemoryRealm("openrealm-exit-queryKeyPath") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryKeyPath"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).sorted(by: \.description)  // computed: reads every property
        }
        expectStop("does not reach a persisted property of 'Dog'", result)
    }
}

extension QueryErrorTests {
    @Test("filtering results of values")
    func filterValues() async {
        removeInMemoryRealm("openrealm-exit-queryValues")
        defer { removeInMemoryRealm("openrealm-exit-queryValues") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryValues"))
            let holder = Collections(value: ["ints": [1, 2]])
            try realm.write { realm.add(holder) }
            _ = holder.ints.sorted().filter("self > 1")
        }
        expectStop("Querying is currently only implemented for arrays of Realm Objects", result)
    }
}

extension QueryErrorTests {
    @Test("a %K argument that is not a key path")
    func badKeyPathArgument() async {
        removeInMemoryRealm("openrealm-exit-queryK")
        defer { removeInMemoryRealm("openrealm-exit-queryK") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryK"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).filter("%K == 1", "age == 1 OR TRUEPREDICATE")
        }
        expectStop("%K takes a key path string, argument 0 is 'age == 1 OR TRUEPREDICATE'", result)
    }
}
