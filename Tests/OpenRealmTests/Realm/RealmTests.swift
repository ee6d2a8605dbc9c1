// RealmTests.swift — the Realm Swift API: opening, writing, reading, deleting, objects and
// their properties. In-memory Realms (a new identifier per test) keep the tests fast.

import Foundation
import Testing

import OpenRealm

/// A new in-memory Realm of its own.
func memoryRealm(_ types: [ObjectBase.Type]? = nil, version: UInt64 = 0) throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "test-\(UUID().uuidString)", schemaVersion: version, objectTypes: types))
}

/// A result handed from one thread to another (written before a semaphore is signalled).
final class ResultBox<R>: @unchecked Sendable {
    var result: Result<R, any Error>?
}

/// Runs `body` on a new thread and waits for it (DispatchQueue.sync may run on the caller's).
func onOtherThread<R: Sendable>(_ body: @escaping @Sendable () throws -> R) throws -> R {
    let box = ResultBox<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.result = Result { try body() }
        done.signal()
    }
    thread.start()
    done.wait()
    return try box.result!.get()
}

/// Waits (at most 10 s) until no open file of any process holds the Realm file's lock file,
/// after this process closed it. Why a test must: other tests start child processes (exit
/// tests), and a child holds a copy of this process's open files from its start until it runs
/// its program; the engine's file locks belong to open files, so for that moment a file this
/// process just closed is still open in another process, and deleteFiles refuses it and
/// shouldCompactOnLaunch skips it, as they must. Probed with an exclusive record lock on byte 0,
/// which every open handle holds shared.
func waitUntilClosedEverywhere(_ url: URL) {
    let lockPath = url.path + ".lock"
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        let fd = open(lockPath, O_RDWR | O_CLOEXEC)
        if fd < 0 { return } // no lock file: nothing holds the file
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 1
        let free = fcntl(fd, F_SETLK, &lock) == 0
        if free {
            lock.l_type = Int16(F_UNLCK)
            _ = fcntl(fd, F_SETLK, &lock)
        }
        close(fd)
        if free { return }
        usleep(20_000)
    }
}

