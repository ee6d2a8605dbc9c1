// MapQueryTests.swift — queries of a Map of objects (filter, where, sorted, aggregates of a
// property: Results of the map's values, as in Realm) and aggregates of a Map of values.

import Foundation
import Testing

import OpenRealm

/// A `Collections` object whose dog map holds c: Fido (5), a: Rex (3), d: nil, b: Max (1),
/// e: Rex again; one more dog, Bo (7), is in no map.
private func petMap() throws -> (Realm, Collections) {
    let realm = try memoryRealm()
    let collections = try realm.write {
        let dogs = [("Rex", 3), ("Fido", 5), ("Max", 1), ("Bo", 7)].map { realm.create(Dog.self, value: ["name": $0.0, "age": $0.1]) }
        let collections = realm.create(Collections.self)
        collections.dogMap["c"] = dogs[1]
        collections.dogMap["a"] = dogs[0]
        collections.dogMap.updateValue(nil, forKey: "d")
        collections.dogMap["b"] = dogs[2]
        collections.dogMap["e"] = dogs[0]
        return collections
    }
    return (realm, collections)
}

private func names(_ dogs: Results<Dog?>) -> [String] { dogs.map { $0?.name ?? "nil" } }

@Suite("Map queries")
struct MapQueryTests {
    @Test("filter and where give Results of the map's objects, in key order, nil values left out")
    func filter() throws {
        let (_, collections) = try petMap()
        let pets = collections.dogMap
        #expect(pets.count == 5)
        let all: Results<Dog?> = pets.filter("TRUEPREDICATE")
        #expect(names(all) == ["Rex", "Max", "Fido", "Rex"])
        #expect(names(pets.filter("age > %@", 2)) == ["Rex", "Fido", "Rex"])
        #expect(names(pets.filter("name BEGINSWITH 'M' OR age == 5")) == ["Max", "Fido"])
        #expect(names(pets.where { $0.age < 4 }) == ["Rex", "Max", "Rex"])
        #expect(names(pets.where { $0.name == "Fido" }) == ["Fido"])
        // The Results chain as any Results.
        #expect(names(pets.filter("age > 2").filter("name != 'Fido'")) == ["Rex", "Rex"])
        #expect(pets.filter("age > 2").count == 3)
    }

    @Test("sorted(byKeyPath:) and sorted(by:) order the map's objects")
    func sorted() throws {
        let (_, collections) = try petMap()
        let pets = collections.dogMap
        #expect(names(pets.sorted(byKeyPath: "age")) == ["Max", "Rex", "Rex", "Fido"])
        #expect(names(pets.sorted(byKeyPath: "name", ascending: false)) == ["Rex", "Rex", "Max", "Fido"])
        #expect(names(pets.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"])) == ["Fido", "Rex", "Rex", "Max"])
        #expect(names(pets.filter("age > 2").sorted(byKeyPath: "name")) == ["Fido", "Rex", "Rex"])
    }

    @Test("min, max, sum and average of a property of the map's objects")
    func aggregatesOfObjects() throws {
        let (_, collections) = try petMap()
        let pets = collections.dogMap
        #expect(pets.min(ofProperty: "age") as Int? == 1)
        #expect(pets.max(ofProperty: "age") as Int? == 5)
        #expect(pets.sum(ofProperty: "age") as Int == 12)          // Rex is counted under both keys
        #expect(pets.average(ofProperty: "age") as Double? == 3)
    }

