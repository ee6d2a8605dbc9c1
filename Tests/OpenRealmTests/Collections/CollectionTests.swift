// CollectionTests.swift — List, MutableSet, Map and LinkingObjects, unmanaged and managed.

import Foundation
import Testing

import OpenRealm

@Suite("Collections")
struct CollectionTests {
    @Test("List: append, insert, remove, move, swap, replace, subscript, index(of:)")
    func list() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1])
        try realm.write { realm.add(person) }
        let names = person.nicknames
        #expect(names.realm == realm)
        try realm.write {
            names.append("a")
            names.append(objectsIn: ["b", "c"])
            names.insert("z", at: 0)
        }
        #expect(Array(names) == ["z", "a", "b", "c"])
        try realm.write {
            names.remove(at: 0)
            names.move(from: 0, to: 2)
        }
        #expect(Array(names) == ["b", "c", "a"])
        try realm.write {
            names.swapAt(0, 2)
            names.replace(index: 1, object: "C")
            names[2] = "B"
        }
        #expect(Array(names) == ["a", "C", "B"])
        #expect(names.index(of: "B") == 2)
        #expect(names.index(of: "nope") == nil)
        #expect(names.first == "a")
        #expect(names.last == "B")
        #expect(names.count == 3)
        try realm.write { names.removeAll() }
        #expect(names.isEmpty)
        #expect(person.nicknames === person.nicknames)  // the same managed list each time
    }

    @Test("List of objects: unmanaged objects are added; removing keeps them in the Realm")
    func listOfObjects() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1])
        try realm.write { realm.add(person) }
        try realm.write {
            person.dogs.append(Dog(value: ["name": "Rex"]))
            person.dogs.append(Dog(value: ["name": "Fido"]))
        }
        #expect(person.dogs.map(\.name) == ["Rex", "Fido"])
        let rex = person.dogs[0]
        #expect(person.dogs.index(of: rex) == 0)
        #expect(rex.owners.count == 1)
        #expect(rex.owners.first?.id == 1)
        try realm.write { person.dogs.remove(at: 0) }
        #expect(!rex.isInvalidated)
        #expect(rex.owners.count == 0)
        #expect(realm.objects(Dog.self).count == 2)
    }

    @Test("an unmanaged object given another object's managed collections gets their elements when added")
    func managedCollectionsAssignedBeforeAdd() throws {
        let realm = try memoryRealm()
        try realm.write {
            realm.add(Person(value: ["id": 1, "name": "Ada", "dogs": [["name": "Rex"], ["name": "Fido"]],
                                     "tags": ["a", "b"], "scores": ["math": 90]]))
        }
        let ada = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        let copy = Person(value: ["id": 2, "name": "Copy"])
        copy.dogs = ada.dogs
        copy.tags = ada.tags
        copy.scores = ada.scores
        try realm.write { realm.add(copy) }
        let added = try #require(realm.object(ofType: Person.self, forPrimaryKey: 2))
        #expect(added.dogs.map(\.name) == ["Rex", "Fido"])
        #expect(Set(added.tags) == ["a", "b"])
        #expect(added.scores["math"] == 90)
        #expect(ada.dogs.count == 2)  // the source keeps its elements
    }

    @Test("unmanaged List behaves as an array")
    func unmanagedList() {
        let list = List<Int>()
        list.append(objectsIn: [3, 1, 2])
        list.move(from: 0, to: 2)
        #expect(Array(list) == [1, 2, 3])
        list.swapAt(0, 1)
        list.remove(at: 2)
        #expect(Array(list) == [2, 1])
        #expect(list.realm == nil)
    }

    @Test("List of optional strings and of mixed values")
    func listElementTypes() throws {
        let realm = try memoryRealm()
        let object = Collections()
        object.optionalStrings.append(objectsIn: ["a", nil])
        object.ints.append(objectsIn: [1, 2, 3])
        object.mixedList.append(objectsIn: [.int(1), .string("s"), .none])
        try realm.write { realm.add(object) }
        #expect(Array(object.optionalStrings) == ["a", nil])
        #expect(Array(object.ints) == [1, 2, 3])
        #expect(Array(object.mixedList) == [.int(1), .string("s"), .none])
    }

    @Test("MutableSet: insert, remove, contains, union, intersection, subtraction")
    func mutableSet() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1, "tags": ["x"]])
        try realm.write { realm.add(person) }
        let tags = person.tags
        #expect(tags.contains("x"))
        try realm.write {
            tags.insert("b")
            tags.insert("a")
            tags.insert("a")
        }
        #expect(Array(tags) == ["a", "b", "x"])  // value order
        try realm.write { tags.formUnion(["c", "d"]) }
        #expect(tags.count == 5)
        try realm.write { tags.formIntersection(["a", "c", "q"]) }
        #expect(Array(tags) == ["a", "c"])
        try realm.write { tags.subtract(["a"]) }
        #expect(Array(tags) == ["c"])
        try realm.write { tags.remove("c") }
        #expect(tags.isEmpty)
        #expect(tags.isSubset(of: ["z"]))
    }

    @Test("MutableSet of objects and of dates, unmanaged and managed")
    func mutableSetTypes() throws {
        let realm = try memoryRealm()
        let object = Collections()
        let dog = Dog(value: ["name": "Rex"])
        object.dogSet.insert(dog)
        object.dogSet.insert(dog)
        #expect(object.dogSet.count == 1)
        object.dates.insert(Date(timeIntervalSince1970: 10))
        try realm.write { realm.add(object) }
        #expect(object.dogSet.count == 1)
        #expect(object.dogSet.contains(dog))
        #expect(object.dates.contains(Date(timeIntervalSince1970: 10)))
    }

    @Test("Map: subscript, updateValue, removeObject(for:), keys, values, iteration")
    func map() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1])
        person.scores["art"] = 1
        try realm.write { realm.add(person) }
        let scores = person.scores
        #expect(scores["art"] == 1)
        try realm.write {
            scores["math"] = 90
            scores.updateValue(70, forKey: "bio")
        }
        #expect(scores.count == 3)
        #expect(scores.keys == ["art", "bio", "math"])
        #expect(scores.values == [1, 70, 90])
        #expect(scores.map(\.key) == ["art", "bio", "math"])
        try realm.write {
            scores["art"] = nil
            scores.removeObject(for: "bio")
        }
        #expect(scores.keys == ["math"])
        #expect(scores["nope"] == nil)
        try realm.write { scores.removeAll() }
        #expect(scores.isEmpty)
    }

    @Test("Map of objects and of embedded objects")
    func mapOfObjects() throws {
        let realm = try memoryRealm()
        let object = Collections()
        object.dogMap["rex"] = Dog(value: ["name": "Rex"])
        object.addressMap["home"] = Address(value: ["street": "Main", "city": "Oslo"])
        try realm.write { realm.add(object) }
        #expect(object.dogMap["rex"]??.name == "Rex")
        #expect(object.addressMap["home"]??.city == "Oslo")
        try realm.write { object.doubles["pi"] = 3.14 }
        #expect(object.doubles["pi"] == 3.14)
    }

    @Test("LinkingObjects: the objects linking through a property, empty when unmanaged")
    func linkingObjects() throws {
        let realm = try memoryRealm()
        let rex = Dog(value: ["name": "Rex"])
        #expect(rex.owners.count == 0)
        let a = Person(value: ["id": 1, "dogs": [rex]])
        let b = Person(value: ["id": 2])
        try realm.write {
            realm.add(a)
            realm.add(b)
            b.dogs.append(rex)
        }
        #expect(rex.owners.count == 2)
        #expect(rex.owners.map(\.id).sorted() == [1, 2])
        #expect(rex.owners.index(of: b) != nil)
    }

    @Test("two classes listing the objects linking from each other")
    func mutualLinkingObjects() throws {
        let realm = try memoryRealm()
        let club = Club(value: ["name": "chess"])
        let member = Member(value: ["name": "Ada"])
        club.members.append(member)
        member.clubs.append(club)
        try realm.write { realm.add(club) }
        #expect(member.joined.first?.name == "chess")
        #expect(club.memberOf.first?.name == "Ada")
    }

    @Test("assigning a collection property replaces its contents")
    func assignCollection() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1, "nicknames": ["a"]])
        try realm.write { realm.add(person) }
        let replacement = List<String>()
        replacement.append(objectsIn: ["x", "y"])
        try realm.write { person.nicknames = replacement }
        #expect(Array(person.nicknames) == ["x", "y"])
    }

    @Test("AnyRealmValue: lists and dictionaries nested in properties, lists and maps")
    func nestedMixedCollections() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1])
        try realm.write { realm.add(person) }
        let inner = Map<String, AnyRealmValue>()
        inner["k"] = .int(1)
        let outer = List<AnyRealmValue>()
        outer.append(.string("first"))
        outer.append(.dictionary(inner))
        try realm.write { person.anything = .list(outer) }
        let list = try #require(person.anything.listValue)
        #expect(list.count == 2)
        let dictionary = try #require(list[1].dictionaryValue)
        #expect(dictionary["k"] == .int(1))
        try realm.write {
            dictionary["nested"] = .list(List())
            dictionary["nested"]?.listValue?.append(.bool(true))
        }
        #expect(person.anything.listValue?[1].dictionaryValue?["nested"]?.listValue?.first == .bool(true))

        let collections = Collections()
        collections.mixedList.append(.list(List()))
        try realm.write { realm.add(collections) }
        try realm.write { collections.mixedList[0].listValue?.append(.int(42)) }
        #expect(collections.mixedList[0].listValue?[0] == .int(42))
    }

    @Test("AnyRealmValue from loosely typed arrays and dictionaries")
    func mixedFromAny() throws {
        let realm = try memoryRealm()
        let person = try realm.write {
            realm.create(Person.self, value: ["id": 1, "anything": ["a": 1, "b": "two"] as [String: Any]])
        }
        #expect(person.anything.dictionaryValue?["b"] == .string("two"))
        #expect(person.anything.dictionaryValue?.count == 2)
    }
}
