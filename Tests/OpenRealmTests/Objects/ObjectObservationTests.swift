// ObjectObservationTests.swift — `observe` on an object: changed properties with old and new
// values, deletion, key-path filtering (own properties, through a link, Swift key paths), token
// invalidation, and Realm's errors (exit tests).

import Dispatch
import Foundation
import Testing

import OpenRealm

/// What an object observer was told, comparable: property names with old and new values as text.
private enum ObjectSeen: Equatable {
    case change([String])
    case deleted
    case error
}

private func describe(_ value: Any?) -> String {
    switch value {
    case nil: "nil"
    case let dog as Dog: "Dog(\(dog.isInvalidated ? "deleted" : dog.name))"
    case let value?: "\(value)"
    }
}

private func objectSeen<T>(_ change: ObjectChange<T>) -> ObjectSeen {
    switch change {
    case .change(_, let properties): .change(properties.map { "\($0.name): \(describe($0.oldValue)) -> \(describe($0.newValue))" })
    case .deleted: .deleted
    case .error: .error
    }
}

@Suite("Observing objects")
struct ObjectObservationTests {
    @Test("property changes with new values (no old ones for its own commits), then deletion; no initial notification")
    func changesAndDeletion() throws {
        let realm = try memoryRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
        let changes = Changes<ObjectSeen>()
        let token = dog.observe { (change: ObjectChange<Dog>) in changes.append(objectSeen(change)) }
        defer { token.invalidate() }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { dog.age = 4 }
        realm.refresh()
        #expect(changes.take() == [.change(["age: nil -> 4"])])    // its own commit: no old value, as Realm
        try realm.write {
            dog.name = "Max"
            dog.age = 5
        }
        realm.refresh()
        #expect(changes.take() == [.change(["name: nil -> Max", "age: nil -> 5"])])
        try realm.write { realm.create(Dog.self, value: ["name": "Other"]) }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { realm.delete(dog) }
        realm.refresh()
        #expect(changes.take() == [.deleted])
    }

    @Test("links and lists: a link's object as value, a list's nil")
    func linkAndListValues() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "dog": ["name": "Rex"]]) }
        let changes = Changes<ObjectSeen>()
        let token = person.observe(keyPaths: ["dog", "nicknames"]) { (change: ObjectChange<Person>) in changes.append(objectSeen(change)) }
        defer { token.invalidate() }
        try realm.write { person.dog = realm.create(Dog.self, value: ["name": "Max"]) }
        realm.refresh()
        #expect(changes.take() == [.change(["dog: nil -> Dog(Max)"])])
        try realm.write { person.nicknames.append("A") }
        realm.refresh()
        #expect(changes.take() == [.change(["nicknames: nil -> nil"])])
        // The dog itself changed: not in these key paths ("dog" is the link, not its object).
        try realm.write { person.dog!.age = 9 }
        realm.refresh()
        #expect(changes.take().isEmpty)
    }

    @Test("key paths: only the properties named count")
    func keyPaths() throws {
        let realm = try memoryRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
        let byName = Changes<ObjectSeen>()
        let byAge = Changes<ObjectSeen>()
        let nameToken = dog.observe(keyPaths: ["name"]) { (change: ObjectChange<Dog>) in byName.append(objectSeen(change)) }
        let ageToken = dog.observe(keyPaths: [\Dog.age]) { change in byAge.append(objectSeen(change)) }
        defer { nameToken.invalidate(); ageToken.invalidate() }
        try realm.write { dog.age = 4 }
        realm.refresh()
        #expect(byName.take().isEmpty)
        #expect(byAge.take() == [.change(["age: nil -> 4"])])
        try realm.write { dog.name = "Max" }
        realm.refresh()
        #expect(byName.take() == [.change(["name: nil -> Max"])])
        #expect(byAge.take().isEmpty)
    }

    @Test("through a link: a dog's name notifies the person's 'dogs.name' observer as 'dogs'; nothing by default")
    func throughLink() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "dogs": [["name": "Rex", "age": 1]]]) }
        let byString = Changes<ObjectSeen>()
        let byKeyPath = Changes<ObjectSeen>()
        let all = Changes<ObjectSeen>()
        let stringToken = person.observe(keyPaths: ["dogs.name"]) { (change: ObjectChange<Person>) in byString.append(objectSeen(change)) }
        let keyPathToken = person.observe(keyPaths: [\Person.dogs[0].name]) { change in byKeyPath.append(objectSeen(change)) }
        let allToken = person.observe { (change: ObjectChange<Person>) in all.append(objectSeen(change)) }
        defer { stringToken.invalidate(); keyPathToken.invalidate(); allToken.invalidate() }
        try realm.write { person.dogs[0].age = 2 }
        realm.refresh()
        #expect(byString.take().isEmpty)
        #expect(byKeyPath.take().isEmpty)
        #expect(all.take().isEmpty)    // by default, the person's own properties only (Realm's documented default)
        try realm.write { person.dogs[0].name = "Max" }
        realm.refresh()
        #expect(byString.take() == [.change(["dogs: nil -> nil"])])
        #expect(byKeyPath.take() == [.change(["dogs: nil -> nil"])])
        #expect(all.take().isEmpty)
        try realm.write { person.age = 50 }
        realm.refresh()
        #expect(byString.take().isEmpty)
        #expect(all.take() == [.change(["age: nil -> 50"])])
    }

    @Test("an embedded object, and LinkingObjects named in the key paths")
    func embeddedAndLinkingObjects() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "address": ["city": "Paris"]]) }
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        let cities = Changes<ObjectSeen>()
        let owners = Changes<ObjectSeen>()
        let cityToken = person.address!.observe(keyPaths: [\Address.city]) { change in cities.append(objectSeen(change)) }
        let ownersToken = dog.observe(keyPaths: ["owners"]) { (change: ObjectChange<Dog>) in owners.append(objectSeen(change)) }
        defer { cityToken.invalidate(); ownersToken.invalidate() }
        try realm.write { person.address!.city = "Lyon" }
        realm.refresh()
        #expect(cities.take() == [.change(["city: nil -> Lyon"])])
        try realm.write { person.dogs.append(dog) }
        realm.refresh()
        #expect(owners.take() == [.change(["owners: nil -> nil"])])
        try realm.write { dog.age = 4 }
        realm.refresh()
        #expect(owners.take().isEmpty)
    }

    @Test("a change committed on another thread arrives with its old value (a link's: the object)")
    func otherThread() throws {
        try withDirectory { directory in
            let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("object.realm"), objectTypes: [Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: configuration)
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
            let changes = Changes<ObjectSeen>()
            let token = dog.observe { (change: ObjectChange<Dog>) in changes.append(objectSeen(change)) }
            defer { token.invalidate() }
            try onOtherThread {
                let other = try Realm(configuration: configuration)
                try other.write { other.objects(Dog.self).first!.age = 4 }
            }
            realm.refresh()
            #expect(changes.take() == [.change(["age: 3 -> 4"])])
            let person = try realm.write { realm.create(Person.self, value: ["id": 1, "dog": dog]) }
            let links = Changes<ObjectSeen>()
            let linkToken = person.observe(keyPaths: ["dog"]) { (change: ObjectChange<Person>) in links.append(objectSeen(change)) }
            defer { linkToken.invalidate() }
            try onOtherThread {
                let other = try Realm(configuration: configuration)
                try other.write { other.objects(Person.self).first!.dog = other.create(Dog.self, value: ["name": "Max"]) }
            }
            realm.refresh()
            #expect(links.take() == [.change(["dog: Dog(Rex) -> Dog(Max)"])])
        }
    }

    @Test("an invalidated token is told nothing")
    func invalidation() throws {
        let realm = try memoryRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        let changes = Changes<ObjectSeen>()
        let token = dog.observe { (change: ObjectChange<Dog>) in changes.append(objectSeen(change)) }
        token.invalidate()
        try realm.write { dog.age = 4 }
        realm.refresh()
        #expect(changes.take().isEmpty)
    }

    @Test("on queue: changes arrive on the queue")
    func onQueue() throws {
        try withDirectory { directory in
            let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("queue.realm"), objectTypes: [Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: configuration)
            let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
            let queue = DispatchQueue(label: "observe-object")
            let changes = Changes<ObjectSeen>()
            let delivered = DispatchSemaphore(value: 0)
            let token = dog.observe(on: queue) { (change: ObjectChange<Dog>) in
                dispatchPrecondition(condition: .onQueue(queue))
                changes.append(objectSeen(change))
                delivered.signal()
            }
            defer { token.invalidate() }
            // Registered once the queue ran: a block after it runs after the registration.
            queue.sync {}
            try realm.write { dog.age = 4 }
            #expect(delivered.wait(timeout: .now() + 10) == .success)
            #expect(changes.take() == [.change(["age: 3 -> 4"])])
        }
    }
}

