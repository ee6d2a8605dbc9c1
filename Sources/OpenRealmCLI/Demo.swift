// Demo.swift — `openrealm demo`: a small app on the Realm Swift API, step by step.

import Foundation
import OpenRealm

/// A dog, stored inside its owner (an embedded object: deleted with the person).
final class Dog: EmbeddedObject {
    @Persisted var name: String
    @Persisted var age: Int
}

/// A person of the demo: a primary key, an indexed name, embedded dogs, a link to a best friend,
/// and the people whose best friend they are (LinkingObjects, computed from the links).
final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var dogs: List<Dog>
    @Persisted var bestFriend: Person?
    @Persisted(originProperty: "bestFriend") var bestFriendOf: LinkingObjects<Person>
}

/// The demo's key: the 64 bytes of a phrase, so that anyone can see what it is. A demo key only:
/// a real app keeps a random key in a keychain or a secrets store, never in its code.
let demoKeyPhrase = "OpenRealm demo key: never hard-code a real key in an app!!!!!!!!"

/// `openrealm demo [FILE]`: each step prints one or a few lines.
struct Demo {
    let url: URL
    let copyURL: URL
    let key = Data(demoKeyPhrase.utf8)

    init(path: String) {
        url = URL(fileURLWithPath: path)
        let base = url.pathExtension == "realm" ? url.deletingPathExtension() : url
        copyURL = URL(fileURLWithPath: base.path + ".compacted.realm")
    }

    var configuration: Realm.Configuration {
        Realm.Configuration(fileURL: url, encryptionKey: key, objectTypes: [Person.self, Dog.self])
    }

    var copyConfiguration: Realm.Configuration {
        Realm.Configuration(fileURL: copyURL, objectTypes: [Person.self, Dog.self])
    }

    func run() throws {
        precondition(key.count == 64, "the demo key phrase must be 64 bytes")
        print("openrealm demo: a small app on the Realm Swift API (OpenRealm \(StorageEngine.engineVersion))")
        try removePreviousRun()
        try create()
        try churn()
        try reopen()
        try query()
        try copy()
        try compactOnLaunch()
        print("done: \(url.lastPathComponent) (encrypted) and \(copyURL.lastPathComponent) (plain) are left for you to look at")
    }

    /// Step 1: the files of a previous run go, but only files this demo made: the main file must
    /// open with the demo key, the copy must be a plain OpenRealm file. Anything else is left
    /// alone and the demo stops.
    func removePreviousRun() throws {
        var removed: [String] = []
        for (target, key) in [(url, Optional(self.key)), (copyURL, nil)] where FileManager.default.fileExists(atPath: target.path) {
            do {
                _ = try StorageEngine(path: target.path, options: .init(readOnly: true, encryptionKey: key.map { [UInt8]($0) }))
            } catch {
                throw DemoError("'\(target.path)' exists and is not a file of an earlier demo run (\(error)); "
                    + "it is left as it is: give the demo another path")
            }
            var config = Realm.Configuration(fileURL: target)
            config.encryptionKey = key
            try Realm.deleteFiles(for: config)
            removed.append(target.lastPathComponent)
        }
        print("1. previous run: \(removed.isEmpty ? "none" : "removed " + removed.joined(separator: ", ") + " (Realm.deleteFiles)")")
    }

    /// Step 2: an encrypted file with six people, their dogs and best friends.
    func create() throws {
        let realm = try Realm(configuration: configuration)
        let people: [(Int, String, Int, [(String, Int)])] = [
            (1, "Alice", 34, [("Rex", 3), ("Rusty", 7)]),
            (2, "Bob", 29, [("Fido", 2)]),
            (3, "Carol", 41, [("Bella", 5), ("Ringo", 1)]),
            (4, "Dave", 23, []),
            (5, "Erin", 37, [("Max", 9)]),
            (6, "Frank", 52, [("Luna", 4), ("Rocky", 11)]),
        ]
        let friends = [2: 1, 3: 1, 4: 3, 5: 6, 6: 5, 1: 3]
        try realm.write {
            for (id, name, age, dogs) in people {
                realm.add(Person(value: ["id": id, "name": name, "age": age,
                                         "dogs": dogs.map { ["name": $0.0, "age": $0.1] }]))
            }
            for (id, friend) in friends {
                realm.object(ofType: Person.self, forPrimaryKey: id)?.bestFriend =
                    realm.object(ofType: Person.self, forPrimaryKey: friend)
            }
        }
        let dogs = realm.objects(Person.self).reduce(0) { $0 + $1.dogs.count }
        print("2. created \(url.lastPathComponent), encrypted (Realm.Configuration.encryptionKey, AES-256-GCM per page)")
        print("   with a DEMO key, the 64 bytes of \"\(demoKeyPhrase)\"")
        print("   (hex \(key.prefix(8).map { String(format: "%02x", $0) }.joined())...): a real app keeps a random key in a keychain")
        print("   wrote \(realm.objects(Person.self).count) people (primary key id), \(dogs) embedded dogs, \(friends.count) best-friend links in one write transaction")
    }

