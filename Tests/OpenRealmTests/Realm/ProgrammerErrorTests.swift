// ProgrammerErrorTests.swift — the mistakes Realm reports with an exception stop the program with
// a precondition failure and Realm's message (exit tests: each body runs in a child process).

import Foundation
import Testing

import OpenRealm

/// Expects an exit test's process to have stopped with a message on stderr containing `message`
/// (the exit tests of every suite use it).
func expectStop(_ message: String, sourceLocation: SourceLocation = #_sourceLocation,
                        _ result: ExitTest.Result?) {
    guard let result else {
        Issue.record("the process did not stop", sourceLocation: sourceLocation)
        return
    }
    let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(stderr.contains(message), "stderr: \(stderr)", sourceLocation: sourceLocation)
}

@Suite("Programmer errors stop with Realm's message")
struct ProgrammerErrorTests {
    @Test("changing a managed object outside a write transaction")
    func writeOutsideTransaction() async {
        removeInMemoryRealm("openrealm-exit-writeOutsideTransaction")
        defer { removeInMemoryRealm("openrealm-exit-writeOutsideTransaction") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-writeOutsideTransaction"))
            let dog = try realm.write { realm.create(Dog.self) }
            dog.name = "Rex"
        }
        expectStop("Attempting to modify object outside of a write transaction", result)
    }

    @Test("adding an object outside a write transaction")
    func addOutsideTransaction() async {
        removeInMemoryRealm("openrealm-exit-addOutsideTransaction")
        defer { removeInMemoryRealm("openrealm-exit-addOutsideTransaction") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-addOutsideTransaction"))
            realm.add(Dog())
        }
        expectStop("Can only add, remove, or create objects in a Realm in a write transaction", result)
    }

    @Test("a write inside a write")
    func nestedWrite() async {
        removeInMemoryRealm("openrealm-exit-nestedWrite")
        defer { removeInMemoryRealm("openrealm-exit-nestedWrite") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-nestedWrite"))
            try realm.write { try realm.write {} }
        }
        expectStop("The Realm is already in a write transaction", result)
    }

    @Test("adding a duplicate primary key with update: .error")
    func duplicatePrimaryKey() async {
        removeInMemoryRealm("openrealm-exit-duplicatePrimaryKey")
        defer { removeInMemoryRealm("openrealm-exit-duplicatePrimaryKey") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-duplicatePrimaryKey"))
            try realm.write {
                realm.add(Person(value: ["id": 1]))
                realm.add(Person(value: ["id": 1]))
            }
        }
        expectStop("Attempting to create an object of type 'Person' with an existing primary key value '1'.", result)
    }

    @Test("using a deleted object")
    func deletedObject() async {
        removeInMemoryRealm("openrealm-exit-deletedObject")
        defer { removeInMemoryRealm("openrealm-exit-deletedObject") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-deletedObject"))
            let dog = try realm.write { realm.create(Dog.self) }
            try realm.write { realm.delete(dog) }
            _ = dog.name
        }
        expectStop("Object has been deleted or invalidated.", result)
    }

    @Test("using an object after invalidate()")
    func invalidatedObject() async {
        removeInMemoryRealm("openrealm-exit-invalidatedObject")
        defer { removeInMemoryRealm("openrealm-exit-invalidatedObject") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-invalidatedObject"))
            let dog = try realm.write { realm.create(Dog.self) }
            realm.invalidate()
            _ = dog.age
        }
        expectStop("Object has been deleted or invalidated.", result)
    }

