// MigrationAPITests.swift — the rest of Realm's migration API: schemaVersionAtURL,
// performMigration(for:), the old and new schemas, renaming collection properties, creating
// objects from arrays, deleting a class's data.

import Foundation
import Testing

import OpenRealm

enum ShelfV1 {
    final class Shelf: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var books: List<String>
        @Persisted var years: MutableSet<Int>
        @Persisted var notes: Map<String, String>
        @Persisted var neighbours: List<Shelf>
    }
}

enum ShelfV2 {
    final class Shelf: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var titles: List<String>
        @Persisted var printed: MutableSet<Int>
        @Persisted var remarks: Map<String, String>
        @Persisted var nextTo: List<Shelf>
        @Persisted var label: String
    }
}

/// Holds a few values a migration block saw (written in the block, read after it).
final class MigrationRecord: @unchecked Sendable {
    var oldSchema: Schema?
    var newSchema: Schema?
    var deletedUnknown: Bool?
    var deletedKnown: Bool?
    var runs = 0
}

@Suite("Migration API")
struct MigrationAPITests {
    private func writeVersion1(_ url: URL) throws {
        let realm = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, objectTypes: [ShelfV1.Shelf.self, Dog.self, Person.self, Address.self]))
        try realm.write {
            let first = ShelfV1.Shelf(value: ["id": 1])
            first.books.append(objectsIn: ["Emma", "Dracula", "Emma"])
            first.years.insert(objectsIn: [1815, 1897])
            first.notes["Emma"] = "Austen"
            let second = ShelfV1.Shelf(value: ["id": 2])
            second.neighbours.append(first)
            realm.add([first, second])
            realm.add(Dog(value: ["name": "Rex"]))
        }
    }

    private func configuration(_ url: URL, _ record: MigrationRecord) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: 3, migrationBlock: { migration, _ in
            record.runs += 1
            record.oldSchema = migration.oldSchema
            record.newSchema = migration.newSchema
            migration.renameProperty(onType: "Shelf", from: "books", to: "titles")
            migration.renameProperty(onType: "Shelf", from: "years", to: "printed")
            migration.renameProperty(onType: "Shelf", from: "notes", to: "remarks")
            migration.renameProperty(onType: "Shelf", from: "neighbours", to: "nextTo")
            migration.create("Shelf", value: [3, ["Persuasion"], [1817], ["Persuasion": "Austen"], [], "new"])
            migration.create("Shelf", value: [4])
            record.deletedUnknown = migration.deleteData(forType: "NoSuchClass")
            record.deletedKnown = migration.deleteData(forType: "Dog")
        }, objectTypes: [ShelfV2.Shelf.self, Dog.self, Person.self, Address.self])
    }

    @Test("schemaVersionAtURL reads the file's version; a missing file throws")
    func schemaVersionAtURLReadsVersion() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("shelves.realm")
            #expect(throws: Realm.Error.self) { try schemaVersionAtURL(url) }
            try writeVersion1(url)
            #expect(try schemaVersionAtURL(url) == 1)
            try Realm.performMigration(for: configuration(url, MigrationRecord()))
            #expect(try schemaVersionAtURL(url) == 3)
        }
    }

    @Test("performMigration(for:) runs the migration block once, before any Realm is used")
    func performMigrationRunsBlock() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("shelves.realm")
            try writeVersion1(url)
            let record = MigrationRecord()
            try Realm.performMigration(for: configuration(url, record))
            #expect(record.runs == 1)
            _ = try Realm(configuration: configuration(url, record))
            #expect(record.runs == 1)
        }
    }

    @Test("oldSchema is the file's, newSchema the models'")
    func oldAndNewSchema() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("shelves.realm")
            try writeVersion1(url)
            let record = MigrationRecord()
            _ = try Realm(configuration: configuration(url, record))
            let old = try #require(record.oldSchema?["Shelf"])
            #expect(old.properties.map(\.name).sorted() == ["books", "id", "neighbours", "notes", "years"])
            #expect(old["books"]?.isArray == true)
            #expect(old["years"]?.isSet == true)
            #expect(old["notes"]?.isMap == true)
            #expect(old["neighbours"]?.objectClassName == "Shelf")
            #expect(old.primaryKeyProperty?.name == "id")
            #expect(old.objectClass == DynamicObject.self)
            let new = try #require(record.newSchema?["Shelf"])
            #expect(new.properties.map(\.name) == ["id", "titles", "printed", "remarks", "nextTo", "label"])
            #expect(new == ShelfV2.Shelf().objectSchema)
            #expect(record.newSchema?["Dog"] != nil)
            #expect(record.oldSchema != record.newSchema)
        }
    }

    @Test("renameProperty carries lists, sets, maps and lists of links over")
    func renameCollections() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("shelves.realm")
            try writeVersion1(url)
            let realm = try Realm(configuration: configuration(url, MigrationRecord()))
            let first = try #require(realm.object(ofType: ShelfV2.Shelf.self, forPrimaryKey: 1))
            #expect(Array(first.titles) == ["Emma", "Dracula", "Emma"])
            #expect(Set(first.printed) == [1815, 1897])
            #expect(first.remarks["Emma"] == "Austen")
            let second = try #require(realm.object(ofType: ShelfV2.Shelf.self, forPrimaryKey: 2))
            #expect(second.nextTo.map(\.id) == [1])
        }
    }

    @Test("create takes an array of values in property order; deleteData tells whether the class existed")
    func createFromArrayAndDeleteData() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("shelves.realm")
            try writeVersion1(url)
            let record = MigrationRecord()
            let realm = try Realm(configuration: configuration(url, record))
            let third = try #require(realm.object(ofType: ShelfV2.Shelf.self, forPrimaryKey: 3))
            #expect(Array(third.titles) == ["Persuasion"])
            #expect(Array(third.printed) == [1817])
            #expect(third.remarks["Persuasion"] == "Austen")
            #expect(third.label == "new")
            let fourth = try #require(realm.object(ofType: ShelfV2.Shelf.self, forPrimaryKey: 4))
            #expect(fourth.label == "")
            #expect(fourth.titles.isEmpty)
            #expect(record.deletedUnknown == false)
            #expect(record.deletedKnown == true)
            #expect(realm.objects(Dog.self).isEmpty)
        }
    }

    @Test("an old object's collections are Realm's typed collections; a new object takes them")
    func typedOldCollections() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("shelves.realm")
            try writeVersion1(url)
            let seen = OldCollections()
            let config = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
                migration.enumerateObjects(ofType: "Shelf") { old, new in
                    guard let old, let new else { return }
                    let books = old["books"] as! List<String>
                    let years = old["years"] as! MutableSet<Int>
                    let notes = old["notes"] as! Map<String, String>
                    let neighbours = old["neighbours"] as! List<MigrationObject>
                    seen.books[old["id"] as! Int] = Array(books)
                    seen.years[old["id"] as! Int] = Set(years)
                    seen.notes[old["id"] as! Int] = notes["Emma"]
                    seen.neighbours[old["id"] as! Int] = neighbours.map { $0["id"] as! Int }
                    new["titles"] = books
                    new["printed"] = years
                    new["remarks"] = notes
                }
            }, objectTypes: [ShelfV2.Shelf.self, Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: config)
            #expect(seen.books == [1: ["Emma", "Dracula", "Emma"], 2: []])
            #expect(seen.years == [1: [1815, 1897], 2: []])
            #expect(seen.notes == [1: "Austen", 2: nil])
            #expect(seen.neighbours == [1: [], 2: [1]])
            let first = try #require(realm.object(ofType: ShelfV2.Shelf.self, forPrimaryKey: 1))
            #expect(Array(first.titles) == ["Emma", "Dracula", "Emma"])
            #expect(Set(first.printed) == [1815, 1897])
            #expect(first.remarks["Emma"] == "Austen")
        }
    }
}

