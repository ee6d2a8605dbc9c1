// DocsThreadingTests.swift — what Realm Swift's guide ("Threading", "Freeze", "Pass instances
// across threads") and API reference (Realm.refresh, autorefresh, invalidate, freeze/thaw,
// ThreadSafeReference) say of live, frozen and passed objects.

import Foundation
import Testing

import OpenRealm

private func sharedConfiguration() -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "docs-\(UUID().uuidString)", objectTypes: docsTypes)
}

private func addPetElsewhere(_ configuration: Realm.Configuration, _ name: String) throws {
    try onOtherThread {
        let other = try Realm(configuration: configuration)
        try other.write { other.create(DocsPet.self, value: ["name": name]) }
    }
}

@Suite("Realm's documentation: threading, refresh, frozen objects, thread-safe references")
struct DocsThreadingTests {
    // refresh(): "Returns whether there were any updates for the Realm."
    @Test("refresh() says whether the Realm advanced")
    func refreshResult() throws {
        let configuration = sharedConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        #expect(realm.objects(DocsPet.self).isEmpty)
        try addPetElsewhere(configuration, "Away")
        #expect(realm.refresh())
        #expect(realm.objects(DocsPet.self).count == 1)
        #expect(!realm.refresh())
    }

    // invalidate(): the Realm stays usable and reads the newest version next; the objects read
    // before are invalidated.
    @Test("invalidate() invalidates objects and lists; the Realm reads anew")
    func invalidateObjects() throws {
        let configuration = sharedConfiguration()
        let realm = try Realm(configuration: configuration)
        let keeper = try realm.write { realm.create(DocsKeeper.self, value: ["id": 1, "pets": [["name": "a"]]]) }
        let pets = keeper.pets
        realm.invalidate()
        #expect(keeper.isInvalidated)
        #expect(pets.isInvalidated)
        try addPetElsewhere(configuration, "B")
        #expect(realm.objects(DocsPet.self).count == 2)
        realm.invalidate()
        realm.invalidate() // again, with nothing read: nothing to do
        #expect(realm.object(ofType: DocsKeeper.self, forPrimaryKey: 1)?.pets.count == 1)
    }