/// Runs `body` with a new empty directory, removed afterwards.
func withDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("openrealm-swift-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

@Suite("Realm: opening and configuration")
struct OpeningTests {
    @Test("inMemoryIdentifier and fileURL clear each other")
    func identifierClearsFileURL() {
        var config = Realm.Configuration()
        #expect(config.fileURL?.lastPathComponent == "default.realm")
        #expect(config.fileURL?.deletingLastPathComponent().path == FileManager.default.currentDirectoryPath)
        config.inMemoryIdentifier = "cache"
        #expect(config.fileURL == nil)
        #expect(config.inMemoryIdentifier == "cache")
        config.fileURL = URL(fileURLWithPath: "/tmp/x.realm")
        #expect(config.inMemoryIdentifier == nil)
        #expect(config.fileURL?.path == "/tmp/x.realm")
    }

    @Test("the default configuration can be replaced, and Realm() opens it")
    func defaultConfiguration() throws {
        let identifier = "default-\(UUID().uuidString)"
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        Realm.Configuration.defaultConfiguration = .init(inMemoryIdentifier: identifier)
        let realm = try Realm()
        #expect(realm.configuration.inMemoryIdentifier == identifier)
        #expect(realm.isEmpty)
    }

    @Test("the same configuration on the same thread gives the same instance")
    func cachedPerThread() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "cache-\(UUID().uuidString)")
        let a = try Realm(configuration: config)
        let b = try Realm(configuration: config)
        #expect(a == b)
        let other = try memoryRealm()
        #expect(a != other)
    }

    @Test("in-memory Realms with the same identifier share their data")
    func inMemorySharing() throws {
        let identifier = "shared-\(UUID().uuidString)"
        let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier))
        try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
        let thread = try onOtherThread {
            try Realm(configuration: .init(inMemoryIdentifier: identifier)).objects(Dog.self).count
        }
        #expect(thread == 1)
    }

    @Test("a file Realm keeps its objects across reopening; init(fileURL:)")
    func fileRealm() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("app.realm")
            try autoreleasepoolish {
                let realm = try Realm(fileURL: url)
                try realm.write { realm.add(Person(value: ["id": 1, "name": "Ada"])) }
            }
            #expect(FileManager.default.fileExists(atPath: url.path))
            let reopened = try Realm(configuration: .init(fileURL: url, readOnly: true))
            #expect(reopened.object(ofType: Person.self, forPrimaryKey: 1)?.name == "Ada")
        }
    }

    @Test("opening a missing file read-only throws fileNotFound")
    func readOnlyMissing() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("missing.realm")
            #expect {
                _ = try Realm(configuration: .init(fileURL: url, readOnly: true))
            } throws: { error in
                guard let error = error as? Realm.Error else { return false }
                return error.code == .fileNotFound && error.localizedDescription.contains("missing.realm")
            }
            do {
                _ = try Realm(configuration: .init(fileURL: url, readOnly: true))
                Issue.record("expected an error")
            } catch Realm.Error.fileNotFound {
                // Realm's pattern match on the code works.
            }
        }
    }

    @Test("a file that is not a database throws invalidDatabase")
    func invalidDatabase() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("junk.realm")
            try Data(repeating: 0x41, count: 100_000).write(to: url)
            #expect(throws: Realm.Error.self) { _ = try Realm(fileURL: url) }
            do {
                _ = try Realm(fileURL: url)
            } catch let error as Realm.Error {
                #expect(error.code == .invalidDatabase)
            }
        }
    }

    @Test("a directory that cannot be written throws filePermissionDenied or fileAccess")
    func permissionDenied() throws {
        guard getuid() != 0 else { return }  // root may write anywhere
        try withDirectory { directory in
            try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path) }
            #expect { _ = try Realm(fileURL: directory.appendingPathComponent("x.realm")) } throws: { error in
                (error as? Realm.Error)?.code == .filePermissionDenied
            }
        }
    }

    @Test("Realm.Error codes have Realm's numeric values")
    func errorCodes() {
        #expect(Realm.Error.Code.fail.rawValue == 1)
        #expect(Realm.Error.Code.fileNotFound.rawValue == 5)
        #expect(Realm.Error.Code.schemaMismatch.rawValue == 10)
        #expect(Realm.Error.Code.invalidDatabase.rawValue == 20)
        #expect(Realm.Error.fileExists == .fileExists)
    }

    @Test("maximumNumberOfActiveVersions is passed to the engine")
    func maximumVersions() throws {
        var config = Realm.Configuration(inMemoryIdentifier: "versions-\(UUID().uuidString)")
        config.maximumNumberOfActiveVersions = 4
        let realm = try Realm(configuration: config)
        #expect(realm.configuration.maximumNumberOfActiveVersions == 4)
        try realm.write {}
    }
}

/// Runs `body`; the Realms it opened are released when it returns (Swift has no autoreleasepool
/// on Linux, but a scope is enough).
func autoreleasepoolish(_ body: () throws -> Void) rethrows { try body() }

