// SchemaTests.swift — models against the file's schema: mismatches throw .schemaMismatch with
// Realm's list of differences; a bumped schemaVersion applies additive (and automatic) changes.

import Foundation
import Testing

import OpenRealm

@Suite("Schema versions and mismatches")
struct SchemaTests {
    /// Opens `url` with `types` and `version`, runs `body`, and releases the Realm (closing the
    /// file) before returning.
    private func withRealm<R>(_ url: URL, _ types: [ObjectBase.Type], version: UInt64 = 0,
                              deleteIfNeeded: Bool = false, _ body: (Realm) throws -> R) throws -> R {
        let realm = try Realm(configuration: .init(
            fileURL: url, schemaVersion: version, deleteRealmIfMigrationNeeded: deleteIfNeeded, objectTypes: types))
        return try body(realm)
    }

    private func open(_ url: URL, _ types: [ObjectBase.Type], version: UInt64 = 0) throws {
        _ = try Realm(configuration: .init(fileURL: url, schemaVersion: version, objectTypes: types))
    }

    @Test("a new property without a version bump throws schemaMismatch listing it")
    func addedPropertyNeedsVersion() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("items.realm")
            try withRealm(url, [V1.Item.self]) { realm in
                try realm.write { realm.add(V1.Item(value: ["name": "a", "count": 1])) }
            }
            #expect {
                try open(url, [V2.Item.self])
            } throws: { error in
                guard let error = error as? Realm.Error else { return false }
                return error.code == .schemaMismatch
                    && error.message == "Migration is required due to the following errors:\n- Property 'Item.price' has been added."
            }
        }
    }

    @Test("with a bumped schemaVersion, additive changes apply and existing objects get defaults")
    func bumpedVersionAddsProperty() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("items.realm")
            try withRealm(url, [V1.Item.self]) { realm in
                try realm.write { realm.add(V1.Item(value: ["name": "a", "count": 1])) }
            }
            try withRealm(url, [V2.Item.self], version: 1) { realm in
                let item = try #require(realm.objects(V2.Item.self).first)
                #expect(item.name == "a")
                #expect(item.count == 1)
                #expect(item.price == 0)
                try realm.write { item.price = 9.5 }
            }
            try withRealm(url, [V2.Item.self], version: 1) { realm in
                #expect(realm.objects(V2.Item.self).first?.price == 9.5)
            }
        }
    }

    @Test("removed and changed properties are listed; a version bump removes or replaces them")
    func removedAndChanged() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("items.realm")
            try withRealm(url, [V2.Item.self]) { realm in
                try realm.write { realm.add(V2.Item(value: ["name": "a", "count": 1, "price": 2.0])) }
            }
            #expect {
                try open(url, [V3.Item.self])
            } throws: { error in
                let message = (error as? Realm.Error)?.message ?? ""
                return (error as? Realm.Error)?.code == .schemaMismatch
                    && message.contains("- Property 'Item.count' has been changed from 'int' to 'string?'.")
                    && message.contains("- Property 'Item.price' has been removed.")
            }
            try withRealm(url, [V3.Item.self], version: 1) { realm in
                let item = try #require(realm.objects(V3.Item.self).first)
                #expect(item.name == "a")
                #expect(item.count == nil)
                #expect(item.objectSchema.properties.map(\.name) == ["name", "count"])
            }
        }
    }

    @Test("a lower schemaVersion than the file's throws schemaMismatch")
    func lowerVersion() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("items.realm")
            try open(url, [V1.Item.self], version: 3)
            #expect {
                try open(url, [V1.Item.self], version: 2)
            } throws: { error in
                (error as? Realm.Error)?.code == .schemaMismatch
                    && (error as? Realm.Error)?.message == "Provided schema version 2 is less than last set version 3."
            }
        }
    }

    @Test("deleteRealmIfMigrationNeeded starts again with an empty file")
    func deleteIfMigrationNeeded() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("items.realm")
            try withRealm(url, [V1.Item.self]) { realm in
                try realm.write { realm.add(V1.Item()) }
            }
            try withRealm(url, [V2.Item.self], deleteIfNeeded: true) { realm in
                #expect(realm.objects(V2.Item.self).isEmpty)
                try realm.write { realm.add(V2.Item(value: ["price": 1.0])) }
                #expect(realm.objects(V2.Item.self).count == 1)
            }
        }
    }

    @Test("a new class needs no version bump")
    func newClassIsAdditive() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("app.realm")
            try withRealm(url, [V1.Item.self]) { realm in
                try realm.write { realm.add(V1.Item()) }
            }
            try withRealm(url, [V1.Item.self, Dog.self]) { realm in
                try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
                #expect(realm.objects(V1.Item.self).count == 1)
                #expect(realm.objects(Dog.self).count == 1)
            }
        }
    }
}

@Suite("Migrations")
struct MigrationTests {
    @Test("a migration block reads the old objects and writes the new ones, changed types included")
    func migrationBlock() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("contacts.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [ContactV1.Contact.self]))
                try realm.write {
                    realm.add(ContactV1.Contact(value: ["id": 1, "first": "Ada", "last": "Lovelace", "age": "36"]))
                    realm.add(ContactV1.Contact(value: ["id": 2, "first": "Tim", "last": "Small", "age": "9"]))
                }
            }
            let seen = ResultBox<UInt64>()
            let config = Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: { migration, oldVersion in
                seen.result = .success(oldVersion)
                migration.enumerateObjects(ofType: "Contact") { old, new in
                    guard let old, let new else { return }
                    new["fullName"] = "\(old["first"] as? String ?? "") \(old["last"] as? String ?? "")"
                    let age = Int(old["age"] as? String ?? "") ?? 0
                    new.age = age
                    new["isAdult"] = age >= 18
                }
            }, objectTypes: [ContactV2.Contact.self])
            let realm = try Realm(configuration: config)
            #expect(try seen.result?.get() == 0)
            let ada = try #require(realm.object(ofType: ContactV2.Contact.self, forPrimaryKey: 1))
            #expect(ada.fullName == "Ada Lovelace")
            #expect(ada.age == 36)
            #expect(ada.isAdult)
            let tim = try #require(realm.object(ofType: ContactV2.Contact.self, forPrimaryKey: 2))
            #expect(tim.age == 9)
            #expect(!tim.isAdult)
        }
    }

    @Test("renameProperty carries values over; create, delete and deleteData")
    func renameAndCreate() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("contacts.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [ContactV2.Contact.self, Dog.self, Person.self, Address.self]))
                try realm.write {
                    realm.add(ContactV2.Contact(value: ["id": 1, "fullName": "Ada", "age": 36]))
                    realm.add(ContactV2.Contact(value: ["id": 2, "fullName": "Gone", "age": 1]))
                    realm.add(Dog(value: ["name": "Rex"]))
                }
            }
            let config = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
                migration.renameProperty(onType: "Contact", from: "fullName", to: "name")
                migration.enumerateObjects(ofType: "Contact") { old, new in
                    if old?["id"] as? Int == 2, let new { migration.delete(new) }
                }
                migration.create("Contact", value: ["id": 3, "name": "New", "age": 5])
                migration.deleteData(forType: "Dog")
            }, objectTypes: [ContactV3.Contact.self, Dog.self, Person.self, Address.self])
            let realm = try Realm(configuration: config)
            let contacts = realm.objects(ContactV3.Contact.self)
            #expect(contacts.map(\.name) == ["Ada", "New"])
            #expect(contacts.map(\.age) == [36, 5])
            #expect(realm.objects(Dog.self).isEmpty)
        }
    }
}
