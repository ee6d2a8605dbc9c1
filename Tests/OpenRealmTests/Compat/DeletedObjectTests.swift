// DeletedObjectTests.swift — a deleted object as Realm has it: the accessor passed to delete has
// no Realm any more, every accessor of it is invalidated, and writing, deleting or adding it again
// stops with Realm's message (reading: ProgrammerErrorTests).

import Foundation
import Testing

import OpenRealm

@Suite("Deleted objects as Realm")
struct DeletedObjectTests {
    @Test("the accessor passed to delete has no Realm; the others keep theirs; all are invalidated")
    func realmAfterDelete() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "deleted-\(UUID().uuidString)"))
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        let other = try #require(realm.objects(Dog.self).first)
        #expect(dog.realm == realm && !dog.isInvalidated)
        try realm.write { realm.delete(dog) }
        #expect(dog.realm == nil && dog.isInvalidated)
        #expect(other.realm == realm && other.isInvalidated)
        // Deleting the object again through another accessor does nothing.
        try realm.write { realm.delete(other) }
        #expect(other.realm == nil && other.isInvalidated && realm.objects(Dog.self).isEmpty)
    }

    @Test("deleteAll invalidates objects; they keep their Realm")
    func deleteAllKeepsRealm() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "deleted-\(UUID().uuidString)"))
        let dog = Dog()
        #expect(!dog.isInvalidated)
        try realm.write {
            realm.add(dog)
            #expect(!dog.isInvalidated)
        }
        try realm.write {
            realm.deleteAll()
            #expect(dog.isInvalidated)
        }
        #expect(dog.isInvalidated && dog.realm == realm)
    }

    @Test("writing a property of a deleted object stops with Realm's message")
    func writeDeleted() async {
        removeInMemoryRealm("openrealm-exit-writeDeleted")
        defer { removeInMemoryRealm("openrealm-exit-writeDeleted") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-writeDeleted"))
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            let other = realm.objects(Dog.self).first!
            try realm.write {
                realm.delete(dog)
                other.age = 3
            }
        }
        expectStop("Object has been deleted or invalidated.", result)
    }

    @Test("deleting the same accessor twice stops: it has no Realm any more")
    func deleteTwice() async {
        removeInMemoryRealm("openrealm-exit-deleteTwice")
        defer { removeInMemoryRealm("openrealm-exit-deleteTwice") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-deleteTwice"))
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            try realm.write {
                realm.delete(dog)
                realm.delete(dog)
            }
        }
        expectStop("Can only delete an object from the Realm it belongs to.", result)
    }

    @Test("adding a deleted object stops with Realm's message")
    func addDeleted() async {
        removeInMemoryRealm("openrealm-exit-addDeleted")
        defer { removeInMemoryRealm("openrealm-exit-addDeleted") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-addDeleted"))
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            try realm.write {
                realm.delete(dog)
                realm.add(dog)
            }
        }
        expectStop("Adding a deleted or invalidated object to a Realm is not permitted", result)
    }

    @Test("an object passed to delete cannot be frozen: it has no Realm")
    func freezeDeleted() async {
        removeInMemoryRealm("openrealm-exit-freezeDeleted")
        defer { removeInMemoryRealm("openrealm-exit-freezeDeleted") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-freezeDeleted"))
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            try realm.write { realm.delete(dog) }
            _ = dog.freeze()
        }
        expectStop("Unmanaged objects cannot be frozen.", result)
    }

    @Test("an unmanaged object cannot be thawed (Realm's message)")
    func thawUnmanaged() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog().thaw()
        }
        expectStop("Unmanaged objects cannot be thawed.", result)
    }
}

@Suite("Linking a deleted object")
struct LinkDeletedObjectTests {
    /// Runs `link` in a write transaction with a deleted `Dog` and a managed `Person`.
    private static func linkDeleted(_ link: (Person, Dog) -> Void) throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "link-deleted-\(UUID().uuidString)"))
        let dog = Dog(value: ["name": "Rex"])
        try realm.write {
            realm.add(dog)
            realm.delete(dog)
            link(realm.create(Person.self, value: ["id": 1]), dog)
        }
    }

    @Test("setting a link to a deleted object stops with Realm's message")
    func linkProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try LinkDeletedObjectTests.linkDeleted { person, dog in person.dog = dog }
        }
        expectStop("Adding a deleted or invalidated object to a Realm is not permitted", result)
    }

    @Test("appending a deleted object to a list stops with Realm's message")
    func listAppend() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try LinkDeletedObjectTests.linkDeleted { person, dog in person.dogs.append(dog) }
        }
        expectStop("Adding a deleted or invalidated object to a Realm is not permitted", result)
    }

    @Test("a deleted object of another accessor: deleteAll keeps the Realm, the link is still refused")
    func deleteAllAccessor() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "link-deleted-all"))
            let dog = Dog(value: ["name": "Rex"])
            try realm.write { realm.add(dog) }
            try realm.write {
                realm.deleteAll()
                realm.create(Person.self, value: ["id": 1]).dog = dog
            }
        }
        expectStop("Adding a deleted or invalidated object to a Realm is not permitted", result)
    }
}