@Suite("Realm: transactions")
struct TransactionTests {
    @Test("write commits and returns the block's value")
    func writeReturnsValue() throws {
        let realm = try memoryRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
        #expect(dog.name == "Rex")
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test("a throwing write block cancels the transaction and rethrows")
    func throwingWriteCancels() throws {
        struct Stop: Error {}
        let realm = try memoryRealm()
        let dog = Dog(value: ["name": "Rex"])
        #expect(throws: Stop.self) {
            try realm.write {
                realm.add(dog)
                throw Stop()
            }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).isEmpty)
        #expect(dog.isInvalidated)
    }

    @Test("beginWrite, commitWrite, cancelWrite, isInWriteTransaction")
    func explicitTransactions() throws {
        let realm = try memoryRealm()
        realm.beginWrite()
        #expect(realm.isInWriteTransaction)
        realm.add(Dog(value: ["name": "A"]))
        try realm.commitWrite()
        #expect(!realm.isInWriteTransaction)
        realm.beginWrite()
        realm.add(Dog(value: ["name": "B"]))
        realm.cancelWrite()
        #expect(realm.objects(Dog.self).map(\.name) == ["A"])
    }

    @Test("refresh shows the writes of another thread")
    func refreshSeesOtherThreads() throws {
        let identifier = "refresh-\(UUID().uuidString)"
        let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier))
        try realm.write { realm.add(Dog(value: ["name": "A"])) }
        #expect(realm.objects(Dog.self).count == 1)
        try onOtherThread {
            let other = try Realm(configuration: .init(inMemoryIdentifier: identifier))
            try other.write { other.add(Dog(value: ["name": "B"])) }
        }
        #expect(realm.objects(Dog.self).count == 1)  // still the pinned version
        #expect(realm.refresh())
        #expect(realm.objects(Dog.self).count == 2)
        #expect(!realm.refresh())
    }

    @Test("threads write to one Realm concurrently; every write lands")
    func concurrentWriters() throws {
        let identifier = "writers-\(UUID().uuidString)"
        let keep = try Realm(configuration: .init(inMemoryIdentifier: identifier))  // keeps the data alive
        let group = DispatchGroup()
        let failures = ResultBox<Int>()
        failures.result = .success(0)
        let lock = NSLock()
        for thread in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier))
                    for i in 0..<50 {
                        try realm.write { realm.add(Dog(value: ["name": "t\(thread)-\(i)", "age": i])) }
                    }
                } catch {
                    lock.lock()
                    failures.result = .success(((try? failures.result?.get()) ?? 0) + 1)
                    lock.unlock()
                }
            }.start()
        }
        group.wait()
        #expect(try failures.result?.get() == 0)
        keep.refresh()
        #expect(keep.objects(Dog.self).count == 200)
    }

    @Test("invalidate invalidates objects; the Realm reads the latest version afterwards")
    func invalidate() throws {
        let realm = try memoryRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        realm.invalidate()
        #expect(dog.isInvalidated)
        #expect(realm.objects(Dog.self).first?.name == "Rex")
    }
}

@Suite("Realm: adding, creating, reading, deleting")
struct ObjectTests {
    @Test("add makes an object managed; its properties then read and write the Realm")
    func addAndRead() throws {
        let realm = try memoryRealm()
        let person = Person()
        person.id = 1
        person.name = "Ada"
        #expect(person.realm == nil)
        #expect(person.age == 18)
        try realm.write { realm.add(person) }
        #expect(person.realm == realm)
        #expect(person.name == "Ada")
        try realm.write { person.age = 36 }
        let found = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(found.age == 36)
        #expect(found.isSameObject(as: person))
        #expect(found == person)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 2) == nil)
    }

    @Test("every scalar type and its optional round-trips")
    func allTypes() throws {
        let realm = try memoryRealm()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let id = ObjectId.generate()
        let uuid = UUID()
        let object = AllTypes()
        object.int = -5
        object.int8 = -8
        object.int16 = 16
        object.int32 = 32
        object.int64 = 1 << 40
        object.bool = true
        object.float = 1.5
        object.double = 2.25
        object.string = "héllo"
        object.data = Data([1, 2, 3])
        object.date = date
        object.decimal = "123.45"
        object.objectId = id
        object.uuid = uuid
        object.optString = "x"
        object.optMood = .grumpy
        try realm.write { realm.add(object) }
        let read = try #require(realm.objects(AllTypes.self).first)
        #expect(read.int == -5)
        #expect(read.int8 == -8)
        #expect(read.int16 == 16)
        #expect(read.int32 == 32)
        #expect(read.int64 == 1 << 40)
        #expect(read.bool)
        #expect(read.float == 1.5)
        #expect(read.double == 2.25)
        #expect(read.string == "héllo")
        #expect(read.data == Data([1, 2, 3]))
        #expect(abs(read.date.timeIntervalSince(date)) < 1e-6)
        #expect(read.decimal == Decimal128(stringLiteral: "123.45"))
        #expect(read.objectId == id)
        #expect(read.uuid == uuid)
        #expect(read.optInt == nil)
        #expect(read.optString == "x")
        #expect(read.optMood == .grumpy)
        try realm.write {
            read.optInt = 7
            read.optDouble = 0.5
            read.optDate = date
            read.optUUID = uuid
            read.optObjectId = id
            read.optDecimal = 1
            read.optData = Data([9])
            read.optBool = false
            read.optFloat = 3
            read.optString = nil
        }
        #expect(read.optInt == 7)
        #expect(read.optDouble == 0.5)
        #expect(read.optUUID == uuid)
        #expect(read.optObjectId == id)
        #expect(read.optDecimal == 1)
        #expect(read.optData == Data([9]))
        #expect(read.optBool == false)
        #expect(read.optFloat == 3)
        #expect(read.optString == nil)
    }