    /// Step 3: many objects added and deleted again leave free space in the file.
    func churn() throws {
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 1000..<4000 {
                realm.add(Person(value: ["id": id, "name": "Visitor \(id) " + String(repeating: "·", count: 40), "age": id % 90,
                                         "dogs": [["name": "Dog of \(id)", "age": id % 15]]]))
            }
        }
        try realm.write { realm.delete(realm.objects(Person.self).filter("id >= %@", 1000)) }
        print("3. added 3000 visitors with a dog each, then deleted them: \(realm.objects(Person.self).count) people; "
            + "the file stays \(formatBytes(try fileSize(url))), mostly free space now")
    }

    /// Step 4: the file opens with the key, and only with it.
    func reopen() throws {
        var noKey = configuration
        noKey.encryptionKey = nil
        do {
            _ = try Realm(configuration: noKey)
            throw DemoError("the encrypted file opened without its key")
        } catch let error as Realm.Error where error.code == .invalidDatabase {
            print("4. reopening without the key fails: Realm.Error.invalidDatabase")
        }
        let realm = try Realm(configuration: configuration)
        let people = realm.objects(Person.self)
        print("   reopened with the key: \(people.count) people: \(people.map(\.name).joined(separator: ", "))")
    }

    /// Step 5: queries in the NSPredicate format of Realm Swift's `filter`, run by the engine.
    func query() throws {
        let realm = try Realm(configuration: configuration)
        let people = realm.objects(Person.self)
        func names(_ results: Results<Person>) -> String {
            results.map { "\($0.name) (\($0.age))" }.joined(separator: ", ")
        }
        print("5. queries (Results.filter and where, evaluated by the C query engine):")
        let adults = people.filter("age >= %@", 30).sorted(byKeyPath: "age")
        print("   filter(\"age >= %@\", 30), sorted by age: \(names(adults))")
        let rDogs = people.filter("ANY dogs.name BEGINSWITH[c] %@", "r")
        print("   filter(\"ANY dogs.name BEGINSWITH[c] %@\", \"r\"): \(names(rDogs))")
        let friendsOfAlice = people.filter("bestFriend.name == %@", "Alice")
        print("   filter(\"bestFriend.name == %@\", \"Alice\"): \(names(friendsOfAlice))")
        let popular = people.where { $0.bestFriendOf.count >= 2 }
        print("   where { $0.bestFriendOf.count >= 2 } (LinkingObjects, type-safe): \(names(popular))")
        if let alice = realm.object(ofType: Person.self, forPrimaryKey: 1) {
            print("   Alice's LinkingObjects bestFriendOf: \(alice.bestFriendOf.map(\.name).sorted().joined(separator: ", "))")
        }
    }

    /// Step 6: a compacted, decrypted copy.
    func copy() throws {
        let realm = try Realm(configuration: configuration)
        try realm.writeCopy(toFile: copyURL)
        let copied = try Realm(configuration: copyConfiguration).objects(Person.self).count
        let original = try fileSize(url)
        let compacted = try fileSize(copyURL)
        print("6. writeCopy(toFile: \(copyURL.lastPathComponent)) without a key: a compacted, decrypted copy")
        print("   \(url.lastPathComponent) \(formatBytes(original)) -> copy \(formatBytes(compacted)) "
            + "(\(percent(compacted, of: original))), \(copied) people in the copy")
    }

    /// Step 7: shouldCompactOnLaunch compacts the encrypted file in place when it is opened.
    func compactOnLaunch() throws {
        let asked = Asked()
        var config = configuration
        config.shouldCompactOnLaunch = { totalBytes, usedBytes in
            asked.set(totalBytes, usedBytes)
            return usedBytes < totalBytes / 2
        }
        let before = try fileSize(url)
        let realm = try Realm(configuration: config)
        let after = try fileSize(url)
        guard let (total, used) = asked.value else { throw DemoError("shouldCompactOnLaunch was not called") }
        print("7. reopened with shouldCompactOnLaunch: called with totalBytes \(total), usedBytes \(used) -> "
            + (used < total / 2 ? "compact" : "keep"))
        print("   \(url.lastPathComponent) \(formatBytes(before)) -> \(formatBytes(after)) (\(percent(after, of: before))), still encrypted, "
            + "\(realm.objects(Person.self).count) people")
    }
}

/// What shouldCompactOnLaunch was called with (it may be called on any thread).
private final class Asked: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (Int, Int)?
    var value: (Int, Int)? { lock.withLock { stored } }
    func set(_ total: Int, _ used: Int) { lock.withLock { stored = (total, used) } }
}

/// A demo step that went wrong.
struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private func fileSize(_ url: URL) throws -> Int {
    guard let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int else {
        throw DemoError("no size for '\(url.path)'")
    }
    return size
}

private func formatBytes(_ bytes: Int) -> String {
    bytes >= 1 << 20 ? String(format: "%.1f MB", Double(bytes) / Double(1 << 20))
        : bytes >= 1 << 10 ? String(format: "%.1f KB", Double(bytes) / Double(1 << 10)) : "\(bytes) bytes"
}

private func percent(_ part: Int, of whole: Int) -> String {
    whole == 0 ? "-" : "\(Int((Double(part) * 100 / Double(whole)).rounded()))%"
}
