// PortSurfaceTests.swift — public API that Realm Swift's own test files use and that a port
// changing only its import line needs to compile (found by compiling those files against
// OpenRealm): each test checks the API's behaviour.

import Foundation
import Testing

import OpenRealm

@Suite("Realm Swift port surface")
struct PortSurfaceTests {
    private func realm() throws -> Realm {
        try Realm(configuration: .init(inMemoryIdentifier: "port-surface-\(UUID().uuidString)",
                                       objectTypes: [KeyedThing.self, Dog.self, Person.self, Address.self]))
    }

    // ObjectTests.testEqualityForObjectTypeWithPrimaryKey: XCTAssertEqual(testObject.hash, retrievedObject.hash)
    @Test("hash is equal for two accessors of one keyed object and follows ==")
    func hashFollowsEquality() throws {
        let realm = try realm()
        try realm.write { realm.create(KeyedThing.self, value: [1, "a"]); realm.create(KeyedThing.self, value: [2, "b"]) }
        let a = try #require(realm.object(ofType: KeyedThing.self, forPrimaryKey: 1))
        let b = try #require(realm.object(ofType: KeyedThing.self, forPrimaryKey: 1))
        let other = try #require(realm.object(ofType: KeyedThing.self, forPrimaryKey: 2))
        #expect(a !== b)
        #expect(a.hash == b.hash)
        #expect(a.hash == a.hashValue)
        #expect(a.hash != other.hash)
    }

    // ObjectTests.testRealm and others wrap Realm work in autoreleasepool { }.
    @Test("autoreleasepool runs its block once and returns its result")
    func autoreleasepoolRunsBlock() throws {
        var runs = 0
        let count = try autoreleasepool { () throws -> Int in
            runs += 1
            let realm = try realm()
            try realm.write { realm.create(Dog.self, value: ["Rex"]) }
            return realm.objects(Dog.self).count
        }
        #expect(runs == 1)
        #expect(count == 1)
        struct Failure: Error {}
        #expect(throws: Failure.self) { try autoreleasepool { throw Failure() } }
    }
}
