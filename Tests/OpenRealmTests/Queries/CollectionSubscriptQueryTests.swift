// CollectionSubscriptQueryTests.swift — Realm Query Language subscripts on typed collections
// through `filter` and `where`: `list[0]`, `[FIRST]`, `[LAST]`, `[*]`, `[SIZE]` on lists and
// sets, `map['key']` and `map[*]` on maps, `dogs[0].name` and `dogMap['a'].name` through
// collections of objects, `@type` of properties that are not AnyRealmValue, and the
// programmer errors of what realm-core refuses.

import Foundation
import Testing

import OpenRealm

/// Two people and a `Collections` pair:
/// - Ann: dogs [Rex (3), Fido (5)]; Bob: dogs [Max (1)];
/// - first: ints [1, 2, 3], doubles {"a": 1.5, "b": 4}, dogMap {"a": Rex, "n": nil};
/// - second: ints [9], doubles {"a": 8}, dogMap {"a": Max}.
private func people() throws -> Realm {
    let realm = try memoryRealm()
    try realm.write {
        let rex = realm.create(Dog.self, value: ["name": "Rex", "age": 3])
        let fido = realm.create(Dog.self, value: ["name": "Fido", "age": 5])
        let max = realm.create(Dog.self, value: ["name": "Max", "age": 1])
        let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
        ann.dogs.append(objectsIn: [rex, fido])
        let bob = realm.create(Person.self, value: ["id": 2, "name": "Bob"])
        bob.dogs.append(max)
        let first = realm.create(Collections.self)
        first.ints.append(objectsIn: [1, 2, 3])
        first.doubles["a"] = 1.5
        first.doubles["b"] = 4
        first.dogMap["a"] = rex
        first.dogMap.updateValue(nil, forKey: "n")
        let second = realm.create(Collections.self)
        second.ints.append(9)
        second.doubles["a"] = 8
        second.dogMap["a"] = max
    }
    return realm
}

private func names(_ people: Results<Person>) -> [String] { people.map(\.name).sorted() }
private func firstInts(_ results: Results<Collections>) -> [Int] { results.map { $0.ints.first ?? -1 }.sorted() }

@Suite("Subscripts of typed collections in queries")
struct CollectionSubscriptQueryTests {
    @Test("list[0], [FIRST], [LAST], [*] and [SIZE] on a list of values")
    func listSubscripts() throws {
        let realm = try people()
        let all = realm.objects(Collections.self)
        #expect(firstInts(all.filter("ints[0] == 1")) == [1])
        #expect(firstInts(all.filter("ints[FIRST] > 1")) == [9])
        #expect(firstInts(all.filter("ints[LAST] == 3")) == [1])
        #expect(firstInts(all.filter("ints[LAST] == ints[FIRST]")) == [9])
        #expect(firstInts(all.filter("ints[2] == %@", 3)) == [1])
        #expect(all.filter("ints[5] == 3").isEmpty)                  // out of range: nothing
        #expect(firstInts(all.filter("ALL ints[*] < 5")) == [1])
        #expect(firstInts(all.filter("ints[SIZE] == 1")) == [9])
        #expect(firstInts(all.filter("ints[%@] == 2", 1)) == [1])     // an index argument
        #expect(firstInts(all.filter("%K[LAST] == 9", "ints")) == [9])  // a key path argument, then a subscript
    }

    @Test("map['key'], map.key and map[*] on a map of values")
    func mapSubscripts() throws {
        let realm = try people()
        let all = realm.objects(Collections.self)
        #expect(firstInts(all.filter("doubles['a'] > 2")) == [9])
        #expect(firstInts(all.filter("doubles.b == 4")) == [1])
        #expect(firstInts(all.filter("doubles['b'] == nil")) == [9])
        #expect(firstInts(all.filter("doubles[*] == 4")) == [1])
        #expect(firstInts(all.filter("doubles[%@] == 8", "a")) == [9])
        #expect(firstInts(all.where { $0.doubles["a"] == 1.5 }) == [1])
    }

    @Test("dogs[0].name, dogs[LAST].age and dogMap['a'].name through collections of objects")
    func objectSubscripts() throws {
        let realm = try people()
        let persons = realm.objects(Person.self)
        #expect(names(persons.filter("dogs[0].name == 'Rex'")) == ["Ann"])
        #expect(names(persons.filter("dogs[FIRST].age < 3")) == ["Bob"])
        #expect(names(persons.filter("dogs[LAST].name == 'Fido'")) == ["Ann"])
        #expect(names(persons.filter("dogs[1].age > 0")) == ["Ann"])
        #expect(names(persons.filter("ALL dogs[*].age > 2")) == ["Ann"])
        let all = realm.objects(Collections.self)
        #expect(firstInts(all.filter("dogMap['a'].name == 'Max'")) == [9])
        #expect(firstInts(all.filter("dogMap['n'] == nil")) == [1, 9])
    }

    @Test("@type of a map's values, and of properties that are not AnyRealmValue compared with one")
    func typeOf() throws {
        let realm = try memoryRealm()
        try realm.write {
            let one = realm.create(Collections.self)
            one.mixedList.append(objectsIn: [.int(1), .string("a")])
            let two = realm.create(Collections.self)
            two.mixedList.append(.double(2))
        }
        let all = realm.objects(Collections.self)
        #expect(all.filter("mixedList.@type == 'string'").count == 1)
        #expect(all.filter("ALL mixedList.@type == 'numeric'").count == 1)
    }

    @Test("a key on a list stops with realm-core's message")
    func keyOnList() async {
        removeInMemoryRealm("openrealm-exit-keyOnList")
        defer { removeInMemoryRealm("openrealm-exit-keyOnList") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-keyOnList"))
            try realm.write { realm.add(Collections()) }
            _ = realm.objects(Collections.self).filter("ints['a'] == 1")
        }
        expectStop("Property 'Collections.ints' has no property 'a'", result)
    }

    @Test("an index on a map stops with realm-core's message")
    func indexOnMap() async {
        removeInMemoryRealm("openrealm-exit-indexOnMap")
        defer { removeInMemoryRealm("openrealm-exit-indexOnMap") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-indexOnMap"))
            try realm.write { realm.add(Collections()) }
            _ = realm.objects(Collections.self).filter("doubles[0] == 1")
        }
        expectStop("Property 'Collections.doubles' does not support index 'FIRST'", result)
    }

    @Test("@type of a property that is not AnyRealmValue compared with a type name stops")
    func constantType() async {
        removeInMemoryRealm("openrealm-exit-constantType")
        defer { removeInMemoryRealm("openrealm-exit-constantType") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-constantType"))
            try realm.write { realm.add(Dog()) }
            _ = realm.objects(Dog.self).filter("age.@type == 'int'")
        }
        expectStop("Comparison between two constants is not supported ('\"int\"' and '\"int\"')", result)
    }
}
