// PortSurfaceTests.swift — public API that Realm Swift's own test files use and that a port
// changing only its import line needs to compile (found by compiling those files against
// OpenRealm): each test checks the API's behaviour.

import Foundation
import Testing

import OpenRealm

@Suite("Realm Swift port surface")
struct PortSurfaceTests {
    private func realm() throws -> Realm {
        try Realm(configuration: .init(inMemoryIdentifier: "port-surface-\(UUID().uuidString)",
                                       objectTypes: [KeyedThing.self, Dog.self, Person.self, Address.self]))
    }

    // ObjectTests.testEqualityForObjectTypeWithPrimaryKey: XCTAssertEqual(testObject.hash, retrievedObject.hash)
    @Test("hash is equal for two accessors of one keyed object and follows ==")
    func hashFollowsEquality() throws {
        let realm = try realm()
        try realm.write { realm.create(KeyedThing.self, value: [1, "a"]); realm.create(KeyedThing.self, value: [2, "b"]) }
        let a = try #require(realm.object(ofType: KeyedThing.self, forPrimaryKey: 1))
        let b = try #require(realm.object(ofType: KeyedThing.self, forPrimaryKey: 1))
        let other = try #require(realm.object(ofType: KeyedThing.self, forPrimaryKey: 2))
        #expect(a !== b)
        #expect(a.hash == b.hash)
        #expect(a.hash == a.hashValue)
        #expect(a.hash != other.hash)
    }

    // ObjectTests.testRealm and others wrap Realm work in autoreleasepool { }.
    @Test("autoreleasepool runs its block once and returns its result")
    func autoreleasepoolRunsBlock() throws {
        var runs = 0
        let count = try autoreleasepool { () throws -> Int in
            runs += 1
            let realm = try realm()
            try realm.write { realm.create(Dog.self, value: ["Rex"]) }
            return realm.objects(Dog.self).count
        }
        #expect(runs == 1)
        #expect(count == 1)
        struct Failure: Error {}
        #expect(throws: Failure.self) { try autoreleasepool { throw Failure() } }
    }

    // ListTests.ListRRCMethodsTests: the range subscript and the range methods of a list.
    @Test("a list's range methods work on a let list, managed and unmanaged, as Realm's")
    func listRangeMethods() throws {
        func check(_ person: Person, in realm: Realm?) throws {
            let list = person.nicknames
            func write(_ block: () -> Void) throws {
                if let realm { try realm.write(block) } else { block() }
            }
            try write { list.append(objectsIn: ["a", "b", "c", "d", "e", "f", "g"]) }
            #expect(Array(list[1..<3]) == ["b", "c"])
            let other = List<String>()
            other.append(objectsIn: ["x", "y", "z"])
            try write { list[1..<4] = other[0..<2] }                // three replaced by two
            #expect(Array(list) == ["a", "x", "y", "e", "f", "g"])
            try write { list.insert(contentsOf: ["1", "2"], at: 1) }
            #expect(Array(list) == ["a", "1", "2", "x", "y", "e", "f", "g"])
            try write { list.removeSubrange(1...2) }
            #expect(Array(list) == ["a", "x", "y", "e", "f", "g"])
            try write { list.removeSubrange(0..<1) }
            #expect(Array(list) == ["x", "y", "e", "f", "g"])
            try write { list.removeFirst(2) }
            #expect(Array(list) == ["e", "f", "g"])
            try write { list.removeLast(2) }
            #expect(Array(list) == ["e"])
            try write { list.append(objectsIn: ["h", "i", "j"]); list.remove(atOffsets: IndexSet([0, 2])) }
            #expect(Array(list) == ["h", "j"])
            try write { list.move(fromOffsets: IndexSet(integer: 0), toOffset: 2) }
            #expect(Array(list) == ["j", "h"])
            try write { list.removeFirst(0); list.removeLast(0) }
            #expect(list.count == 2)
        }
        try check(Person(), in: nil)
        let realm = try realm()
        let person = Person()
        try realm.write { realm.add(person) }
        try check(person, in: realm)
        #expect(Array(realm.objects(Person.self).first!.nicknames) == ["j", "h"])
    }

    // RealmCollectionTypeTests.testMin/testMax/testSum: `collection.min(ofProperty: "intCol") as NSNumber?`,
    // `as NSDate?`, `(collection.sum(ofProperty: "floatCol") as NSNumber).floatValue`.
    @Test("aggregates by property name read as NSNumber and NSDate, managed and unmanaged")
    func aggregatesAsNSNumberAndNSDate() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "port-surface-\(UUID().uuidString)",
                                                   objectTypes: [AllTypes.self, Collections.self]))
        let results = realm.objects(AllTypes.self)
        #expect(results.min(ofProperty: "int") as NSNumber? == nil)
        #expect(results.sum(ofProperty: "int") as NSNumber == 0)
        #expect(results.max(ofProperty: "date") as NSDate? == nil)
        try realm.write {
            for (int, float, seconds) in [(1, 1.5 as Float, 10.0), (2, 2.5, 20), (3, 2.5, 30)] {
                realm.create(AllTypes.self, value: ["int": int, "float": float, "double": Double(int) + 0.25,
                                                    "date": Date(timeIntervalSince1970: seconds),
                                                    "decimal": Decimal128(int)])
            }
        }
        #expect(results.min(ofProperty: "int") as NSNumber? == 1)
        #expect(results.max(ofProperty: "int") as NSNumber? == 3)
        #expect(results.sum(ofProperty: "int") as NSNumber == 6)
        #expect(results.average(ofProperty: "int") as NSNumber? == 2)
        #expect((results.sum(ofProperty: "float") as NSNumber).floatValue == 6.5)
        #expect((results.max(ofProperty: "double") as NSNumber?)?.doubleValue == 3.25)
        #expect((results.sum(ofProperty: "decimal") as NSNumber).doubleValue == 6)
        #expect(results.min(ofProperty: "date") as NSDate? == NSDate(timeIntervalSince1970: 10))
        #expect(results.max(ofProperty: "date") as NSDate? == NSDate(timeIntervalSince1970: 30))
        let any = AnyRealmCollection(results)
        #expect(any.max(ofProperty: "int") as NSNumber? == 3)

        // An unmanaged list of objects aggregates the same way.
        let list = List<AllTypes>()
        list.append(objectsIn: results.map { AllTypes(value: $0) })
        #expect(list.min(ofProperty: "int") as NSNumber? == 1)
        #expect(list.sum(ofProperty: "int") as NSNumber == 6)
        #expect(list.max(ofProperty: "date") as NSDate? == NSDate(timeIntervalSince1970: 30))
    }

    // RealmTests.testInitCustomClassList: configuration.objectTypes!.sorted { $0.className() < $1.className() }.
    @Test("className() is the file's class name for Object and EmbeddedObject classes alike")
    func classNameOfEveryModelClass() throws {
        #expect(Address.className() == "Address")
        #expect(Person.className() == "Person")
        let types: [ObjectBase.Type] = [Person.self, Address.self, Dog.self]
        #expect(types.map { $0.className() }.sorted() == ["Address", "Dog", "Person"])
        let configuration = Realm.Configuration(inMemoryIdentifier: "port-surface-\(UUID().uuidString)",
                                                objectTypes: [Person.self, Address.self, Dog.self])
        let sorted = configuration.objectTypes!.sorted { $0.className() < $1.className() }
        #expect(sorted[0] is Address.Type)
        let realm = try Realm(configuration: configuration)
        #expect(Set(realm.schema.objectSchema.map(\.className)) == Set(sorted.map { $0.className() }))
    }
}
