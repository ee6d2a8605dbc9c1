// MigrationParityTests.swift — migrations behaving as Realm Swift's MigrationTests and
// realm-core's renames say they do: what enumerateObjects visits, and the messages of create and
// renameProperty.

import Foundation
import Testing

import OpenRealm

enum TallyV1 {
    final class Tally: Object {
        @Persisted var n: Int
        @Persisted var note: String?
    }

    final class Retired: Object {
        @Persisted var n: Int
    }
}

enum TallyV2 {
    final class Tally: Object {
        @Persisted var n: Int
        @Persisted var note: String?
    }

    final class Fresh: Object {
        @Persisted var n: Int
    }
}

enum TallyV3 {
    final class Tally: Object {
        @Persisted var n: Int
        @Persisted var remark: String
    }
}

enum KennelV1 {
    final class Kennel: Object {
        @Persisted var name: String
        @Persisted var pet: Pup?
        @Persisted var pets: List<Pup>
    }

    final class Pup: Object {
        @Persisted var good: Bool
    }
}

enum KennelV2 {
    final class Kennel: Object {
        @Persisted var name: String
        @Persisted var pet: Pup?
        @Persisted var pets: List<Pup>
        @Persisted var size: Int
    }

    final class Pup: Object {
        @Persisted var good: Bool
    }
}

/// What a migration block saw, for checking after it ran.
final class EnumerationRecord: @unchecked Sendable {
    var visits: [String: [String]] = [:]
}

/// Writes version 1: Tally n = 1, 2, 3 and Retired n = 1, 2.
private func writeTallies(_ url: URL) throws {
    let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [TallyV1.Tally.self, TallyV1.Retired.self]))
    try realm.write {
        for n in 1...3 { realm.add(TallyV1.Tally(value: ["n": n, "note": "note \(n)"])) }
        for n in 1...2 { realm.add(TallyV1.Retired(value: ["n": n])) }
    }
}

/// A visit as text: "old/new" with the values of n, "-" for nil.
private func visit(_ old: MigrationObject?, _ new: MigrationObject?) -> String {
    "\(old.map { "\($0["n"] as! Int)" } ?? "-")/\(new.map { "\($0["n"] as! Int)" } ?? "-")"
}