    @Test("superclass properties are persisted")
    func inheritance() throws {
        let realm = try memoryRealm()
        let cat = Cat()
        cat.species = "felis"
        try realm.write { realm.add(cat) }
        let read = try #require(realm.objects(Cat.self).first)
        #expect(read.species == "felis")
        #expect(read.lives == 9)
        #expect(read.objectSchema.properties.map(\.name) == ["species", "lives"])
    }

    @Test("add links: linked unmanaged objects are added too, cycles included")
    func addLinkedObjects() throws {
        let realm = try memoryRealm()
        let a = Node(value: ["id": "a"])
        let b = Node(value: ["id": "b"])
        a.next = b
        b.next = a
        a.children.append(b)
        try realm.write { realm.add(a) }
        #expect(b.realm == realm)
        #expect(realm.objects(Node.self).count == 2)
        let readA = try #require(realm.object(ofType: Node.self, forPrimaryKey: "a"))
        #expect(readA.next?.id == "b")
        #expect(readA.next?.next?.id == "a")
        #expect(readA.children.first?.id == "b")
    }

    @Test("add(update:) with .modified and .all updates the existing object")
    func addUpdate() throws {
        let realm = try memoryRealm()
        try realm.write { realm.add(Person(value: ["id": 1, "name": "Ada", "age": 36])) }
        let update = Person(value: ["id": 1, "name": "Ada Lovelace", "age": 37])
        try realm.write { realm.add(update, update: .modified) }
        #expect(realm.objects(Person.self).count == 1)
        #expect(update.realm == realm)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.name == "Ada Lovelace")
        try realm.write { realm.add(Person(value: ["id": 1, "name": "A"]), update: .all) }
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.age == 18)
    }

    @Test("create(_:value:update:) from a dictionary, an array and with a partial update")
    func create() throws {
        let realm = try memoryRealm()
        try realm.write {
            realm.create(Dog.self, value: ["name": "Rex", "age": 3])
            realm.create(Dog.self, value: ["Fido", 5])
            realm.create(Person.self, value: ["id": 1, "name": "Ada", "age": 36])
            realm.create(Person.self, value: ["id": 1, "age": 40], update: .modified)
        }
        #expect(realm.objects(Dog.self).map(\.name) == ["Rex", "Fido"])
        let ada = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(ada.name == "Ada")
        #expect(ada.age == 40)
    }

    @Test("init(value:) builds linked objects and lists from nested values")
    func initValue() throws {
        let person = Person(value: ["id": 7, "name": "Ada", "dog": ["name": "Rex"], "dogs": [["name": "A"], ["name": "B"]],
                                    "nicknames": ["x", "y"], "scores": ["math": 90]])
        #expect(person.dog?.name == "Rex")
        #expect(person.dogs.map(\.name) == ["A", "B"])
        #expect(person.nicknames.count == 2)
        #expect(person.scores["math"] == 90)
        let copy = Person(value: person)
        #expect(copy.name == "Ada")
        let realm = try memoryRealm()
        try realm.write { realm.add(person) }
        #expect(realm.objects(Dog.self).count == 3)
        #expect(person.dogs[1].name == "B")
        #expect(person.scores["math"] == 90)
    }

    @Test("delete removes objects; they are invalidated; links to them become nil")
    func delete() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1, "dog": ["name": "Rex"]])
        try realm.write { realm.add(person) }
        let dog = try #require(person.dog)
        try realm.write { realm.delete(dog) }
        #expect(dog.isInvalidated)
        #expect(person.dog == nil)
        #expect(!person.isInvalidated)
        try realm.write { realm.delete(realm.objects(Person.self)) }
        #expect(person.isInvalidated)
        #expect(realm.objects(Person.self).isEmpty)
    }

    @Test("deleteAll and isEmpty")
    func deleteAll() throws {
        let realm = try memoryRealm()
        #expect(realm.isEmpty)
        try realm.write {
            realm.add([Dog(), Dog()])
            realm.add(Person(value: ["id": 1, "address": ["street": "Main", "city": "Oslo"]]))
        }
        #expect(!realm.isEmpty)
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
        #expect(realm.objects(Dog.self).count == 0)
    }

    @Test("Results: count, subscript, first, last, index(of:), iteration")
    func results() throws {
        let realm = try memoryRealm()
        try realm.write {
            for i in 0..<5 { realm.add(Dog(value: ["name": "d\(i)", "age": i])) }
        }
        let dogs = realm.objects(Dog.self)
        #expect(dogs.count == 5)
        #expect(dogs[2].name == "d2")
        #expect(dogs.first?.name == "d0")
        #expect(dogs.last?.name == "d4")
        #expect(dogs.index(of: dogs[3]) == 3)
        #expect(dogs.map(\.age).reduce(0, +) == 10)
        #expect(dogs.realm == realm)
        try realm.write { realm.add(Dog()) }
        #expect(dogs.count == 6)  // live
        #expect(realm.objects(Cat.self).isEmpty)
    }

    @Test("deleting objects while iterating over Results visits every one")
    func deleteWhileIterating() throws {
        let realm = try memoryRealm()
        try realm.write { for i in 0..<10 { realm.add(Dog(value: ["age": i])) } }
        var visited = 0
        try realm.write {
            for dog in realm.objects(Dog.self) {
                visited += 1
                realm.delete(dog)
            }
        }
        #expect(visited == 10)
        #expect(realm.objects(Dog.self).isEmpty)
    }

    @Test("embedded objects: assigned through a property or a list, deleted with the parent")
    func embedded() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1])
        person.address = Address(value: ["street": "Main", "city": "Oslo"])
        person.addresses.append(Address(value: ["street": "A", "city": "B"]))
        try realm.write { realm.add(person) }
        #expect(person.address?.city == "Oslo")
        #expect(person.addresses.first?.street == "A")
        try realm.write { person.address = Address(value: ["street": "Side", "city": "Bergen"]) }
        #expect(person.address?.city == "Bergen")
        let address = try #require(person.address)
        try realm.write { person.address = nil }
        #expect(address.isInvalidated)
    }

    @Test("AnyRealmValue holds values of any type, objects and nested collections")
    func mixed() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1])
        try realm.write { realm.add(person) }
        #expect(person.anything == .none)
        try realm.write { person.anything = .int(5) }
        #expect(person.anything.intValue == 5)
        try realm.write { person.anything = .string("five") }
        #expect(person.anything == .string("five"))
        let dog = Dog(value: ["name": "Rex"])
        try realm.write { person.anything = .object(dog) }
        #expect(person.anything.object(Dog.self)?.name == "Rex")
        let list = List<AnyRealmValue>()
        list.append(.int(1))
        list.append(.string("two"))
        try realm.write { person.anything = .list(list) }
        #expect(person.anything.listValue?.count == 2)
        #expect(person.anything.listValue?[1] == .string("two"))
    }

    @Test("PersistableEnum: the first case by default, stored by raw value")
    func persistableEnum() throws {
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1])
        #expect(person.mood == .happy)
        try realm.write { realm.add(person) }
        try realm.write { person.mood = .grumpy }
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.mood == .grumpy)
    }

    @Test("subscript(key:) reads and writes by name")
    func keySubscript() throws {
        let realm = try memoryRealm()
        let person = Person()
        person["name"] = "Ada"
        #expect(person["name"] as? String == "Ada")
        #expect(person["height"] == nil)
        try realm.write { realm.add(person) }
        try realm.write { person["age"] = 50 }
        #expect(person.age == 50)
        #expect(person["age"] as? Int == 50)
        try realm.write { person.setValue("Bea", forKey: "name") }
        #expect(person.value(forKey: "name") as? String == "Bea")
    }

    @Test("objectSchema, Property and schema describe the models as Realm does")
    func schema() throws {
        let schema = Person().objectSchema
        #expect(schema.className == "Person")
        #expect(schema.primaryKeyProperty?.name == "id")
        #expect(schema["name"]?.isIndexed == true)
        #expect(schema["height"]?.isOptional == true)
        #expect(schema["height"]?.type == .double)
        #expect(schema["dogs"]?.isArray == true)
        #expect(schema["dogs"]?.objectClassName == "Dog")
        #expect(schema["tags"]?.isSet == true)
        #expect(schema["scores"]?.isMap == true)
        #expect(schema["anything"]?.type == .any)
        #expect(Dog().objectSchema["owners"]?.type == .linkingObjects)
        #expect(Dog().objectSchema["owners"]?.linkOriginPropertyName == "dogs")
        #expect(Address().objectSchema.isEmbedded)
        let realm = try memoryRealm([Person.self])
        #expect(realm.schema["Person"] != nil)
        #expect(realm.schema["Dog"] != nil)  // linked classes come along
        #expect(realm.schema["Address"] != nil)
    }

    @Test("description prints the class and its properties")
    func description() throws {
        let dog = Dog(value: ["name": "Rex", "age": 3])
        #expect(dog.description.hasPrefix("Dog {"))
        #expect(dog.description.contains("name = Rex;"))
        #expect(dog.description.contains("age = 3;"))
    }

    @Test("description of objects whose links loop back ends at Realm's maximum depth")
    func cyclicDescription() throws {
        let realm = try memoryRealm()
        try realm.write {
            let a = realm.create(Node.self, value: ["id": "a"])
            let b = realm.create(Node.self, value: ["id": "b", "next": a])
            a.next = b
            a.children.append(b)
        }
        let a = try #require(realm.object(ofType: Node.self, forPrimaryKey: "a"))
        // a's next is b, whose next is a, ...: the description stops five levels down.
        for text in [a.description, a.children.description, "\(realm.objects(Node.self))"] {
            #expect(text.contains("id = b;"))
            #expect(text.contains("<Maximum depth exceeded>"))
        }
    }

    @Test("Decimal128 and ObjectId")
    func valueTypes() throws {
        let d = try Decimal128(string: "-12.500")
        #expect(d.stringValue == "-12.500")
        #expect(d == Decimal128(stringLiteral: "-12.5"))
        #expect(Decimal128(1) > d)
        #expect(Decimal128(number: 0.1).stringValue == "1.00000000000000E-1")
        #expect(throws: Realm.Error.self) { _ = try Decimal128(string: "abc") }
        let price: Decimal128 = "19.99"
        #expect(price * 3 == Decimal128(stringLiteral: "59.97"))
        #expect(price + "0.01" == 20)
        #expect(price - 20 == Decimal128(stringLiteral: "-0.01"))
        #expect((Decimal128(1) / 3).stringValue == "+3333333333333333333333333333333333E-34")
        #expect((Decimal128(1) / 0).isNaN)
        #expect((-price).magnitude == price)
        var total: Decimal128 = 0
        total += price
        #expect(total == price)
        #expect(try Decimal128(string: "1.23456789012345678901234567890123456").stringValue == "+1234567890123456789012345678901235E-33")
        let id = ObjectId.generate()
        #expect(try ObjectId(string: id.stringValue) == id)
        #expect(id.stringValue.count == 24)
        #expect(abs(id.timestamp.timeIntervalSinceNow) < 5)
        #expect(ObjectId.generate() != id)
        #expect(throws: Realm.Error.self) { _ = try ObjectId(string: "xyz") }
    }
}

