// FreezeTests.swift — frozen Realms, objects and collections (read one version forever, from any
// thread at once), thaw, ThreadSafeReference, and the thread-confinement and frozen-write checks.

import Dispatch
import Foundation
import Testing

import OpenRealm

/// A Realm in a file of its own (frozen readers on several threads, as apps use them).
private func withFileRealm<R>(_ body: (Realm.Configuration) throws -> R) throws -> R {
    try withDirectory { directory in
        try body(Realm.Configuration(fileURL: directory.appendingPathComponent("freeze.realm"), objectTypes: [Dog.self, Person.self, Address.self]))
    }
}

private func addDogs(_ realm: Realm, _ names: [String], age: Int = 1) throws {
    try realm.write {
        for name in names { realm.add(Dog(value: ["name": name, "age": age])) }
    }
}

@Suite("Frozen Realms, objects and collections")
struct FreezeTests {
    @Test("a frozen Realm reads its version after new commits; refresh does nothing")
    func frozenRealmKeepsItsVersion() throws {
        try withFileRealm { configuration in
            let realm = try Realm(configuration: configuration)
            try addDogs(realm, ["Rex", "Fido"])
            let frozen = realm.freeze()
            #expect(frozen.isFrozen)
            #expect(!realm.isFrozen)
            try addDogs(realm, ["Max"])
            try realm.write { realm.objects(Dog.self).first!.name = "Renamed" }
            #expect(realm.objects(Dog.self).count == 3)
            #expect(frozen.objects(Dog.self).count == 2)
            #expect(frozen.objects(Dog.self).first?.name == "Rex")
            #expect(frozen.refresh() == false)
            #expect(frozen.objects(Dog.self).count == 2)
            #expect(frozen.objects(Dog.self).filter("name == 'Max'").isEmpty)
            #expect(frozen.objects(Dog.self).isFrozen)
            // Another write on another thread: still the old version.
            try onOtherThread { try addDogs(try Realm(configuration: configuration), ["Other"]) }
            #expect(frozen.objects(Dog.self).count == 2)
            let thawed = frozen.thaw()
            #expect(!thawed.isFrozen)
            #expect(thawed == realm)
            #expect(thawed.objects(Dog.self).count == 3)   // the live Realm's version...
            #expect(thawed.refresh())
            #expect(thawed.objects(Dog.self).count == 4)   // ...which refreshes
        }
    }

    @Test("frozen objects and collections read the old values; thaw gives live data")
    func frozenObjectsAndCollections() throws {
        let realm = try memoryRealm()
        let person = try realm.write {
            realm.create(Person.self, value: ["id": 1, "name": "Ada", "dogs": [["name": "Rex"]], "nicknames": ["A"],
                                              "tags": ["x"], "scores": ["math": 3]])
        }
        let frozen = person.freeze()
        #expect(frozen.isFrozen && !person.isFrozen)
        #expect(frozen.freeze() === frozen)
        let frozenDogs = person.dogs.freeze()
        let frozenNicknames = person.nicknames.freeze()
        let frozenTags = person.tags.freeze()
        let frozenScores = person.scores.freeze()
        let frozenOwners = person.dogs[0].owners.freeze()
        let frozenResults = realm.objects(Person.self).filter("name BEGINSWITH 'A'").sorted(byKeyPath: "name").freeze()
        #expect(frozenDogs.isFrozen && frozenNicknames.isFrozen && frozenTags.isFrozen && frozenScores.isFrozen)
        #expect(frozenOwners.isFrozen && frozenResults.isFrozen)
        #expect(!person.dogs.isFrozen && !person.dogs[0].owners.isFrozen && !realm.objects(Person.self).isFrozen)
        try realm.write {
            person.name = "Grace"
            person.dogs.append(Dog(value: ["name": "Fido"]))
            person.nicknames.append("B")
            person.tags.insert("y")
            person.scores["art"] = 5
            realm.create(Person.self, value: ["id": 2, "name": "Alan"])
        }
        #expect(frozen.name == "Ada")
        #expect(frozen.dogs.count == 1 && frozen.dogs.isFrozen)
        #expect(frozen.realm?.isFrozen == true)
        #expect(frozenDogs.count == 1 && frozenDogs[0].name == "Rex" && frozenDogs[0].isFrozen)
        #expect(Array(frozenNicknames) == ["A"])
        #expect(frozenTags.count == 1 && frozenTags.contains("x"))
        #expect(frozenScores.count == 1 && frozenScores["math"] == 3)
        #expect(frozenOwners.count == 1 && frozenOwners[0].name == "Ada")
        #expect(frozenResults.count == 1 && frozenResults[0].name == "Ada")
        // Thawed: live, current values.
        let live = try #require(frozen.thaw())
        #expect(!live.isFrozen && live.name == "Grace")
        #expect(frozenDogs.thaw()?.count == 2)
        #expect(frozenNicknames.thaw().map(Array.init) == ["A", "B"])
        #expect(frozenTags.thaw()?.count == 2)
        #expect(frozenScores.thaw()?["art"] == 5)
        #expect(frozenResults.thaw().map { $0.map(\.name) } == ["Alan"])   // Ada is Grace now
        #expect(frozenOwners.thaw()?.first?.name == "Grace")
        #expect(person.thaw() === person)
        try realm.write { live.age = 40 }
        #expect(person.age == 40)
    }