extension MigrationAPITests {
    @Test("a new object's collections are Realm's typed collections; changes to them are written")
    func typedNewCollections() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("shelves.realm")
            try writeVersion1(url)
            let seen = OldCollections()
            let config = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
                migration.enumerateObjects(ofType: "Shelf") { old, new in
                    guard let old, let new else { return }
                    let id = old["id"] as! Int
                    let titles = new["titles"] as! List<String>
                    titles.append(objectsIn: old["books"] as! List<String>)
                    titles.append("Ivanhoe")
                    (new["printed"] as! MutableSet<Int>).insert(1814)
                    (new["remarks"] as! Map<String, String>)["Ivanhoe"] = "Scott"
                    // As Realm: nil empties a collection.
                    if id == 2 { new["printed"] = nil }
                    // Read again: the writes are in the object.
                    seen.books[id] = Array(new["titles"] as! List<String>)
                    seen.years[id] = Set(new["printed"] as! MutableSet<Int>)
                    seen.notes[id] = (new["remarks"] as! Map<String, String>)["Ivanhoe"]
                }
                let created = migration.create("Shelf", value: ["id": 9])
                migration.enumerateObjects(ofType: "Shelf") { old, new in
                    guard old?["id"] as? Int == 2, let new else { return }
                    (created["nextTo"] as! List<MigrationObject>).append(new)
                }
                seen.neighbours[9] = (created["nextTo"] as! List<MigrationObject>).map { $0["id"] as! Int }
            }, objectTypes: [ShelfV2.Shelf.self, Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: config)
            #expect(seen.books == [1: ["Emma", "Dracula", "Emma", "Ivanhoe"], 2: ["Ivanhoe"]])
            #expect(seen.years == [1: [1814], 2: []])
            #expect(seen.notes == [1: "Scott", 2: "Scott"])
            #expect(seen.neighbours == [9: [2]])
            let first = try #require(realm.object(ofType: ShelfV2.Shelf.self, forPrimaryKey: 1))
            #expect(Array(first.titles) == ["Emma", "Dracula", "Emma", "Ivanhoe"])
            #expect(Array(first.printed) == [1814] && first.remarks["Ivanhoe"] == "Scott")
            let created = try #require(realm.object(ofType: ShelfV2.Shelf.self, forPrimaryKey: 9))
            #expect(created.nextTo.map(\.id) == [2])
        }
    }
}

/// What a migration block read from the old objects' collections.
final class OldCollections: @unchecked Sendable {
    var books: [Int: [String]] = [:]
    var years: [Int: Set<Int>] = [:]
    var notes: [Int: String?] = [:]
    var neighbours: [Int: [Int]] = [:]
}
