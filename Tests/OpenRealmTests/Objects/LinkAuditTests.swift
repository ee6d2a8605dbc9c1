// LinkAuditTests.swift — to-one links and their backlinks as Realm Swift's SwiftLinkTests use
// them: a linked object added with its owner, two owners of one object, deleting the target
// nullifies the link, and linking objects of unmanaged and managed objects.

import Foundation
import Testing

import OpenRealm

final class AuditLinkDog: Object {
    @Persisted var dogName: String
    @Persisted var age: Int
    @Persisted(originProperty: "dog") var owners: LinkingObjects<AuditLinkOwner>
}

final class AuditLinkOwner: Object {
    @Persisted var name: String
    @Persisted var dog: AuditLinkDog?
}

@Suite("Links as Realm's SwiftLinkTests")
struct LinkAuditTests {
    private func realm() throws -> Realm { try memoryRealm([AuditLinkDog.self, AuditLinkOwner.self]) }

    private func owner() -> AuditLinkOwner {
        let owner = AuditLinkOwner()
        owner.name = "Tim"
        owner.dog = AuditLinkDog()
        owner.dog!.dogName = "Harvie"
        return owner
    }

    @Test("a linked object is added with its owner and read back through the link")
    func basicLink() throws {
        let realm = try realm()
        try realm.write { realm.add(owner()) }
        let owners = realm.objects(AuditLinkOwner.self)
        let dogs = realm.objects(AuditLinkDog.self)
        #expect(owners.count == 1 && dogs.count == 1)
        #expect(owners[0].name == "Tim" && dogs[0].dogName == "Harvie")
        #expect(owners[0].dog?.dogName == "Harvie")
    }

    @Test("two owners of one object: array input with NSNull for the link, then the link set")
    func multipleOwners() throws {
        let realm = try realm()
        let tim = owner()
        try realm.write { realm.add(tim) }
        realm.beginWrite()
        let fiel = realm.create(AuditLinkOwner.self, value: ["Fiel", NSNull()])
        #expect(fiel.dog == nil)
        fiel.dog = tim.dog
        try realm.commitWrite()
        #expect(realm.objects(AuditLinkOwner.self).count == 2)
        #expect(realm.objects(AuditLinkDog.self).count == 1)
        #expect(tim.dog?.owners.count == 2)
    }

    @Test("deleting the target nullifies the link of every owner")
    func linkRemoval() throws {
        let realm = try realm()
        let tim = owner()
        try realm.write { realm.add(tim) }
        try realm.write { realm.delete(tim.dog!) }
        #expect(tim.dog == nil)
        let again = try #require(realm.objects(AuditLinkOwner.self).first)
        #expect(again.dog == nil)
        #expect(realm.objects(AuditLinkDog.self).isEmpty)
    }

    @Test("linking objects: empty while unmanaged, live once added")
    func linkingObjects() throws {
        let realm = try realm()
        let tim = owner()
        #expect(tim.dog!.owners.count == 0)
        #expect(tim.dog!.owners.first == nil)
        try realm.write { realm.add(tim) }
        let owners = tim.dog!.owners
        #expect(owners.count == 1 && owners.first?.name == "Tim")
        try realm.write { tim.dog = nil }
        #expect(owners.count == 0)
    }

    @Test("a query compares a link with an object of the same Realm; an unmanaged one matches nothing")
    func queryWithObjectArgument() throws {
        let realm = try realm()
        let tim = owner()
        try realm.write { realm.add(tim) }
        let harvie = try #require(tim.dog)
        #expect(realm.objects(AuditLinkOwner.self).filter("dog == %@", harvie).count == 1)
        #expect(realm.objects(AuditLinkOwner.self).where { $0.dog == harvie }.count == 1)
        #expect(realm.objects(AuditLinkOwner.self).filter("dog == %@", AuditLinkDog()).count == 0)
        #expect(realm.objects(AuditLinkOwner.self).filter("dog != %@", AuditLinkDog()).count == 1)
    }

    @Test("an object of another Realm in a query stops, even where its key is one of this file's")
    func queryWithObjectOfAnotherRealm() async {
        removeInMemoryRealm("openrealm-exit-queryOtherRealm-a")
        removeInMemoryRealm("openrealm-exit-queryOtherRealm-b")
        defer {
            removeInMemoryRealm("openrealm-exit-queryOtherRealm-a")
            removeInMemoryRealm("openrealm-exit-queryOtherRealm-b")
        }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let types: [ObjectBase.Type] = [AuditLinkDog.self, AuditLinkOwner.self]
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryOtherRealm-a", objectTypes: types))
            let other = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-queryOtherRealm-b", objectTypes: types))
            try realm.write { realm.add(AuditLinkOwner(value: ["name": "Tim", "dog": ["dogName": "Harvie"]])) }
            // The first dog of each file: the same key in both.
            let stranger = try other.write { other.create(AuditLinkDog.self, value: ["dogName": "Rex"]) }
            _ = realm.objects(AuditLinkOwner.self).filter("dog == %@", stranger).count
        }
        expectStop("Object must be from the Realm being queried", result)
    }
}
