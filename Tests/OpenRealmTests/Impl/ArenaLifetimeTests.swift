// ArenaLifetimeTests.swift — strings copied into a temporary arena (_CArena) reach the engine
// intact on every path that makes one for a write, a find or an open.
//
// An arena frees its bytes when it is released, and an optimised build may release a local after
// its last Swift use, before the C call that reads the bytes: each path keeps its arena alive
// across the call (`withExtendedLifetime`). Each test runs one path in a child process (an exit
// test) whose malloc unmaps every freed block of 128 KiB or more, with strings of 256 KiB, so
// that an arena released too early makes the engine's read fault instead of finding stale bytes
// that happen to be intact.
//
// They matter in release (`swift test -c release --filter ArenaLifetime`), and can fail only with
// a compiler that moves the release before the call. Swift 6.3 does not for these paths (lexical
// lifetimes: a local lives to the end of its scope past an opaque call); built with
// `-Xswiftc -Xfrontend -Xswiftc -enable-lexical-lifetimes=false`, which does, the mixed property,
// set, list find, dictionary, nested key, migration write and create tests fault without the
// `withExtendedLifetime`. The other three pass either way: an arena used in a loop is released
// after the loop, and one passed as an argument lives until the call returns.

import Foundation
import Testing

import OpenRealm

/// In a child process: blocks of 128 KiB or more come from mmap and are unmapped when freed
/// (setting the threshold turns off glibc's raising it after a large free). glibc's
/// `mallopt(M_MMAP_THRESHOLD, ...)`, looked up by name: malloc.h is not in Swift's Glibc module.
private func unmapLargeFreedBlocks() {
    #if os(Linux)
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
    guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 128 << 10)
    #endif
}

/// A string of 256 KiB: an arena copying it allocates a block of its own, above the threshold.
private func bigString(_ letter: Character = "a") -> String {
    String(repeating: letter, count: 256 << 10)
}

/// A new in-memory Realm of Person, Dog and Address, with the Person of id 1.
private func personRealm() throws -> (Realm, Person) {
    unmapLargeFreedBlocks()
    let realm = try memoryRealm([Person.self, Dog.self, Address.self])
    let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }
    return (realm, person)
}

/// Migrates a file of V1.Item (one item) and Person (id 1) to V2.Item with `block`, then calls
/// `check` with the migrated Realm.
private func migrated(_ block: @escaping MigrationBlock, _ check: (Realm) throws -> Void) throws {
    unmapLargeFreedBlocks()
    try withDirectory { directory in
        let url = directory.appendingPathComponent("arena.realm")
        let types: [ObjectBase.Type] = [Person.self, Dog.self, Address.self]
        do {
            let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [V1.Item.self] + types))
            try realm.write {
                realm.add(V1.Item(value: ["name": "old", "count": 1]))
                realm.add(Person(value: ["id": 1]))
            }
        }
        try check(Realm(configuration: .init(fileURL: url, schemaVersion: 1, migrationBlock: block, objectTypes: [V2.Item.self] + types)))
    }
}

@Suite("Arena lifetime: strings written through a temporary arena")
struct ArenaLifetimeTests {
    @Test("a string set on a mixed property (AnyRealmValue._rlmSet)")
    func mixedProperty() async {
        await #expect(processExitsWith: .success) {
            let (realm, person) = try personRealm()
            let value = bigString()
            try realm.write { person.anything = .string(value) }
            precondition(person.anything.stringValue == value)
        }
    }

    @Test("a set's insert, contains and remove (setInsert, find, setErase)")
    func setInsertFindErase() async {
        await #expect(processExitsWith: .success) {
            let (realm, person) = try personRealm()
            let tag = bigString()
            try realm.write { person.tags.insert(tag) }
            precondition(Array(person.tags) == [tag])
            precondition(person.tags.contains(tag))
            precondition(!person.tags.contains(bigString("b")))
            try realm.write { person.tags.remove(tag) }
            precondition(person.tags.isEmpty)
        }
    }

    @Test("a list's index(of:) (find)")
    func listFind() async {
        await #expect(processExitsWith: .success) {
            let (realm, person) = try personRealm()
            let nickname = bigString()
            try realm.write { person.nicknames.append(nickname) }
            precondition(person.nicknames.index(of: nickname) == 0)
            precondition(person.nicknames.index(of: bigString("b")) == nil)
        }
    }

    @Test("a dictionary's value (dictionarySet)")
    func dictionaryValue() async {
        await #expect(processExitsWith: .success) {
            let (realm, person) = try personRealm()
            let value = bigString()
            let map = Map<String, AnyRealmValue>()
            map["k"] = .string(value)
            try realm.write { person.anything = .dictionary(map) }
            precondition(person.anything.dictionaryValue?["k"]?.stringValue == value)
        }
    }

    @Test("a collection nested under a key (ManagedCollection.open)")
    func nestedUnderKey() async {
        await #expect(processExitsWith: .success) {
            let (realm, person) = try personRealm()
            let key = bigString("k")
            let inner = List<AnyRealmValue>()
            inner.append(.int(7))
            let outer = Map<String, AnyRealmValue>()
            outer[key] = .list(inner)
            try realm.write { person.anything = .dictionary(outer) }
            try realm.write { person.anything.dictionaryValue?[key]?.listValue?.append(.int(8)) }
            precondition(person.anything.dictionaryValue?[key]?.listValue.map(Array.init) == [.int(7), .int(8)])
        }
    }

    @Test("an embedded object's properties (RealmCore.fill)")
    func embeddedObject() async {
        await #expect(processExitsWith: .success) {
            let (realm, person) = try personRealm()
            // Both strings large: whichever property is written last reads a block of its own.
            let street = bigString("s")
            let city = bigString("c")
            try realm.write { person.address = Address(value: ["street": street, "city": city]) }
            precondition(person.address?.street == street && person.address?.city == city)
        }
    }

    @Test("an object added within an add, for a link (RealmCore.add)")
    func linkedAdd() async {
        await #expect(processExitsWith: .success) {
            let (realm, _) = try personRealm()
            let name = bigString()
            try realm.write { realm.add(Person(value: ["id": 2, "dog": Dog(value: ["name": name])])) }
            precondition(realm.object(ofType: Person.self, forPrimaryKey: 2)?.dog?.name == name)
        }
    }

    @Test("a migration's property write (DynamicObject.setDynamicValue)")
    func migrationPropertyWrite() async {
        await #expect(processExitsWith: .success) {
            let name = bigString()
            try migrated({ migration, _ in
                migration.enumerateObjects(ofType: "Item") { _, new in new?["name"] = name }
            }) { realm in
                precondition(realm.objects(V2.Item.self).map(\.name) == [name])
            }
        }
    }

    @Test("a migration's list write (DynamicObject.setDynamicValue)")
    func migrationListWrite() async {
        await #expect(processExitsWith: .success) {
            let nickname = bigString()
            try migrated({ migration, _ in
                migration.enumerateObjects(ofType: "Person") { _, new in new?["nicknames"] = [nickname] }
            }) { realm in
                precondition(realm.object(ofType: Person.self, forPrimaryKey: 1).map { Array($0.nicknames) } == [nickname])
            }
        }
    }

    @Test("a migration's create (DynamicContext.createObject)")
    func migrationCreate() async {
        await #expect(processExitsWith: .success) {
            let name = bigString()
            try migrated({ migration, _ in
                migration.create("Item", value: ["name": name, "count": 2, "price": 1.5])
            }) { realm in
                precondition(realm.objects(V2.Item.self).map(\.name) == ["old", name])
            }
        }
    }
}