@Suite("Realm: primary keys and identity")
struct PrimaryKeyTests {
    @Test("String, ObjectId (named _id), UUID and optional Int primary keys")
    func keyTypes() throws {
        let realm = try memoryRealm()
        let id = ObjectId.generate()
        let uuid = UUID()
        try realm.write {
            realm.add(StringKeyed(value: ["key": "a", "value": 1]))
            realm.add(ObjectIdKeyed(value: ["_id": id, "value": 2]))
            realm.add(UUIDKeyed(value: ["id": uuid]))
            realm.add(OptionalIntKeyed(value: ["id": 5]))
            realm.add(OptionalIntKeyed())
        }
        #expect(realm.object(ofType: StringKeyed.self, forPrimaryKey: "a")?.value == 1)
        #expect(realm.object(ofType: ObjectIdKeyed.self, forPrimaryKey: id)?.value == 2)
        #expect(ObjectIdKeyed().objectSchema.primaryKeyProperty?.name == "_id")
        #expect(realm.object(ofType: UUIDKeyed.self, forPrimaryKey: uuid) != nil)
        #expect(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: 5)?.id == 5)
        #expect(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: Int?.none)?.id == nil)
        #expect(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: Int?.none) != nil)
    }

    @Test("ObjectId and UUID properties default to new values, as Realm's (primary keys need not be set)")
    func generatedDefaults() throws {
        let realm = try memoryRealm()
        try realm.write {
            realm.add(ObjectIdKeyed())
            realm.add(ObjectIdKeyed())
            realm.add(UUIDKeyed())
            realm.add(UUIDKeyed())
        }
        #expect(realm.objects(ObjectIdKeyed.self).count == 2)
        #expect(realm.objects(UUIDKeyed.self).count == 2)
        #expect(abs(AllTypes().date.timeIntervalSinceNow) < 60)
    }