    @Test("results made before invalidate(): count (testInvalidateInvalidatesResults)")
    func resultsCountAfterInvalidate() async {
        removeInMemoryRealm("openrealm-exit-resultsCountAfterInvalidate")
        defer { removeInMemoryRealm("openrealm-exit-resultsCountAfterInvalidate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-resultsCountAfterInvalidate"))
            try realm.write { realm.create(Dog.self, value: ["age": 2]) }
            let results = realm.objects(Dog.self).filter("age > 0")
            _ = results.first
            realm.invalidate()
            _ = results.count
        }
        expectStop("Access to invalidated Results objects", result)
    }

    @Test("results made before invalidate(): first (testInvalidateInvalidatesResults)")
    func resultsFirstAfterInvalidate() async {
        removeInMemoryRealm("openrealm-exit-resultsFirstAfterInvalidate")
        defer { removeInMemoryRealm("openrealm-exit-resultsFirstAfterInvalidate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-resultsFirstAfterInvalidate"))
            try realm.write { realm.create(Dog.self, value: ["age": 2]) }
            let results = realm.objects(Dog.self).filter("age > 0")
            _ = results.first
            realm.invalidate()
            _ = results.first
        }
        expectStop("Access to invalidated Results objects", result)
    }

    @Test("results made before invalidate(): filter (testInvalidateInvalidatesResults)")
    func resultsFilterAfterInvalidate() async {
        removeInMemoryRealm("openrealm-exit-resultsFilterAfterInvalidate")
        defer { removeInMemoryRealm("openrealm-exit-resultsFilterAfterInvalidate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-resultsFilterAfterInvalidate"))
            try realm.write { realm.create(Dog.self, value: ["age": 2]) }
            let results = realm.objects(Dog.self).filter("age > 0")
            _ = results.first
            realm.invalidate()
            _ = results.filter("age > 1")
        }
        expectStop("Access to invalidated Results objects", result)
    }

    @Test("results made before invalidate(): sorted (testInvalidateInvalidatesResults)")
    func resultsSortedAfterInvalidate() async {
        removeInMemoryRealm("openrealm-exit-resultsSortedAfterInvalidate")
        defer { removeInMemoryRealm("openrealm-exit-resultsSortedAfterInvalidate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-resultsSortedAfterInvalidate"))
            try realm.write { realm.create(Dog.self, value: ["age": 2]) }
            let results = realm.objects(Dog.self).filter("age > 0")
            _ = results.first
            realm.invalidate()
            _ = results.sorted(byKeyPath: "age")
        }
        expectStop("Access to invalidated Results objects", result)
    }

    @Test("results made before invalidate(): sum (testInvalidateInvalidatesResults)")
    func resultsSumAfterInvalidate() async {
        removeInMemoryRealm("openrealm-exit-resultsSumAfterInvalidate")
        defer { removeInMemoryRealm("openrealm-exit-resultsSumAfterInvalidate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-resultsSumAfterInvalidate"))
            try realm.write { realm.create(Dog.self, value: ["age": 2]) }
            let results = realm.objects(Dog.self).filter("age > 0")
            _ = results.first
            realm.invalidate()
            let total: Int = results.sum(ofProperty: "age"); _ = total
        }
        expectStop("Access to invalidated Results objects", result)
    }

    @Test("results made before invalidate(): iteration (testInvalidateInvalidatesResults)")
    func resultsIterationAfterInvalidate() async {
        removeInMemoryRealm("openrealm-exit-resultsIterationAfterInvalidate")
        defer { removeInMemoryRealm("openrealm-exit-resultsIterationAfterInvalidate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-resultsIterationAfterInvalidate"))
            try realm.write { realm.create(Dog.self, value: ["age": 2]) }
            let results = realm.objects(Dog.self).filter("age > 0")
            _ = results.first
            realm.invalidate()
            for dog in results { _ = dog }
        }
        expectStop("Access to invalidated Results objects", result)
    }

    @Test("changing a primary key")
    func primaryKeyChange() async {
        removeInMemoryRealm("openrealm-exit-primaryKeyChange")
        defer { removeInMemoryRealm("openrealm-exit-primaryKeyChange") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-primaryKeyChange"))
            let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }
            try realm.write { person.id = 2 }
        }
        expectStop("Primary key can't be changed after an object is inserted.", result)
    }

    @Test("a class outside the configuration's objectTypes")
    func classNotInObjectTypes() async {
        removeInMemoryRealm("openrealm-exit-classNotInObjectTypes")
        defer { removeInMemoryRealm("openrealm-exit-classNotInObjectTypes") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-classNotInObjectTypes", objectTypes: [V1.Item.self]))
            _ = realm.objects(Dog.self).count
        }
        expectStop("Object type 'Dog' is not managed by the Realm.", result)
    }

    @Test("a Realm used on another thread")
    func wrongThread() async {
        removeInMemoryRealm("openrealm-exit-wrongThread")
        defer { removeInMemoryRealm("openrealm-exit-wrongThread") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-wrongThread"))
            nonisolated(unsafe) let shared = realm
            _ = try onOtherThread { shared.objects(Dog.self).count }
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }

    @Test("a list index past the end")
    func listIndexOutOfBounds() async {
        removeInMemoryRealm("openrealm-exit-listIndexOutOfBounds")
        defer { removeInMemoryRealm("openrealm-exit-listIndexOutOfBounds") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-listIndexOutOfBounds"))
            let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }
            _ = person.nicknames[5]
        }
        expectStop("Index 5 is out of bounds (must be less than 0).", result)
    }

    @Test("assigning a managed embedded object to another parent")
    func managedEmbeddedObject() async {
        removeInMemoryRealm("openrealm-exit-managedEmbeddedObject")
        defer { removeInMemoryRealm("openrealm-exit-managedEmbeddedObject") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-managedEmbeddedObject"))
            try realm.write {
                let a = realm.create(Person.self, value: ["id": 1, "address": ["street": "Main", "city": "Oslo"]])
                let b = realm.create(Person.self, value: ["id": 2])
                b.address = a.address
            }
        }
        expectStop("Can't set link to existing managed embedded object", result)
    }

    @Test("a primary key of the wrong type")
    func wrongPrimaryKeyType() async {
        removeInMemoryRealm("openrealm-exit-wrongPrimaryKeyType")
        defer { removeInMemoryRealm("openrealm-exit-wrongPrimaryKeyType") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-wrongPrimaryKeyType"))
            _ = realm.object(ofType: Person.self, forPrimaryKey: "one")
        }
        expectStop("Invalid value 'one' of type 'String' for 'int' property 'Person.id'.", result)
    }

    @Test("a write transaction on a read-only Realm")
    func readOnlyWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-exit-read-only.realm")
            _ = try Realm(fileURL: url)
            let realm = try Realm(configuration: .init(fileURL: url, readOnly: true))
            realm.beginWrite()
        }
        expectStop("Can't perform transactions on read-only Realms.", result)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-exit-read-only.realm").path
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + ".lock")
    }

    @Test("setting an unknown property by name")
    func unknownProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dog = Dog()
            dog["color"] = "brown"
        }
        expectStop("Invalid property name 'color' for class 'Dog'.", result)
    }
}