    @Test("the Results are live: a new entry, a key set to nil and a deleted dog show at once")
    func live() throws {
        let (realm, collections) = try petMap()
        let pets = collections.dogMap
        let older = pets.filter("age > 2")
        let byAge = pets.sorted(byKeyPath: "age")
        #expect(names(older) == ["Rex", "Fido", "Rex"])
        let bo = realm.objects(Dog.self).filter("name == 'Bo'").first!
        try realm.write { pets["f"] = bo }
        #expect(names(older) == ["Rex", "Fido", "Rex", "Bo"])
        #expect(names(byAge) == ["Max", "Rex", "Rex", "Fido", "Bo"])
        #expect(pets.max(ofProperty: "age") as Int? == 7)
        try realm.write { pets.updateValue(nil, forKey: "e") }
        #expect(names(older) == ["Rex", "Fido", "Bo"])
        let fido = realm.objects(Dog.self).filter("name == 'Fido'").first!
        try realm.write { realm.delete(fido) }
        #expect(pets.count == 6)                                    // the key stays, with nil
        #expect(pets["c"] == .some(nil))
        #expect(names(older) == ["Rex", "Bo"])
        #expect(names(byAge) == ["Max", "Rex", "Bo"])
        #expect(pets.sum(ofProperty: "age") as Int == 11)
        #expect(pets.average(ofProperty: "age") as Double? == 11.0 / 3)
    }

    @Test("an empty map, or one of only nil values: no objects, sum 0, min and average nil")
    func empty() throws {
        let realm = try memoryRealm()
        let collections = try realm.write { realm.create(Collections.self) }
        #expect(collections.dogMap.filter("age > 0").isEmpty)
        #expect(collections.dogMap.sum(ofProperty: "age") as Int == 0)
        #expect(collections.dogMap.min(ofProperty: "age") as Int? == nil)
        try realm.write { collections.dogMap.updateValue(nil, forKey: "x") }
        #expect(collections.dogMap.sorted(byKeyPath: "age").isEmpty)
        #expect(collections.dogMap.average(ofProperty: "age") as Double? == nil)
    }

    @Test("keys and values of a map of objects, nil values included")
    func keysAndValues() throws {
        let (_, collections) = try petMap()
        #expect(collections.dogMap.keys == ["a", "b", "c", "d", "e"])
        #expect(collections.dogMap.values.map { $0?.name ?? "nil" } == ["Rex", "Max", "Fido", "nil", "Rex"])
    }

    @Test("min, max, sum and average of a Map of values, managed and unmanaged")
    func aggregatesOfValues() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "scores": ["math": 90, "art": 70, "bio": 50]]) }
        let loose = Map<String, Int>()
        for (key, value) in ["math": 90, "art": 70, "bio": 50] { loose[key] = value }
        for scores in [person.scores, loose] {
            #expect(scores.min() == 50)
            #expect(scores.max() == 90)
            #expect(scores.sum() == 210)
            #expect(scores.average() as Double? == 70)
        }
        let collections = try realm.write {
            realm.create(Collections.self, value: ["doubles": ["a": 0.5, "b": 2.25, "c": -1.0]])
        }
        #expect(collections.doubles.min() == -1)
        #expect(collections.doubles.max() == 2.25)
        #expect(collections.doubles.sum() == 1.75)
        #expect(collections.doubles.average() as Double? == 1.75 / 3)
        // Live, and empty.
        try realm.write { person.scores["math"] = 10 }
        #expect(person.scores.max() == 70)
        try realm.write { person.scores.removeAll() }
        #expect(person.scores.min() == nil)
        #expect(person.scores.sum() == 0)
        #expect(person.scores.average() as Double? == nil)
        #expect(Map<String, Double>().sum() == 0)
    }

    @Test("filtering an unmanaged map stops with Realm's message")
    func unmanagedFilter() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let map = Map<String, Dog?>()
            map["rex"] = Dog()
            _ = map.filter("age > 1")
        }
        expectStop("This method may only be called on RLMDictionary instances retrieved from an RLMRealm", result)
    }

    @Test("filtering a map of values stops with Realm's message")
    func filterValues() async {
        removeInMemoryRealm("openrealm-exit-mapFilterValues")
        defer { removeInMemoryRealm("openrealm-exit-mapFilterValues") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-mapFilterValues"))
            let person = try realm.write { realm.create(Person.self, value: ["id": 1, "scores": ["a": 1]]) }
            _ = person.scores.filter("self > 0")
        }
        expectStop("Querying is currently only implemented for dictionaries of Realm Objects", result)
    }
}
