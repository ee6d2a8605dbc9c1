// RealmCollectionTests.swift — generic code over the RealmCollection protocol, used with each
// conforming type (Results, List, MutableSet, LinkingObjects, AnyRealmCollection).

import Foundation
import Testing

import OpenRealm

/// Dogs Rex (3), Fido (5), Max (1), Bo (5); Ada (30) owns [Max, Fido, Rex], Grace (40) owns
/// [Rex]; a `Collections` object's dog set holds Bo and Rex.
private func kennel() throws -> (Realm, Person, Collections, Dog) {
    let realm = try memoryRealm()
    let (ada, collections, rex) = try realm.write {
        let dogs = [("Rex", 3), ("Fido", 5), ("Max", 1), ("Bo", 5)].map { realm.create(Dog.self, value: ["name": $0.0, "age": $0.1]) }
        let ada = realm.create(Person.self, value: ["id": 1, "name": "Ada", "age": 30, "dogs": [dogs[2], dogs[1], dogs[0]]])
        realm.create(Person.self, value: ["id": 2, "name": "Grace", "age": 40, "dogs": [dogs[0]]])
        let collections = realm.create(Collections.self)
        collections.dogSet.insert(objectsIn: [dogs[3], dogs[0]])
        return (ada, collections, dogs[0])
    }
    return (realm, ada, collections, rex)
}

/// The brief's example: the dogs' names, sorted, from any collection of dogs.
private func names<C: RealmCollection>(_ dogs: C) -> [String] where C.Element == Dog {
    dogs.sorted(byKeyPath: "name").map(\.name)
}

/// What a generic function can ask of any collection of dogs, through the protocol only.
private struct DogSummary: Equatable {
    var count: Int
    var first: String?
    var last: String?
    var olderThanTwo: [String]
    var byAgeThenName: [String]
    var distinctAges: Int
    var youngest: Int?
    var oldest: Int?
    var totalAge: Int
    var meanAge: Double?
    var firstFiveYearOld: Int?
    var atZeroAndLast: [String]
}

private func summary<C: RealmCollection>(_ dogs: C) -> DogSummary where C.Element == Dog {
    DogSummary(
        count: dogs.count,
        first: dogs.first?.name,
        last: dogs.last?.name,
        olderThanTwo: dogs.filter("age > %@", 2).map(\.name),
        byAgeThenName: dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"]).map(\.name),
        distinctAges: dogs.distinct(by: ["age"]).count,
        youngest: dogs.min(ofProperty: "age"),
        oldest: dogs.max(ofProperty: "age"),
        totalAge: dogs.sum(ofProperty: "age"),
        meanAge: dogs.average(ofProperty: "age"),
        firstFiveYearOld: dogs.index(matching: "age == 5"),
        atZeroAndLast: dogs.objects(at: IndexSet([0, dogs.count - 1])).map(\.name)
    )
}

/// Checks what every RealmCollection offers against the collection's own elements, read in order.
private func expectConsistent<C: RealmCollection>(_ collection: C, in realm: Realm) where C.Element: Object {
    let elements = Array(collection)
    #expect(collection.realm == realm)
    #expect(!collection.isInvalidated)
    #expect(collection.count == elements.count)
    for (position, element) in elements.enumerated() {
        #expect(collection.index(of: element) == position)
        #expect(collection[position].isSameObject(as: element))
    }
    #expect(collection.description.contains("\(C.Element.self)"))
    #expect(!collection.isFrozen)
    let frozen = collection.freeze()
    #expect(frozen.isFrozen)
    #expect(frozen.count == collection.count)
    let thawed = frozen.thaw()
    #expect(thawed?.isFrozen == false)
    #expect(thawed?.count == collection.count)
}

@Suite("RealmCollection")
struct RealmCollectionTests {
    @Test("a generic function over RealmCollection takes Results, List, MutableSet and AnyRealmCollection")
    func genericNames() throws {
        let (realm, ada, collections, _) = try kennel()
        #expect(names(realm.objects(Dog.self)) == ["Bo", "Fido", "Max", "Rex"])
        #expect(names(realm.objects(Dog.self).filter("age > 2")) == ["Bo", "Fido", "Rex"])
        #expect(names(ada.dogs) == ["Fido", "Max", "Rex"])
        #expect(names(collections.dogSet) == ["Bo", "Rex"])
        #expect(names(AnyRealmCollection(ada.dogs)) == ["Fido", "Max", "Rex"])
        #expect(names(AnyRealmCollection(realm.objects(Dog.self))) == ["Bo", "Fido", "Max", "Rex"])
    }

    @Test("a generic function over RealmCollection takes LinkingObjects")
    func genericLinkingObjects() throws {
        let (_, _, _, rex) = try kennel()
        func ownerNames<C: RealmCollection>(_ people: C) -> [String] where C.Element == Person {
            people.filter("age > %@", 20).sorted(byKeyPath: "age", ascending: false).map(\.name)
        }
        #expect(ownerNames(rex.owners) == ["Grace", "Ada"])
        #expect(ownerNames(AnyRealmCollection(rex.owners)) == ["Grace", "Ada"])
        let oldest: Int? = rex.owners.max(ofProperty: "age")
        #expect(oldest == 40)
    }