@Suite("More programmer errors")
struct MoreProgrammerErrorTests {
    @Test("creating a duplicate primary key with create(_:value:)")
    func createDuplicate() async {
        removeInMemoryRealm("openrealm-exit-createDuplicate")
        defer { removeInMemoryRealm("openrealm-exit-createDuplicate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-createDuplicate"))
            try realm.write {
                realm.create(StringKeyed.self, value: ["key": "a"])
                realm.create(StringKeyed.self, value: ["key": "a"])
            }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Attempting to create an object of type 'StringKeyed' with an existing primary key value 'a'."))
    }

    @Test("adding an object managed by another Realm")
    func otherRealm() async {
        removeInMemoryRealm("openrealm-exit-otherRealm-1")
        removeInMemoryRealm("openrealm-exit-otherRealm-2")
        defer {
            removeInMemoryRealm("openrealm-exit-otherRealm-1")
            removeInMemoryRealm("openrealm-exit-otherRealm-2")
        }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let a = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-otherRealm-1"))
            let b = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-otherRealm-2"))
            let dog = try a.write { a.create(Dog.self) }
            try b.write { b.add(dog) }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Object is already managed by another Realm. Use create instead to copy it into this Realm."))
    }

    @Test("a LinkingObjects property whose origin property does not exist")
    func badLinkingObjects() async {
        removeInMemoryRealm("openrealm-exit-badLinkingObjects")
        defer { removeInMemoryRealm("openrealm-exit-badLinkingObjects") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-badLinkingObjects"))
            _ = realm.objects(BadLinks.self).count
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains(
            "Property 'Person.nope' declared as origin of linking objects property 'BadLinks.owners' does not exist"))
    }

    @Test("a LinkingObjects property whose origin property is not a link, or links to another class")
    func linkingObjectsOriginOfOtherType() async {
        let notALink = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-originNotALink"))
            _ = realm.objects(BadLinksNotALink.self).count
        }
        expectStop("Property 'Person.age' declared as origin of linking objects property 'BadLinksNotALink.owners' is not a link",
                   notALink)
        let elsewhere = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-originElsewhere"))
            _ = realm.objects(BadLinksElsewhere.self).count
        }
        expectStop("Property 'Person.dog' declared as origin of linking objects property 'BadLinksElsewhere.owners' links to type 'Dog'",
                   elsewhere)
    }

    @Test("deleting an unmanaged object")
    func deleteUnmanaged() async {
        removeInMemoryRealm("openrealm-exit-deleteUnmanaged")
        defer { removeInMemoryRealm("openrealm-exit-deleteUnmanaged") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-deleteUnmanaged"))
            try realm.write { realm.delete(Dog()) }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("Can only delete an object from the Realm it belongs to."))
    }
}

/// Removes the files of an in-memory Realm that a stopped child process left behind: the engine
/// removes them when the last handle closes, and opening then closing one is such a close.
func removeInMemoryRealm(_ identifier: String) {
    _ = try? Realm(configuration: .init(inMemoryIdentifier: identifier))
}