    @Test("thaw of a deleted object is nil; a frozen object outlives its deletion")
    func thawDeleted() throws {
        let realm = try memoryRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
        let frozen = dog.freeze()
        let frozenDogs = realm.objects(Dog.self).freeze()
        try realm.write { realm.delete(dog) }
        #expect(dog.isInvalidated)
        #expect(!frozen.isInvalidated)
        #expect(frozen.name == "Rex" && frozen.age == 3)
        #expect(frozenDogs.count == 1)
        #expect(frozen.thaw() == nil)
        #expect(frozenDogs.thaw()?.count == 0)
    }

    @Test("freezing inside a write transaction freezes the version the write began on")
    func freezeInWrite() throws {
        let realm = try memoryRealm()
        try addDogs(realm, ["Rex"])
        try realm.write {
            realm.add(Dog(value: ["name": "New"]))
            let frozen = realm.freeze()
            #expect(frozen.objects(Dog.self).count == 1)
            let rex = realm.objects(Dog.self).first!.freeze()
            #expect(rex.name == "Rex")
        }
    }

    @Test("threads read frozen results at once while the live Realm writes")
    func concurrentFrozenReaders() throws {
        try withFileRealm { configuration in
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for index in 0..<200 {
                    realm.add(Person(value: ["id": index, "name": "P\(index)", "age": index % 50, "nicknames": ["n\(index)"]]))
                }
            }
            let frozenPeople = realm.objects(Person.self).freeze()
            let frozenAdults = realm.objects(Person.self).filter("age >= 18").sorted(byKeyPath: "age", ascending: false).freeze()
            let frozenFirst = realm.objects(Person.self).first!.freeze()
            let expectedAdults = frozenAdults.count
            let expectedAgeSum = frozenPeople.reduce(0) { $0 + $1.age }
            nonisolated(unsafe) let people = frozenPeople
            nonisolated(unsafe) let adults = frozenAdults
            nonisolated(unsafe) let first = frozenFirst
            nonisolated(unsafe) let frozenRealm = frozenFirst.realm!
            let failures = Counter()
            let writing = DispatchSemaphore(value: 0)
            let writer = Thread {
                let live = try! Realm(configuration: configuration)
                for round in 0..<20 {
                    try! live.write {
                        for person in live.objects(Person.self) { person.age += 1 }
                        live.add(Person(value: ["id": 1000 + round, "name": "New", "age": 30]))
                    }
                }
                writing.signal()
            }
            writer.start()
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                for _ in 0..<10 {
                    if people.count != 200 { failures.add() }
                    if adults.count != expectedAdults { failures.add() }
                    if people.reduce(0, { $0 + $1.age }) != expectedAgeSum { failures.add() }
                    if people[worker * 7].nicknames.first != "n\(worker * 7)" { failures.add() }
                    if adults.first.map({ $0.age }) != 49 { failures.add() }
                    if first.name != "P0" || first.age != 0 { failures.add() }
                    if frozenRealm.object(ofType: Person.self, forPrimaryKey: worker + 3)?.age != worker + 3 { failures.add() }
                    if frozenRealm.object(ofType: Person.self, forPrimaryKey: 1000 + worker) != nil { failures.add() }
                }
            }
            writing.wait()
            #expect(failures.value == 0)
            #expect(realm.refresh())
            #expect(realm.objects(Person.self).count == 220)
            #expect(people.count == 200)
        }
    }

    @Test("ThreadSafeReference passes an object and results to another thread, once")
    func threadSafeReferences() throws {
        try withFileRealm { configuration in
            let realm = try Realm(configuration: configuration)
            try addDogs(realm, ["Rex", "Fido", "Max"], age: 2)
            let rex = realm.objects(Dog.self).filter("name == 'Rex'").first!
            let dogReference = ThreadSafeReference(to: rex)
            let resultsReference = ThreadSafeReference(to: realm.objects(Dog.self).filter("age == 2").sorted(byKeyPath: "name"))
            #expect(!dogReference.isInvalidated)
            let (name, names) = try onOtherThread { () -> (String, [String]) in
                let other = try Realm(configuration: configuration)
                let dog = try #require(other.resolve(dogReference))
                let dogs = try #require(other.resolve(resultsReference))
                #expect(!dog.isFrozen && !dogs.isFrozen)
                let names = dogs.map(\.name)
                try other.write { dog.age = 5 }   // live in the other thread's Realm
                #expect(dogs.count == 2)          // live results
                return (dog.name, names)
            }
            #expect(name == "Rex")
            #expect(names == ["Fido", "Max", "Rex"])
            #expect(dogReference.isInvalidated && resultsReference.isInvalidated)
            realm.refresh()
            #expect(rex.age == 5)
        }
    }

    @Test("ThreadSafeReference to a list and to linking objects")
    func threadSafeReferencesToCollections() throws {
        try withFileRealm { configuration in
            let realm = try Realm(configuration: configuration)
            let person = try realm.write {
                realm.create(Person.self, value: ["id": 7, "name": "Ada", "nicknames": ["a", "b"], "dogs": [["name": "Rex"]]])
            }
            let listReference = ThreadSafeReference(to: person.nicknames)
            let ownersReference = ThreadSafeReference(to: person.dogs[0].owners)
            let (nicknames, owner) = try onOtherThread { () -> ([String], String?) in
                let other = try Realm(configuration: configuration)
                let list = try #require(other.resolve(listReference))
                try other.write { list.append("c") }
                return (Array(list), other.resolve(ownersReference)?.first?.name)
            }
            #expect(nicknames == ["a", "b", "c"])
            #expect(owner == "Ada")
        }
    }

    @Test("a reference resolves in a Realm that reads an older version by refreshing it")
    func resolveRefreshesOlderRealm() throws {
        try withFileRealm { configuration in
            let realm = try Realm(configuration: configuration)
            try addDogs(realm, ["Rex"])
            #expect(realm.objects(Dog.self).count == 1)   // pins the current version
            let reference = try onOtherThread { () -> ThreadSafeReference<Dog> in
                let other = try Realm(configuration: configuration)
                let dog = try other.write { other.create(Dog.self, value: ["name": "Late"]) }
                return ThreadSafeReference(to: dog)
            }
            let dog = try #require(realm.resolve(reference))
            #expect(dog.name == "Late")
            #expect(realm.objects(Dog.self).count == 2)
        }
    }

    @Test("a Realm not reading yet resolves at the reference's version (testPassThreadSafeReferenceToDeletedObject)")
    func resolveDeleted() throws {
        try withFileRealm { configuration in
            let realm = try Realm(configuration: configuration)
            try addDogs(realm, ["Rex"])
            let dog = realm.objects(Dog.self).first!
            let first = ThreadSafeReference(to: dog), second = ThreadSafeReference(to: dog)
            try realm.write { realm.delete(dog) }
            let (name, invalidatedAfterRefresh, secondIsNil) = try onOtherThread { () -> (String?, Bool, Bool) in
                let other = try Realm(configuration: configuration)
                let resolved = other.resolve(first)
                let name = resolved?.name
                other.refresh()
                return (name, resolved?.isInvalidated == true, other.resolve(second) == nil)
            }
            #expect(name == "Rex", "the new Realm reads the reference's version, where the dog exists")
            #expect(invalidatedAfterRefresh, "refresh() reaches the deletion")
            #expect(secondIsNil, "a Realm past the deletion resolves nil")
            #expect(first.isInvalidated && second.isInvalidated)
        }
    }

    @Test("@ThreadSafe of an object deleted through it on another thread reads nil (testThreadSafeWrapperDeleteObject)")
    func threadSafeWrapperDeletedElsewhere() throws {
        final class Holder: @unchecked Sendable {
            @ThreadSafe var dog: Dog?
        }
        try withFileRealm { configuration in
            let realm = try Realm(configuration: configuration)
            let holder = Holder()
            holder.dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            #expect(holder.dog?.name == "Rex")
            try onOtherThread {
                let other = try Realm(configuration: configuration)
                try other.write { other.delete(holder.dog!) }
            }
            // The reference the getter made inside the other thread's write resolves in a Realm
            // refreshed past that write.
            #expect(holder.dog == nil)
        }
    }

    @Test("Results resolved in a new Realm read the reference's version until refresh (testPassThreadSafeReferenceToResults)")
    func resolveResultsAtReferenceVersion() throws {
        try withFileRealm { configuration in
            let realm = try Realm(configuration: configuration)
            let named = realm.objects(Dog.self).filter("name != 'C'").sorted(byKeyPath: "name", ascending: false)
            let reference = ThreadSafeReference(to: named)
            try addDogs(realm, ["A", "B", "C", "D"])
            let (before, after) = try onOtherThread { () -> ([String], [String]) in
                let other = try Realm(configuration: configuration)
                let results = try #require(other.resolve(reference))
                let before = results.map(\.name) + ["all: \(other.objects(Dog.self).count)"]
                other.refresh()
                return (before, results.map(\.name) + ["all: \(other.objects(Dog.self).count)"])
            }
            #expect(before == ["all: 0"])
            #expect(after == ["D", "B", "A", "all: 4"])
        }
    }

    @Test("frozen objects and a frozen Realm are readable on another thread")
    func frozenOnOtherThread() throws {
        let realm = try memoryRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
        nonisolated(unsafe) let frozen = dog.freeze()
        nonisolated(unsafe) let frozenRealm = realm.freeze()
        let (name, count, frozenThere, thawedLive) = try onOtherThread { () -> (String, Int, Bool, Bool) in
            let thawed = frozen.thaw()
            return (frozen.name, frozenRealm.objects(Dog.self).count, frozen.isFrozen, thawed?.isFrozen == false)
        }
        #expect(name == "Rex" && count == 1 && frozenThere && thawedLive)
    }
}

