// AnyRealmCollectionTests.swift — AnyRealmCollection over Results, List, MutableSet and
// LinkingObjects (reads, queries and aggregates as the wrapped collection's, freezing), and
// Realm.Configuration.seedFilePath.

import Foundation
import Testing

import OpenRealm

/// Dogs Rex (3), Fido (5), Max (1), Bo (5); Ada (30) owns [Max, Fido, Rex], Grace (40) owns
/// [Rex]; a `Collections` object's dog set holds Bo and Rex.
private func dogsRealm() throws -> (Realm, Person, Collections) {
    let realm = try memoryRealm()
    let (ada, collections) = try realm.write {
        let dogs = [("Rex", 3), ("Fido", 5), ("Max", 1), ("Bo", 5)].map { realm.create(Dog.self, value: ["name": $0.0, "age": $0.1]) }
        let ada = realm.create(Person.self, value: ["id": 1, "name": "Ada", "age": 30, "dogs": [dogs[2], dogs[1], dogs[0]]])
        realm.create(Person.self, value: ["id": 2, "name": "Grace", "age": 40, "dogs": [dogs[0]]])
        let collections = realm.create(Collections.self)
        collections.dogSet.insert(objectsIn: [dogs[3], dogs[0]])
        return (ada, collections)
    }
    return (realm, ada, collections)
}

/// The names of objects with a `name` property, in order.
private func names<S: Sequence>(_ objects: S) -> [String] {
    objects.map { ($0 as! Object)["name"] as! String }
}

