// CollectionSetValueTests.swift — setValue(_:forKey:) on every kind of collection: Results, List,
// MutableSet, LinkingObjects and AnyRealmCollection, managed and unmanaged, and its errors.

import Foundation
import Testing

import OpenRealm

/// Dogs Rex (3), Fido (5), Max (1), Bo (5); Ada owns [Max, Fido, Rex], Grace owns [Rex]; a
/// `Collections` object's dog set holds Bo and Rex.
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

/// The dogs' names and ages, by name.
private func dogs(_ realm: Realm) -> [String: Int] {
    Dictionary(uniqueKeysWithValues: realm.objects(Dog.self).map { ($0.name, $0.age) })
}

@Suite("setValue(_:forKey:) on collections")
struct CollectionSetValueTests {
    @Test("Results: every object, and only the ones the results hold")
    func results() throws {
        let (realm, _, _, _) = try kennel()
        try realm.write { realm.objects(Dog.self).filter("age >= 3").setValue(7, forKey: "age") }
        #expect(dogs(realm) == ["Rex": 7, "Fido": 7, "Max": 1, "Bo": 7])
        // The objects are the ones held when called, even when the change takes them out.
        try realm.write { realm.objects(Dog.self).filter("age == 7").setValue(8, forKey: "age") }
        #expect(dogs(realm) == ["Rex": 8, "Fido": 8, "Max": 1, "Bo": 8])
        try realm.write { realm.objects(Dog.self).sorted(byKeyPath: "name").setValue("Dog", forKey: "name") }
        #expect(realm.objects(Dog.self).map(\.name) == ["Dog", "Dog", "Dog", "Dog"])
        // An optional property set to nil, then to a value.
        try realm.write { realm.objects(Person.self).setValue(nil, forKey: "height") }
        #expect(realm.objects(Person.self).map(\.height) == [nil, nil])
        try realm.write { realm.objects(Person.self).setValue(1.75, forKey: "height") }
        #expect(realm.objects(Person.self).map(\.height) == [1.75, 1.75])
        // An empty collection changes nothing.
        try realm.write { realm.objects(Dog.self).filter("age > 100").setValue(1, forKey: "age") }
        #expect(realm.objects(Dog.self).map(\.age).sorted() == [1, 8, 8, 8])
    }

    @Test("List: its objects, a link and an indexed property object by object")
    func list() throws {
        let (realm, ada, _, rex) = try kennel()
        try realm.write { ada.dogs.setValue(2, forKey: "age") }
        #expect(dogs(realm) == ["Rex": 2, "Fido": 2, "Max": 2, "Bo": 5])
        // A link: every person of the results now has Rex as their dog.
        try realm.write { realm.objects(Person.self).setValue(rex, forKey: "dog") }
        #expect(realm.objects(Person.self).map { $0.dog?.name } == ["Rex", "Rex"])
        // An indexed property (each object's index entry changes).
        try realm.write { realm.objects(Person.self).setValue("Same", forKey: "name") }
        #expect(realm.objects(Person.self).filter("name == 'Same'").count == 2)
        // An unmanaged list sets each of its objects.
        let puppies = List<Dog>()
        puppies.append(objectsIn: [Dog(), Dog()])
        puppies.setValue("Pup", forKey: "name")
        #expect(puppies.map(\.name) == ["Pup", "Pup"])
    }

    @Test("MutableSet: its objects")
    func mutableSet() throws {
        let (realm, _, collections, _) = try kennel()
        try realm.write { collections.dogSet.setValue(9, forKey: "age") }
        #expect(dogs(realm) == ["Rex": 9, "Fido": 5, "Max": 1, "Bo": 9])
    }

    @Test("LinkingObjects: the objects that link here")
    func linkingObjects() throws {
        let (realm, _, _, rex) = try kennel()
        try realm.write { rex.owners.setValue(50, forKey: "age") }
        #expect(realm.objects(Person.self).map(\.age) == [50, 50])
    }

    @Test("AnyRealmCollection: the collection it wraps")
    func anyRealmCollection() throws {
        let (realm, ada, _, _) = try kennel()
        try realm.write { AnyRealmCollection(ada.dogs).setValue(4, forKey: "age") }
        #expect(dogs(realm) == ["Rex": 4, "Fido": 4, "Max": 4, "Bo": 5])
        try realm.write { AnyRealmCollection(realm.objects(Dog.self)).setValue(6, forKey: "age") }
        #expect(dogs(realm).values.allSatisfy { $0 == 6 })
    }

    @Test("every change is one transaction's, and observers see every object modified")
    func observed() throws {
        let (realm, _, _, _) = try kennel()
        let all = realm.objects(Dog.self)
        var modified: [Int] = []
        let token = all.observe { change in
            if case .update(_, _, _, let modifications) = change { modified = modifications }
        }
        defer { token.invalidate() }
        realm.refresh()  // the initial notification
        try realm.write { all.setValue(11, forKey: "age") }
        realm.refresh()
        #expect(modified.sorted() == [0, 1, 2, 3])
    }
}

@Suite("setValue(_:forKey:) on collections: programmer errors")
struct CollectionSetValueErrorTests {
    @Test("outside a write transaction")
    func outsideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try memoryRealm()
            try realm.write { _ = realm.create(Dog.self) }
            realm.objects(Dog.self).setValue(1, forKey: "age")
        }
        expectStop("Cannot modify managed objects outside of a write transaction.", result)
    }

    @Test("an unknown property")
    func unknownProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try memoryRealm()
            try realm.write {
                _ = realm.create(Dog.self)
                realm.objects(Dog.self).setValue(1, forKey: "weight")
            }
        }
        expectStop("Invalid property name 'weight' for class 'Dog'.", result)
    }

    @Test("the primary key")
    func primaryKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try memoryRealm()
            try realm.write {
                _ = realm.create(Person.self, value: ["id": 1])
                realm.objects(Person.self).setValue(2, forKey: "id")
            }
        }
        expectStop("Primary key can't be changed after an object is inserted.", result)
    }
}
