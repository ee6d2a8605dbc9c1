// HandleMisuseTests.swift — handles used where Realm forbids it: a collection of a deleted object,
// an object and a results from the wrong thread, a write begun inside a write, a commit or a
// cancel without a write; and results after invalidate(), which Realm allows. Each misuse stops
// with Realm's message (exit tests: each body runs in a child process).

import Foundation
import Testing

import OpenRealm

@Suite("Handles misused stop with Realm's message")
struct HandleMisuseTests {
    @Test("a list of an object after the object is deleted")
    func listOfDeletedObject() async {
        removeInMemoryRealm("openrealm-exit-listOfDeletedObject")
        defer { removeInMemoryRealm("openrealm-exit-listOfDeletedObject") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-listOfDeletedObject"))
            let person = try realm.write { realm.create(Person.self, value: ["id": 1, "nicknames": ["Jo"]]) }
            let nicknames = person.nicknames
            try realm.write { realm.delete(person) }
            _ = nicknames.count
        }
        expectStop("Object has been deleted or invalidated.", result)
    }

    @Test("an object read from another thread")
    func objectOnWrongThread() async {
        removeInMemoryRealm("openrealm-exit-objectOnWrongThread")
        defer { removeInMemoryRealm("openrealm-exit-objectOnWrongThread") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-objectOnWrongThread"))
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            nonisolated(unsafe) let shared = dog
            _ = try onOtherThread { shared.name }
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }

    @Test("results read from another thread")
    func resultsOnWrongThread() async {
        removeInMemoryRealm("openrealm-exit-resultsOnWrongThread")
        defer { removeInMemoryRealm("openrealm-exit-resultsOnWrongThread") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-resultsOnWrongThread"))
            try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            nonisolated(unsafe) let dogs = realm.objects(Dog.self).filter("age >= 0")
            _ = try onOtherThread { dogs.count }
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }

    @Test("beginWrite() inside a write transaction")
    func beginWriteInsideWrite() async {
        removeInMemoryRealm("openrealm-exit-beginWriteInsideWrite")
        defer { removeInMemoryRealm("openrealm-exit-beginWriteInsideWrite") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-beginWriteInsideWrite"))
            realm.beginWrite()
            realm.beginWrite()
        }
        expectStop("The Realm is already in a write transaction", result)
    }

    @Test("commitWrite() without a write transaction")
    func commitWithoutWrite() async {
        removeInMemoryRealm("openrealm-exit-commitWithoutWrite")
        defer { removeInMemoryRealm("openrealm-exit-commitWithoutWrite") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-commitWithoutWrite"))
            try realm.commitWrite()
        }
        expectStop("Can't commit a non-existing write transaction", result)
    }

    @Test("cancelWrite() without a write transaction")
    func cancelWithoutWrite() async {
        removeInMemoryRealm("openrealm-exit-cancelWithoutWrite")
        defer { removeInMemoryRealm("openrealm-exit-cancelWithoutWrite") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-cancelWithoutWrite"))
            realm.cancelWrite()
        }
        expectStop("Can't cancel a non-existing write transaction", result)
    }

    /// Results made before invalidate() can no longer be read (Realm's
    /// testInvalidateInvalidatesResults; see ProgrammerErrorTests); the Realm stays usable, and
    /// results made again read the latest version.
    @Test("results made again after invalidate() read the latest version")
    func resultsAfterInvalidate() throws {
        removeInMemoryRealm("openrealm-misuse-resultsAfterInvalidate")
        defer { removeInMemoryRealm("openrealm-misuse-resultsAfterInvalidate") }
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-misuse-resultsAfterInvalidate"))
        try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
        let dogs = realm.objects(Dog.self).filter("age >= 3").sorted(byKeyPath: "name")
        let rex = try #require(dogs.first)
        realm.invalidate()
        #expect(rex.isInvalidated)
        #expect(dogs.isInvalidated)
        let again = realm.objects(Dog.self).filter("age >= 3").sorted(byKeyPath: "name")
        #expect(!again.isInvalidated)
        #expect(again.first?.name == "Rex")
        try realm.write { realm.create(Dog.self, value: ["name": "Ace", "age": 4]) }
        #expect(again.map(\.name) == ["Ace", "Rex"])
    }
}