    // RLMRealm.invalidate inside a write transaction rolls the transaction back.
    @Test("invalidate() inside a write transaction cancels it")
    func invalidateInWrite() throws {
        let realm = try docsRealm()
        realm.beginWrite()
        realm.create(DocsPet.self, value: ["name": "Lost"])
        realm.invalidate()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(DocsPet.self).isEmpty)
    }

    // "Frozen objects": a frozen object, collection or Realm does not change; thaw() gives the
    // live one back.
    @Test("frozen objects and results keep their version; thaw() is live")
    func frozenKeepsVersion() throws {
        let realm = try docsRealm()
        let pet = try realm.write { realm.create(DocsPet.self, value: ["name": "Rex", "age": 1]) }
        let frozenPet = pet.freeze()
        let frozenPets = realm.objects(DocsPet.self).freeze()
        let frozenRealm = realm.freeze()
        #expect(frozenPet.isFrozen && frozenPets.isFrozen && frozenRealm.isFrozen)
        #expect(!pet.isFrozen && !realm.isFrozen)
        #expect(frozenPet.freeze() === frozenPet || frozenPet.freeze().isFrozen)
        try realm.write {
            pet.age = 2
            realm.create(DocsPet.self, value: ["name": "Max"])
        }
        #expect(frozenPet.age == 1)
        #expect(frozenPets.count == 1)
        #expect(frozenRealm.objects(DocsPet.self).count == 1)
        let thawed = try #require(frozenPet.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.age == 2)
        #expect(frozenPets.thaw()?.count == 2)
        #expect(frozenRealm.thaw().objects(DocsPet.self).count == 2)
    }

    // A frozen object of an object deleted since thaws to nil.
    @Test("thaw() of a deleted object is nil")
    func thawDeleted() throws {
        let realm = try docsRealm()
        let pet = try realm.write { realm.create(DocsPet.self, value: ["name": "Rex"]) }
        let frozen = pet.freeze()
        try realm.write { realm.delete(pet) }
        #expect(frozen.name == "Rex")
        #expect(frozen.thaw() == nil)
    }

    // Frozen objects may be read on any thread.
    @Test("a frozen object and frozen results are readable on another thread")
    func frozenAcrossThreads() throws {
        let realm = try docsRealm()
        try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "name": "Ann", "pets": [["name": "a", "age": 3]]])
        }
        nonisolated(unsafe) let keepers = realm.objects(DocsKeeper.self).freeze()
        let names = try onOtherThread { () -> [String] in
            keepers.map(\.name) + keepers[0].pets.map(\.name) + [String(keepers.filter("rank == 0").count)]
        }
        #expect(names == ["Ann", "a", "1"])
    }

    // ThreadSafeReference: resolved on another thread; nil when the object was deleted.
    @Test("a ThreadSafeReference resolves on another thread")
    func threadSafeReference() throws {
        let configuration = sharedConfiguration()
        let realm = try Realm(configuration: configuration)
        let keeper = try realm.write { realm.create(DocsKeeper.self, value: ["id": 7, "name": "Bo"]) }
        let reference = ThreadSafeReference(to: keeper)
        let name = try onOtherThread { () -> String? in
            let other = try Realm(configuration: configuration)
            return other.resolve(reference)?.name
        }
        #expect(name == "Bo")
        let results = ThreadSafeReference(to: realm.objects(DocsKeeper.self).filter("name == 'Bo'"))
        let count = try onOtherThread { () -> Int? in
            let other = try Realm(configuration: configuration)
            return other.resolve(results)?.count
        }
        #expect(count == 1)
    }

    // "Returns nil if this object was deleted after the reference was created": in a Realm
    // that reads a version past the deletion. A Realm that has not read yet reads the
    // reference's version (Realm's testPassThreadSafeReferenceToDeletedObject; FreezeTests).
    @Test("a ThreadSafeReference to an object deleted since resolves to nil in a Realm past the deletion")
    func threadSafeReferenceDeleted() throws {
        let configuration = sharedConfiguration()
        let realm = try Realm(configuration: configuration)
        let keeper = try realm.write { realm.create(DocsKeeper.self, value: ["id": 7]) }
        let reference = ThreadSafeReference(to: keeper)
        try realm.write { realm.delete(keeper) }
        let resolved = try onOtherThread { () -> Bool in
            let other = try Realm(configuration: configuration)
            _ = other.objects(DocsKeeper.self).count    // reads the latest version
            return other.resolve(reference) != nil
        }
        #expect(!resolved)
    }

    // A Realm older than the reference's source is refreshed to the source's version to
    // resolve it.
    @Test("resolving in a Realm behind the reference's version refreshes that Realm")
    func resolveRefreshes() throws {
        let configuration = sharedConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.autorefresh = false
        #expect(realm.objects(DocsKeeper.self).isEmpty)
        let reference = try onOtherThread { () -> ThreadSafeReference<DocsKeeper> in
            let other = try Realm(configuration: configuration)
            let made = try other.write { other.create(DocsKeeper.self, value: ["id": 9, "name": "New"]) }
            return ThreadSafeReference(to: made)
        }
        let resolved = realm.resolve(reference)
        #expect(resolved?.name == "New")
        #expect(realm.objects(DocsKeeper.self).count == 1)
    }

    // @ThreadSafe: a property wrapper whose value can be read on another thread; nil once the
    // object is deleted.
    @Test("@ThreadSafe reads on another thread and is nil after deletion")
    func threadSafeWrapper() throws {
        final class Holder: @unchecked Sendable {
            @ThreadSafe var keeper: DocsKeeper?
        }
        let configuration = sharedConfiguration()
        let realm = try Realm(configuration: configuration)
        let holder = Holder()
        holder.keeper = try realm.write { realm.create(DocsKeeper.self, value: ["id": 3, "name": "Cy"]) }
        let name = try onOtherThread { () -> String? in holder.keeper?.name }
        #expect(name == "Cy")
        try realm.write { realm.delete(realm.objects(DocsKeeper.self)) }
        let after = try onOtherThread { () -> Bool in
            // A Realm reading past the deletion (one not reading yet would read the version the
            // wrapper's reference was made at, as Realm's).
            let other = try Realm(configuration: configuration)
            _ = other.objects(DocsKeeper.self).count
            return withExtendedLifetime(other) { holder.keeper == nil }
        }
        #expect(after)
        #expect(holder.keeper == nil, "the wrapper forgets a deleted object")
    }
}