@Suite("Migrations as Realm")
struct MigrationParityTests {
    @Test("enumerateObjects skips deleted objects and visits removed and new classes last first")
    func enumerateAsRealm() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("tallies.realm")
            try writeTallies(url)
            let record = EnumerationRecord()
            let config = Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: { migration, _ in
                migration.enumerateObjects(ofType: "Tally") { old, new in
                    if old?["n"] as? Int == 2, let new { migration.delete(new) }
                }
                migration.enumerateObjects(ofType: "Tally") { old, new in
                    record.visits["Tally", default: []].append(visit(old, new))
                }
                migration.enumerateObjects(ofType: "Retired") { old, new in
                    record.visits["Retired", default: []].append(visit(old, new))
                }
                migration.create("Fresh", value: [5])
                migration.create("Fresh", value: ["n": 6])
                migration.enumerateObjects(ofType: "Fresh") { old, new in
                    record.visits["Fresh", default: []].append(visit(old, new))
                }
                migration.enumerateObjects(ofType: "NoSuchClass") { old, new in
                    record.visits["NoSuchClass", default: []].append(visit(old, new))
                }
            }, objectTypes: [TallyV2.Tally.self, TallyV2.Fresh.self])
            let realm = try Realm(configuration: config)
            #expect(record.visits["Tally"] == ["1/1", "3/3"])
            #expect(record.visits["Retired"] == ["2/-", "1/-"])
            #expect(record.visits["Fresh"] == ["-/6", "-/5"])
            #expect(record.visits["NoSuchClass"] == nil)
            #expect(realm.objects(TallyV2.Tally.self).map(\.n) == [1, 3])
        }
    }

    @Test("creating an object of a class the Realm does not manage stops with Realm's message")
    func createUnknownClass() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try withDirectory { directory in
                let url = directory.appendingPathComponent("tallies.realm")
                try writeTallies(url)
                _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, migrationBlock: { migration, _ in
                    migration.create("NoSuchObject", value: [])
                }, objectTypes: [TallyV2.Tally.self, TallyV2.Fresh.self]))
            }
        }
        expectStop(
            "Object type 'NoSuchObject' is not managed by the Realm. If using a custom `objectClasses` / `objectTypes` array in your configuration, add `NoSuchObject` to the list of `objectClasses` / `objectTypes`.",
            result)
    }

    @Test("renaming a property the new schema still has stops with realm-core's message")
    func renameSourceStillExists() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try withDirectory { directory in
                let url = directory.appendingPathComponent("tallies.realm")
                try writeTallies(url)
                _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, migrationBlock: { migration, _ in
                    migration.renameProperty(onType: "Tally", from: "n", to: "note")
                }, objectTypes: [TallyV2.Tally.self, TallyV2.Fresh.self]))
            }
        }
        expectStop("Cannot rename property 'Tally.n' to 'note' because the source property still exists.", result)
    }

    @Test("renaming an optional property to a required one stops with realm-core's message")
    func renameOptionalToRequired() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try withDirectory { directory in
                let url = directory.appendingPathComponent("tallies.realm")
                try writeTallies(url)
                _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, migrationBlock: { migration, _ in
                    migration.renameProperty(onType: "Tally", from: "note", to: "remark")
                }, objectTypes: [TallyV3.Tally.self]))
            }
        }
        expectStop("Cannot rename property 'Tally.note' to 'remark' because it would change from optional to required.", result)
    }

    @Test("renaming on a class the file lacks, or one the models removed, stops with realm-core's messages")
    func renameMissingClass() async {
        let missing = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try withDirectory { directory in
                let url = directory.appendingPathComponent("tallies.realm")
                try writeTallies(url)
                _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, migrationBlock: { migration, _ in
                    migration.renameProperty(onType: "Fresh", from: "a", to: "n")
                }, objectTypes: [TallyV2.Tally.self, TallyV2.Fresh.self]))
            }
        }
        expectStop("Cannot rename properties for type 'Fresh' because it does not exist.", missing)
        let removed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try withDirectory { directory in
                let url = directory.appendingPathComponent("tallies.realm")
                try writeTallies(url)
                _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, migrationBlock: { migration, _ in
                    migration.renameProperty(onType: "Retired", from: "n", to: "m")
                }, objectTypes: [TallyV2.Tally.self, TallyV2.Fresh.self]))
            }
        }
        expectStop("Cannot rename properties for type 'Retired' because it has been removed from the Realm.", removed)
    }

    @Test("a new object's link and list take model objects and created objects (MigrationTests.testMigrationObject)")
    func migrationObjectLinks() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("kennel.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [KennelV1.Kennel.self, KennelV1.Pup.self]))
                try realm.write {
                    let kennel = KennelV1.Kennel(value: ["name": "Tim", "pet": ["good": true]])
                    kennel.pets.append(KennelV1.Pup(value: ["good": false]))
                    realm.add(kennel)
                }
            }
            let record = EnumerationRecord()
            let config = Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: { migration, _ in
                migration.enumerateObjects(ofType: "Kennel") { _, new in
                    guard let new else { return }
                    let falseObject = KennelV2.Pup(value: ["good": false])
                    new["pet"] = falseObject
                    let list = new["pets"] as! List<MigrationObject>
                    list[0]["good"] = true
                    list.append(new["pet"] as! MigrationObject)
                    let trueObject = migration.create("Pup", value: [true])
                    list.append(trueObject)
                    record.visits["count", default: []].append("\((new["pets"] as! List<MigrationObject>).count)")
                    new["pets"] = [falseObject, trueObject]
                }
            }, objectTypes: [KennelV2.Kennel.self, KennelV2.Pup.self])
            let realm = try Realm(configuration: config)
            #expect(record.visits["count"] == ["3"])
            let kennel = try #require(realm.objects(KennelV2.Kennel.self).first)
            #expect(kennel.pet?.good == false)
            #expect(kennel.pets.map(\.good) == [false, true])
            #expect(kennel.pets.first?.isSameObject(as: kennel.pet) == true)
            #expect(realm.objects(KennelV2.Pup.self).count == 4)
        }
    }
}