    @Test("adding a managed object again is a no-op")
    func addTwice() throws {
        let realm = try memoryRealm()
        let dog = Dog()
        try realm.write {
            realm.add(dog)
            realm.add(dog)
        }
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test("accessors of one object are equal and hash alike; unmanaged objects by identity")
    func identity() throws {
        let realm = try memoryRealm()
        try realm.write { realm.add(Person(value: ["id": 1])) }
        let a = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        let b = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(a !== b)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(Dog() != Dog())
    }

    @Test("descriptions of collections and configurations")
    func descriptions() throws {
        let realm = try memoryRealm()
        try realm.write { realm.add(Person(value: ["id": 1, "nicknames": ["x"]])) }
        let results = realm.objects(Person.self)
        #expect(results.description.hasPrefix("Results<Person> <0x"))
        #expect(results[0].nicknames.description.contains("[0] x"))
        #expect(realm.configuration.description.contains("\tinMemoryIdentifier = test-"))
    }

    @Test("ObjectKeyIdentifiable gives managed objects their key as id")
    func objectKeyIdentifiable() throws {
        let realm = try memoryRealm()
        try realm.write {
            realm.add(Tag(value: ["label": "a"]))
            realm.add(Tag(value: ["label": "b"]))
        }
        let tags = realm.objects(Tag.self)
        #expect(tags[0].id != tags[1].id)
        #expect(tags[1].id == realm.objects(Tag.self)[1].id)
    }

    @Test("deleteFiles removes a closed Realm's files and refuses an open one")
    func deleteFiles() throws {
        try withDirectory { directory in
            let config = Realm.Configuration(fileURL: directory.appendingPathComponent("gone.realm"))
            try autoreleasepoolish {
                let realm = try Realm(configuration: config)
                #expect { try Realm.deleteFiles(for: config) } throws: { ($0 as? Realm.Error)?.code == .alreadyOpen }
                try realm.write { realm.add(Dog()) }
            }
            waitUntilClosedEverywhere(config.fileURL!)
            #expect(try Realm.deleteFiles(for: config))
            #expect(!FileManager.default.fileExists(atPath: config.fileURL!.path))
            #expect(try !Realm.deleteFiles(for: config))
        }
    }
}