/// A count that several threads add to.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}


@Suite("Frozen data and thread confinement: programmer errors")
struct FreezeErrorTests {
    @Test("writing to a frozen object")
    func writeFrozenObject() async {
        removeInMemoryRealm("openrealm-exit-writeFrozenObject")
        defer { removeInMemoryRealm("openrealm-exit-writeFrozenObject") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-writeFrozenObject"))
            let dog = try realm.write { realm.create(Dog.self) }
            let frozen = dog.freeze()
            try realm.write { frozen.name = "Rex" }
        }
        expectStop("Attempting to modify a frozen object - call thaw on the Object instance first.", result)
    }

    @Test("appending to a frozen list")
    func writeFrozenList() async {
        removeInMemoryRealm("openrealm-exit-writeFrozenList")
        defer { removeInMemoryRealm("openrealm-exit-writeFrozenList") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-writeFrozenList"))
            let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }
            let frozen = person.nicknames.freeze()
            try realm.write { frozen.append("x") }
        }
        expectStop("Attempting to modify a frozen object - call thaw on the Object instance first.", result)
    }

    @Test("write on a frozen Realm")
    func writeOnFrozenRealm() async {
        removeInMemoryRealm("openrealm-exit-writeOnFrozenRealm")
        defer { removeInMemoryRealm("openrealm-exit-writeOnFrozenRealm") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-writeOnFrozenRealm"))
            try realm.freeze().write {}
        }
        expectStop("Can't perform transactions on a frozen Realm", result)
    }

    @Test("beginWrite on a frozen Realm")
    func beginWriteOnFrozenRealm() async {
        removeInMemoryRealm("openrealm-exit-beginWriteOnFrozenRealm")
        defer { removeInMemoryRealm("openrealm-exit-beginWriteOnFrozenRealm") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-beginWriteOnFrozenRealm"))
            realm.freeze().beginWrite()
        }
        expectStop("Can't perform transactions on a frozen Realm", result)
    }

    @Test("resolving a reference twice")
    func resolveTwice() async {
        removeInMemoryRealm("openrealm-exit-resolveTwice")
        defer { removeInMemoryRealm("openrealm-exit-resolveTwice") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-resolveTwice"))
            let dog = try realm.write { realm.create(Dog.self) }
            let reference = ThreadSafeReference(to: dog)
            _ = realm.resolve(reference)
            _ = realm.resolve(reference)
        }
        expectStop("Can only resolve a thread safe reference once.", result)
    }

    @Test("a reference to a deleted object")
    func referenceToDeleted() async {
        removeInMemoryRealm("openrealm-exit-referenceToDeleted")
        defer { removeInMemoryRealm("openrealm-exit-referenceToDeleted") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-referenceToDeleted"))
            let dog = try realm.write { realm.create(Dog.self) }
            try realm.write { realm.delete(dog) }
            _ = ThreadSafeReference(to: dog)
        }
        expectStop("Cannot construct reference to invalidated object", result)
    }

    @Test("@ThreadSafe set to a deleted object")
    func threadSafeWrapperOfDeleted() async {
        removeInMemoryRealm("openrealm-exit-threadSafeWrapperOfDeleted")
        defer { removeInMemoryRealm("openrealm-exit-threadSafeWrapperOfDeleted") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-threadSafeWrapperOfDeleted"))
            let dog = try realm.write { realm.create(Dog.self) }
            try realm.write { realm.delete(dog) }
            @ThreadSafe var held: Dog? = nil
            held = dog
        }
        expectStop("Cannot construct reference to invalidated object", result)
    }

    @Test("a reference to an unmanaged object")
    func referenceToUnmanaged() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ThreadSafeReference(to: Dog())
        }
        expectStop("Cannot construct reference to unmanaged object, which can be passed across threads directly", result)
    }

    @Test("freezing an unmanaged object")
    func freezeUnmanaged() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog().freeze()
        }
        expectStop("Unmanaged objects cannot be frozen.", result)
    }

    @Test("a live object read on another thread")
    func liveObjectOnOtherThread() async {
        removeInMemoryRealm("openrealm-exit-liveObjectOnOtherThread")
        defer { removeInMemoryRealm("openrealm-exit-liveObjectOnOtherThread") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-liveObjectOnOtherThread"))
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
            nonisolated(unsafe) let shared = dog
            _ = try onOtherThread { shared.name }
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }

    @Test("a live list read on another thread")
    func liveListOnOtherThread() async {
        removeInMemoryRealm("openrealm-exit-liveListOnOtherThread")
        defer { removeInMemoryRealm("openrealm-exit-liveListOnOtherThread") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-liveListOnOtherThread"))
            let person = try realm.write { realm.create(Person.self, value: ["id": 1, "nicknames": ["a"]]) }
            nonisolated(unsafe) let list = person.nicknames
            _ = try onOtherThread { list.count }
        }
        expectStop("Realm accessed from incorrect thread.", result)
    }
}
