// ObjectEqualityTests.swift — `==`, hashing and `isSameObject(as:)` of objects as Realm Swift
// documents them.

import Foundation
import Testing

import OpenRealm

/// A class with a primary key (equality by row).
final class KeyedThing: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

@Suite("Object equality as Realm's")
struct ObjectEqualityTests {
    private func realmWithObjects() throws -> Realm {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "equality-\(UUID().uuidString)",
                                                   objectTypes: [KeyedThing.self, Dog.self, Person.self, Address.self]))
        try realm.write {
            realm.create(KeyedThing.self, value: [1, "a"])
            realm.create(Dog.self, value: ["Rex"])
        }
        return realm
    }

    // Realm's isSameObject(as:) documentation: "If the object type is defined with a primary key,
    // `isEqual(_:)` behaves identically to this method. If the object type is not defined with a
    // primary key, `isEqual(_:)` uses the `NSObject` behavior of comparing object identity."
    @Test("with a primary key: two accessors of one object are equal and hash alike")
    func primaryKeyByRow() throws {
        let realm = try realmWithObjects()
        let a = realm.objects(KeyedThing.self)[0], b = realm.objects(KeyedThing.self)[0]
        #expect(a !== b)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a.isSameObject(as: b))
        // Unmanaged objects with the same key are different objects.
        #expect(KeyedThing(value: [1]) != KeyedThing(value: [1]))
    }

    @Test("without a primary key: equality is identity, isSameObject compares the row")
    func noPrimaryKeyByIdentity() throws {
        let realm = try realmWithObjects()
        let a = realm.objects(Dog.self)[0], b = realm.objects(Dog.self)[0]
        #expect(a == a)
        #expect(a != b)
        #expect(Set([a, b]).count == 2)
        #expect(a.isSameObject(as: b))
        #expect([a].firstIndex(of: b) == nil)
    }

    // Realm's AnyRealmValue compares its objects with Object's ==; its hash agrees.
    @Test("AnyRealmValue.object compares as Object's ==")
    func mixedObjects() throws {
        let realm = try realmWithObjects()
        let keyed = realm.objects(KeyedThing.self)
        #expect(AnyRealmValue.object(keyed[0]) == AnyRealmValue.object(keyed[0]))
        #expect(Set([AnyRealmValue.object(keyed[0]), .object(keyed[0])]).count == 1)
        let dogs = realm.objects(Dog.self)
        #expect(AnyRealmValue.object(dogs[0]) != AnyRealmValue.object(dogs[0]))
        let dog = dogs[0]
        #expect(AnyRealmValue.object(dog) == AnyRealmValue.object(dog))
    }

    // RLMObjectBase's isEqual: objects of a frozen Realm compare by row (their key never
    // changes), with or without a primary key.
    @Test("frozen objects compare by row")
    func frozenByRow() throws {
        let realm = try realmWithObjects()
        let frozen = realm.freeze()
        let a = frozen.objects(Dog.self)[0], b = frozen.objects(Dog.self)[0]
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
    }

    // RLMObjectBaseAreEqual: "if either are detached" the objects are not the same (only the
    // same accessor is).
    @Test("accessors of a deleted object are not the same object")
    func deletedObjects() throws {
        let realm = try realmWithObjects()
        let a = realm.objects(KeyedThing.self)[0], b = realm.objects(KeyedThing.self)[0]
        try realm.write { realm.delete(realm.objects(KeyedThing.self)) }
        #expect(!a.isSameObject(as: b))
        #expect(a != b)
        #expect(a.isSameObject(as: a))
        #expect(a == a)
    }
}