/// Checks that `erased` reads and queries as `wrapped` does: the same elements in the same order,
/// and the same filtered, sorted, distinct and aggregated results.
private func expectSameAs<C: RealmCollection>(_ erased: AnyRealmCollection<C.Element>, _ wrapped: C) where C.Element: Object {
    #expect(erased.count == wrapped.count)
    #expect(erased.isEmpty == wrapped.isEmpty)
    #expect(names(erased) == names(wrapped))
    #expect(names((0..<erased.count).map { erased[$0] }) == names(wrapped))
    #expect(erased.first.map { names([$0]) } == wrapped.first.map { names([$0]) })
    #expect(erased.last.map { names([$0]) } == wrapped.last.map { names([$0]) })
    for (position, element) in wrapped.enumerated() { #expect(erased.index(of: element) == position) }
    #expect(names(erased.filter("age > %@", 2)) == names(wrapped.filter("age > %@", 2)))
    #expect(names(erased.sorted(byKeyPath: "name")) == names(wrapped.sorted(byKeyPath: "name")))
    #expect(names(erased.sorted(byKeyPath: "age", ascending: false)) == names(wrapped.sorted(byKeyPath: "age", ascending: false)))
    #expect(names(erased.sorted(by: [SortDescriptor(keyPath: "age"), "name"])) == names(wrapped.sorted(by: [SortDescriptor(keyPath: "age"), "name"])))
    #expect(names(erased.distinct(by: ["age"])) == names(wrapped.distinct(by: ["age"])))
    #expect(erased.index(matching: "age < %@", 4) == wrapped.index(matching: "age < %@", 4))
    #expect(erased.min(ofProperty: "age") as Int? == wrapped.min(ofProperty: "age") as Int?)
    #expect(erased.max(ofProperty: "age") as Int? == wrapped.max(ofProperty: "age") as Int?)
    #expect(erased.sum(ofProperty: "age") as Int == wrapped.sum(ofProperty: "age") as Int)
    #expect(erased.average(ofProperty: "age") as Double? == wrapped.average(ofProperty: "age") as Double?)
    #expect(erased.realm == wrapped.realm)
    #expect(erased.isInvalidated == wrapped.isInvalidated)
    #expect(erased.isFrozen == wrapped.isFrozen)
    // (description is compared over values only: describing these objects recurses through
    // Person.dogs and Dog.owners, an existing problem of nested descriptions.)
}

@Suite("AnyRealmCollection")
struct AnyRealmCollectionTests {
    @Test("over Results: reads, queries and aggregates as the results")
    func overResults() throws {
        let (realm, _, _) = try dogsRealm()
        let results = realm.objects(Dog.self)
        let dogs = AnyRealmCollection(results)
        expectSameAs(dogs, results)
        #expect(names(dogs) == ["Rex", "Fido", "Max", "Bo"])
        #expect(dogs[2].name == "Max")
        #expect(names(dogs.filter("age > 2")) == ["Rex", "Fido", "Bo"])
        #expect(names(dogs.where { $0.age == 5 }) == ["Fido", "Bo"])
        #expect(names(dogs.sorted(byKeyPath: "name")) == ["Bo", "Fido", "Max", "Rex"])
        #expect(names(dogs.distinct(by: ["age"])) == ["Rex", "Fido", "Max"])
        #expect(dogs.index(matching: "name == %@", "Max") == 2)
        #expect(dogs.index(matching: { $0.name == "Bo" }) == 3)
        #expect(dogs.sum(ofProperty: "age") as Int == 14)
        #expect(dogs.max(ofProperty: "age") as Int? == 5)
        #expect(dogs.average(ofProperty: "age") as Double? == 3.5)
        // Live, as the results: a new dog is counted.
        try realm.write { realm.add(Dog(value: ["name": "Zed", "age": 9])) }
        #expect(dogs.count == 5)
        #expect(dogs.last?.name == "Zed")
        #expect(dogs.max(ofProperty: "age") as Int? == 9)
    }

    @Test("over a List: reads, queries and aggregates as the list, in its order")
    func overList() throws {
        let (realm, ada, _) = try dogsRealm()
        let dogs = AnyRealmCollection(ada.dogs)
        expectSameAs(dogs, ada.dogs)
        #expect(names(dogs) == ["Max", "Fido", "Rex"])
        #expect(dogs[0].name == "Max")
        #expect(names(dogs.filter("age > 2")) == ["Fido", "Rex"])
        #expect(names(dogs.sorted(byKeyPath: "age")) == ["Max", "Rex", "Fido"])
        #expect(dogs.index(matching: "name == 'Rex'") == 2)
        #expect(dogs.min(ofProperty: "age") as Int? == 1)
        #expect(dogs.sum(ofProperty: "age") as Int == 9)
        try realm.write { ada.dogs.remove(at: 0) }
        #expect(names(dogs) == ["Fido", "Rex"])
        #expect(dogs.min(ofProperty: "age") as Int? == 3)
    }

    @Test("over a MutableSet: reads, queries and aggregates as the set")
    func overMutableSet() throws {
        let (_, _, collections) = try dogsRealm()
        let dogs = AnyRealmCollection(collections.dogSet)
        expectSameAs(dogs, collections.dogSet)
        #expect(Set(names(dogs)) == ["Bo", "Rex"])
        #expect(names(dogs.filter("age > 4")) == ["Bo"])
        #expect(names(dogs.sorted(byKeyPath: "name")) == ["Bo", "Rex"])
        #expect(dogs.sum(ofProperty: "age") as Int == 8)
        #expect(dogs.average(ofProperty: "age") as Double? == 4)
    }

    @Test("over LinkingObjects: reads, queries and aggregates as the linking objects")
    func overLinkingObjects() throws {
        let (realm, _, _) = try dogsRealm()
        let rex = realm.objects(Dog.self).filter("name == 'Rex'").first!
        let owners = AnyRealmCollection(rex.owners)
        expectSameAs(owners, rex.owners)
        #expect(names(owners) == ["Ada", "Grace"])
        #expect(owners[1].name == "Grace")
        #expect(names(owners.filter("age > 35")) == ["Grace"])
        #expect(names(owners.sorted(byKeyPath: "age", ascending: false)) == ["Grace", "Ada"])
        #expect(owners.index(matching: { $0.name == "Grace" }) == 1)
        #expect(owners.max(ofProperty: "age") as Int? == 40)
        #expect(owners.average(ofProperty: "age") as Double? == 35)
    }

    @Test("over a list of values and an unmanaged list: count, subscript, iteration, index(of:)")
    func overValuesAndUnmanaged() throws {
        let realm = try memoryRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1, "nicknames": ["A", "B", "C"]]) }
        let nicknames = AnyRealmCollection(person.nicknames)
        #expect(nicknames.count == 3)
        #expect(Array(nicknames) == ["A", "B", "C"])
        #expect(nicknames[1] == "B")
        #expect(nicknames.index(of: "C") == 2)
        #expect(nicknames.index(of: "Z") == nil)
        #expect(nicknames.realm == realm)
        let unmanaged = List<String>()
        unmanaged.append(objectsIn: ["x", "y"])
        let erased = AnyRealmCollection(unmanaged)
        #expect(erased.count == 2 && erased.last == "y" && erased.realm == nil)
        #expect(!erased.isFrozen)
        let empty = AnyRealmCollection(MutableSet<Int>())
        #expect(empty.isEmpty && empty.first == nil)
        // Wrapping an AnyRealmCollection wraps the same collection.
        #expect(AnyRealmCollection(nicknames).description == person.nicknames.description)
        #expect(nicknames.description.hasPrefix("List<string>") && nicknames.description.contains("[2] C"))
    }

    @Test("freeze keeps each kind's elements at the version; thaw reads the live collection")
    func freezeAndThaw() throws {
        let (realm, ada, collections) = try dogsRealm()
        let rex = realm.objects(Dog.self).filter("name == 'Rex'").first!
        let collectionsOfDogs = [
            AnyRealmCollection(realm.objects(Dog.self).filter("age > 2")), AnyRealmCollection(ada.dogs),
            AnyRealmCollection(collections.dogSet),
        ]
        let frozenDogs = collectionsOfDogs.map { $0.freeze() }
        let frozenOwners = AnyRealmCollection(rex.owners).freeze()
        let countsBefore = collectionsOfDogs.map(\.count)
        #expect(frozenDogs.allSatisfy(\.isFrozen) && frozenOwners.isFrozen)
        #expect(collectionsOfDogs.allSatisfy { !$0.isFrozen })
        try realm.write {
            let zed = realm.create(Dog.self, value: ["name": "Zed", "age": 9])
            ada.dogs.append(zed)
            collections.dogSet.insert(zed)
            realm.create(Person.self, value: ["id": 3, "name": "Alan", "dogs": [rex]])
        }
        #expect(frozenDogs.map(\.count) == countsBefore)
        #expect(collectionsOfDogs.map(\.count) == countsBefore.map { $0 + 1 })
        #expect(names(frozenOwners) == ["Ada", "Grace"])
        #expect(frozenDogs.allSatisfy { $0.filter("name == 'Zed'").isEmpty })
        #expect(frozenDogs[1].sum(ofProperty: "age") as Int == 9)
        let thawed = frozenDogs.map { $0.thaw() }
        #expect(thawed.map { $0?.count } == collectionsOfDogs.map(\.count))
        #expect(thawed.allSatisfy { $0?.isFrozen == false })
        #expect(frozenOwners.thaw()?.count == 3)
        #expect(collectionsOfDogs[0].thaw()?.count == collectionsOfDogs[0].count)   // live: itself
    }

    @Test("a ThreadSafeReference to an AnyRealmCollection resolves to the same collection")
    func threadSafeReference() throws {
        try withDirectory { directory in
            let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("any.realm"), objectTypes: [Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: configuration)
            let ada = try realm.write {
                realm.create(Person.self, value: ["id": 1, "name": "Ada", "dogs": [["name": "Rex"], ["name": "Fido"]]])
            }
            let reference = ThreadSafeReference(to: AnyRealmCollection(ada.dogs))
            let resolved = try onOtherThread {
                let realm = try Realm(configuration: configuration)
                return realm.resolve(reference).map { names($0) } ?? []
            }
            #expect(resolved == ["Rex", "Fido"])
        }
    }
}