    @Test("every requirement answers through the protocol as on the collection itself")
    func requirements() throws {
        let (realm, ada, collections, _) = try kennel()
        let all = summary(realm.objects(Dog.self))
        #expect(all == DogSummary(count: 4, first: "Rex", last: "Bo", olderThanTwo: ["Rex", "Fido", "Bo"],
                                  byAgeThenName: ["Bo", "Fido", "Rex", "Max"], distinctAges: 3, youngest: 1, oldest: 5,
                                  totalAge: 14, meanAge: 3.5, firstFiveYearOld: 1, atZeroAndLast: ["Rex", "Bo"]))
        let adas = summary(ada.dogs)
        #expect(adas == DogSummary(count: 3, first: "Max", last: "Rex", olderThanTwo: ["Fido", "Rex"],
                                   byAgeThenName: ["Fido", "Rex", "Max"], distinctAges: 3, youngest: 1, oldest: 5,
                                   totalAge: 9, meanAge: 3, firstFiveYearOld: 1, atZeroAndLast: ["Max", "Rex"]))
        #expect(summary(AnyRealmCollection(ada.dogs)) == adas)
        let set = summary(collections.dogSet)
        #expect(set.count == 2)
        #expect(set.byAgeThenName == ["Bo", "Rex"])
        #expect(set.totalAge == 8)
        #expect(set.meanAge == 4)
        #expect(summary(AnyRealmCollection(collections.dogSet)) == set)
    }

    @Test("realm, isInvalidated, index(of:), description, freeze and thaw through the protocol")
    func threadConfinedRequirements() throws {
        let (realm, ada, collections, rex) = try kennel()
        expectConsistent(realm.objects(Dog.self), in: realm)
        expectConsistent(ada.dogs, in: realm)
        expectConsistent(collections.dogSet, in: realm)
        expectConsistent(rex.owners, in: realm)
        expectConsistent(AnyRealmCollection(ada.dogs), in: realm)
    }

    @Test("isInvalidated through the protocol once the list's object is deleted")
    func invalidated() throws {
        let (realm, ada, _, _) = try kennel()
        func isGone<C: RealmCollection>(_ collection: C) -> Bool { collection.isInvalidated }
        let dogs = ada.dogs
        #expect(!isGone(dogs))
        try realm.write { realm.delete(ada) }
        #expect(isGone(dogs))
        #expect(isGone(AnyRealmCollection(dogs)))
    }

    @Test("generic code over collections of values reads them (count, first, index(of:), objects(at:))")
    func values() throws {
        let realm = try memoryRealm()
        let collections = try realm.write {
            let collections = realm.create(Collections.self)
            collections.ints.append(objectsIn: [4, 8, 15, 16])
            return collections
        }
        func describe<C: RealmCollection>(_ numbers: C) -> (Int, Int?, Int?, [Int]) where C.Element == Int {
            (numbers.count, numbers.first, numbers.index(of: 15), numbers.objects(at: [1, 3]))
        }
        let managed = describe(collections.ints)
        #expect(managed.0 == 4 && managed.1 == 4 && managed.2 == 2 && managed.3 == [8, 16])
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [15, 16, 23, 42])
        let loose = describe(unmanaged)
        #expect(loose.0 == 4 && loose.1 == 15 && loose.2 == 0 && loose.3 == [16, 42])
        #expect(collections.ints.sorted(ascending: false).objects(at: [0]) == [16])
    }

    @Test("objects(at:) with an index past the end stops with Realm's message")
    func objectsAtOutOfBounds() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(1)
            _ = list.objects(at: [0, 1])
        }
        expectStop("Indexes for collection are out of bounds.", result)
    }

    // Realm does not query collections of values: RLMManagedArray, RLMManagedSet and
    // RLMManagedDictionary throw for filter(_:) on them; so does OpenRealm, with Realm's message.

    @Test("filtering a List of values stops with Realm's message")
    func filterListOfValues() async {
        removeInMemoryRealm("openrealm-exit-filterListOfValues")
        defer { removeInMemoryRealm("openrealm-exit-filterListOfValues") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-filterListOfValues"))
            let holder = try realm.write { realm.create(Collections.self, value: ["ints": [1, 6, 9]]) }
            _ = holder.ints.filter("self > 5")
        }
        expectStop("Querying is currently only implemented for arrays of Realm Objects", result)
    }

    @Test("filtering a MutableSet of values stops with Realm's message")
    func filterSetOfValues() async {
        removeInMemoryRealm("openrealm-exit-filterSetOfValues")
        defer { removeInMemoryRealm("openrealm-exit-filterSetOfValues") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-filterSetOfValues"))
            let person = try realm.write { realm.create(Person.self, value: ["id": 1, "tags": ["a", "b"]]) }
            _ = person.tags.where { $0 == "a" }
        }
        expectStop("Querying is currently only implemented for sets of Realm Objects", result)
    }
}