@Suite("Observation errors stop with Realm's message")
struct ObservationErrorTests {
    @Test("observing an unmanaged object")
    func unmanagedObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Dog().observe { (_: ObjectChange<Dog>) in }
        }
        expectStop("Only objects which are managed by a Realm support change notifications", result)
    }

    @Test("observing an unmanaged list")
    func unmanagedList() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Int>().observe { _ in }
        }
        expectStop("This method may only be called on RLMArray instances retrieved from an RLMRealm", result)
    }

    @Test("registering inside a write transaction")
    func insideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-observeInWrite-\(UUID().uuidString)"))
            realm.beginWrite()
            _ = realm.objects(Dog.self).observe { _ in }
        }
        expectStop("Cannot register notification blocks from within write transactions.", result)
    }

    @Test("observing a frozen collection")
    func frozen() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-observeFrozen-\(UUID().uuidString)"))
            _ = realm.objects(Dog.self).freeze().observe { _ in }
        }
        expectStop("Frozen Realms do not change and do not have change notifications.", result)
    }

    @Test("observing a read-only Realm, on a queue too")
    func readOnly() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-exit-readonly-\(UUID().uuidString).realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [Dog.self, Person.self, Address.self]))
                try realm.write { realm.create(Dog.self) }
            }
            let readOnly = try Realm(configuration: .init(fileURL: url, readOnly: true, objectTypes: [Dog.self, Person.self, Address.self]))
            _ = readOnly.objects(Dog.self).observe(on: DispatchQueue(label: "read-only")) { _ in }
        }
        expectStop("Read-only Realms do not change and do not have change notifications.", result)
    }

    @Test("an unknown key path")
    func unknownKeyPath() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-observeKeyPath-\(UUID().uuidString)"))
            let dog = try realm.write { realm.create(Dog.self) }
            _ = dog.observe(keyPaths: ["nope"]) { (_: ObjectChange<Dog>) in }
        }
        expectStop("nope", result)
    }

    @Test("observing a deleted object")
    func deletedObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-observeDeleted-\(UUID().uuidString)"))
            let dog = try realm.write { realm.create(Dog.self) }
            try realm.write { realm.delete(dog) }
            _ = dog.observe { (_: ObjectChange<Dog>) in }
        }
        expectStop("Object has been deleted or invalidated.", result)
    }
}
