// CollectionSurfaceTests.swift — the rest of Realm's collection and object surface: key-value
// coding on collections, == of configurations, results and schemas, freezing a collection
// through the Realm, @ThreadSafe, the Map helpers.

import Foundation
import Testing

import OpenRealm

/// Holds a @ThreadSafe property, read from another thread.
final class ThreadSafeHolder: @unchecked Sendable {
    @ThreadSafe var dog: Dog?
    @ThreadSafe var dogs: Results<Dog>?
}

@Suite("Collection surface")
struct CollectionSurfaceTests {
    private func peopleRealm() throws -> (Realm, Person) {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1, "name": "Ann"])
        try realm.write {
            realm.add(person)
            person.dogs.append(Dog(value: ["name": "Rex", "age": 3]))
            person.dogs.append(Dog(value: ["name": "Fido", "age": 5]))
            person.scores["math"] = 90
            realm.add(Person(value: ["id": 2, "name": "Bo", "dog": ["name": "Spot", "age": 1]]))
        }
        return (realm, person)
    }

    @Test("value(forKey:) and value(forKeyPath:) read a property of every element")
    func valueForKey() throws {
        let (realm, person) = try peopleRealm()
        #expect(person.dogs.value(forKey: "name") as? [String] == ["Rex", "Fido"])
        #expect(person.dogs.value(forKey: "age") as? [Int] == [3, 5])
        #expect(AnyRealmCollection(person.dogs).value(forKey: "@count") as? Int == 2)
        let owners = try #require(realm.objects(Person.self).sorted(byKeyPath: "id").value(forKeyPath: "dog.name") as? [Any])
        #expect(owners.count == 2)
        #expect(owners[0] is NSNull)
        #expect(owners[1] as? String == "Spot")
        let selves = try #require(person.dogs.value(forKey: "self") as? [Dog])
        #expect(selves.map(\.name) == ["Rex", "Fido"])
        #expect(person.nicknames.value(forKey: "self") as? [String] == [])
    }

    @Test("configurations compare as Realm compares them")
    func configurationEquality() {
        let url = URL(fileURLWithPath: "/tmp/a.realm")
        #expect(Realm.Configuration(fileURL: url) == Realm.Configuration(fileURL: url, objectTypes: [Dog.self]))
        #expect(Realm.Configuration(fileURL: url) != Realm.Configuration(fileURL: url, schemaVersion: 2))
        #expect(Realm.Configuration(inMemoryIdentifier: "a") != Realm.Configuration(inMemoryIdentifier: "b"))
        #expect(Realm.Configuration(fileURL: url, readOnly: true) != Realm.Configuration(fileURL: url))
    }

    @Test("results compare equal when they are the same results")
    func resultsEquality() throws {
        let (realm, _) = try peopleRealm()
        let dogs = realm.objects(Dog.self)
        #expect(dogs == realm.objects(Dog.self))
        #expect(dogs != realm.objects(Dog.self).filter("age > 1"))
        let old = dogs.filter("age > 1")
        #expect(old == old)
        let other = try memoryRealm()
        #expect(dogs != other.objects(Dog.self))
    }

    @Test("schemas compare by their classes and properties")
    func schemaEquality() throws {
        let realm = try memoryRealm([Dog.self, Person.self, Address.self])
        let again = try memoryRealm([Person.self, Dog.self, Address.self])
        #expect(realm.schema == again.schema)
        #expect(realm.schema["Dog"] == Dog().objectSchema)
        #expect(realm.schema["Dog"] != Person().objectSchema)
        let fewer = try memoryRealm([StringKeyed.self])
        #expect(realm.schema != fewer.schema)
    }

    @Test("Realm.freeze(_:) and thaw(_:) of a collection")
    func freezeCollection() throws {
        let (realm, person) = try peopleRealm()
        let frozen = realm.freeze(person.dogs)
        #expect(frozen.isFrozen)
        #expect(frozen.map(\.name) == ["Rex", "Fido"])
        let frozenResults = realm.freeze(realm.objects(Dog.self))
        try realm.write { realm.add(Dog(value: ["name": "New"])) }
        #expect(frozenResults.count == 3)
        let thawed = try #require(realm.thaw(frozenResults))
        #expect(!thawed.isFrozen)
        #expect(thawed.count == 4)
    }

    @Test("@ThreadSafe resolves its value on the reading thread")
    func threadSafeProperty() throws {
        let (realm, person) = try peopleRealm()
        let holder = ThreadSafeHolder()
        #expect(holder.dog == nil)
        holder.dog = person.dogs[0]
        holder.dogs = realm.objects(Dog.self).filter("age > 2")
        let seen = ResultBox<(String?, Int?)>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            seen.result = .success((holder.dog?.name, holder.dogs?.count))
            done.signal()
        }
        done.wait()
        let (name, count) = try #require(seen.result).get()
        #expect(name == "Rex")
        #expect(count == 2)
        // A second read resolves again.
        #expect(holder.dog?.name == "Rex")
        try realm.write { realm.delete(person.dogs[0]) }
        #expect(holder.dog == nil)
        holder.dogs = nil
        #expect(holder.dogs == nil)
    }

    @Test("Map merges, searches its entries and reads values by key")
    func mapHelpers() throws {
        let (realm, person) = try peopleRealm()
        try realm.write {
            person.scores.merge([(key: "math", value: 80), (key: "art", value: 70)]) { current, new in Swift.max(current, new) }
            person.scores.merge(["music": 60]) { _, new in new }
        }
        #expect(person.scores["math"] == 90)
        #expect(person.scores["art"] == 70)
        #expect(person.scores["music"] == 60)
        let other = Map<String, Int>()
        other["math"] = 99
        try realm.write { person.scores.merge(other) { _, new in new } }
        #expect(person.scores["math"] == 99)
        #expect(person.scores.contains { key, value in key == "art" && value == 70 })
        #expect(!person.scores.contains { _, value in value > 100 })
        #expect(person.scores.value(forKey: "art") as? Int == 70)
        #expect(person.scores.value(forKey: "nope") == nil)
        let pets = Map<String, Dog?>()
        pets["rex"] = Dog(value: ["name": "Rex"])
        #expect(pets.value(forKeyPath: "rex.name") as? String == "Rex")
    }
}

/// A model class with its own description.
final class DescribedModel: Object {
    @Persisted var name: String
    override var description: String { "Described(\(name))" }
}

@Suite("Overridable description")
struct OverridableDescriptionTests {
    @Test("a model class overrides description, managed or not")
    func overriddenDescription() throws {
        let model = DescribedModel(value: ["name": "a"])
        #expect(model.description == "Described(a)")
        #expect("\(model)" == "Described(a)")
        let realm = try memoryRealm([DescribedModel.self])
        try realm.write { realm.add(model) }
        #expect(String(describing: realm.objects(DescribedModel.self)[0]) == "Described(a)")
    }
}