@Suite("Realm.Configuration.seedFilePath")
struct SeedFileTests {
    /// Writes a Realm file at `url` holding dogs with `names`.
    private func writeSeed(_ url: URL, _ names: [String]) throws {
        try? FileManager.default.removeItem(at: url)
        let realm = try memoryRealm([Dog.self, Person.self, Address.self])
        try realm.write { for name in names { realm.add(Dog(value: ["name": name])) } }
        try realm.writeCopy(toFile: url)
    }

    @Test("the seed is copied when no file exists, and not over an existing file")
    func copiesOnFirstOpenOnly() throws {
        try withDirectory { directory in
            let seed = directory.appendingPathComponent("seed.realm")
            try writeSeed(seed, ["Rex", "Fido"])
            let fileURL = directory.appendingPathComponent("app.realm")
            let configuration = Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self, Person.self, Address.self], seedFilePath: seed)
            #expect(configuration.seedFilePath == seed)
            // Each open on a thread of its own: the Realm is closed when the thread ends.
            let first = try onOtherThread {
                let realm = try Realm(configuration: configuration)
                let seeded = names(realm.objects(Dog.self))
                try realm.write { realm.add(Dog(value: ["name": "Max"])) }
                return seeded
            }
            #expect(first == ["Rex", "Fido"])
            #expect(FileManager.default.fileExists(atPath: seed.path))
            // The copy is made under a temporary name and linked into place; none is left.
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".seed-") }
            #expect(left.isEmpty, "temporary seed copies left: \(left)")
            // A changed seed: the existing file is opened as it is.
            try writeSeed(seed, ["A", "B", "C", "D"])
            let second = try onOtherThread { names(try Realm(configuration: configuration).objects(Dog.self)) }
            #expect(second == ["Rex", "Fido", "Max"])
        }
    }

    @Test("a missing seed file throws fileAccess and creates no file")
    func missingSeed() throws {
        try withDirectory { directory in
            let fileURL = directory.appendingPathComponent("app.realm")
            var configuration = Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self, Person.self, Address.self])
            configuration.seedFilePath = directory.appendingPathComponent("missing.realm")
            #expect {
                _ = try Realm(configuration: configuration)
            } throws: { error in
                guard let error = error as? Realm.Error else { return false }
                return error.code == .fileAccess && error.message.hasPrefix("Unable to copy seed file")
                    && error.message.contains("missing.realm")
            }
            #expect(!FileManager.default.fileExists(atPath: fileURL.path))
            #expect((try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true)
        }
    }

    @Test("a directory as the seed throws fileAccess and copies nothing (not the tree, into itself)")
    func directorySeed() throws {
        try withDirectory { directory in
            let fileURL = directory.appendingPathComponent("app.realm")
            var configuration = Realm.Configuration(fileURL: fileURL, objectTypes: [Dog.self, Person.self, Address.self])
            configuration.seedFilePath = directory
            #expect {
                _ = try Realm(configuration: configuration)
            } throws: { error in
                guard let error = error as? Realm.Error else { return false }
                return error.code == .fileAccess
                    && error.message == "Unable to copy seed file '\(directory.path)' to '\(fileURL.path)': it is a directory"
            }
            #expect(!FileManager.default.fileExists(atPath: fileURL.path))
        }
    }

    @Test("inMemoryIdentifier clears seedFilePath; both set at open throws")
    func inMemoryExcludesSeed() throws {
        var configuration = Realm.Configuration(seedFilePath: URL(fileURLWithPath: "/tmp/seed.realm"))
        #expect(configuration.seedFilePath != nil)
        configuration.inMemoryIdentifier = "seed-\(UUID().uuidString)"
        #expect(configuration.seedFilePath == nil)
        configuration.seedFilePath = URL(fileURLWithPath: "/tmp/seed.realm")
        #expect {
            _ = try Realm(configuration: configuration)
        } throws: { error in
            (error as? Realm.Error)?.code == .fail && "\(error)".contains("in-memory")
        }
    }
}
