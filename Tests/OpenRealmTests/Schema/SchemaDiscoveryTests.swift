// SchemaDiscoveryTests.swift — a Realm without objectTypes knows every model class of the
// program when it opens: its schema lists them before their first use, a changed model needs a
// schema version bump, and Realm's documented migration example runs.

import Foundation
import Testing

import OpenRealm

/// Used by no other test: the schema must list it although nothing touched the class.
final class DiscoveredPet: Object {
    @Persisted var name: String
    @Persisted var tags: List<DiscoveredTag>
}

final class DiscoveredTag: EmbeddedObject {
    @Persisted var label: String
}

/// A file-private model class is a model class of the program too.
private final class PrivateDiscovered: Object {
    @Persisted var value: Int
}

/// Left out of the default schema by `_realmIgnoreClass()`.
final class IgnoredModel: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var value: Int
}

/// Realm's migration example, before: `firstName`, `lastName` and `age`. Ignored: it is the
/// same class ("MigrationExamplePerson" in the file) as it was before the migration.
final class MigrationExamplePersonV0: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    override class func _realmObjectName() -> String? { "MigrationExamplePerson" }
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var age: Int
}

/// Realm's migration example, after: `fullName` replaces the two names.
final class MigrationExamplePerson: Object {
    @Persisted var fullName: String
    @Persisted var age: Int
}

@Suite("Schema discovery")
struct SchemaDiscoveryTests {
    @Test("the default schema lists every model class before its first use")
    func schemaListsUnusedClasses() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "discovery-\(UUID().uuidString)"))
        let pet = try #require(realm.schema["DiscoveredPet"])
        #expect(pet.properties.map(\.name) == ["name", "tags"])
        #expect(pet.properties[1].objectClassName == "DiscoveredTag")
        #expect(realm.schema["DiscoveredTag"]?.isEmbedded == true)
        #expect(realm.schema["PrivateDiscovered"] != nil)
        #expect(realm.schema["MigrationExamplePerson"] != nil)
        #expect(realm.schema["StringKeyed"] != nil)
        // Subclasses of model classes are model classes too.
        #expect(realm.schema["Animal"] != nil)
        #expect(realm.schema["Cat"]?.properties.map(\.name) == ["species", "lives"])
        // A name two classes have (the test models' "Item" versions) is left out.
        #expect(realm.schema["Item"] == nil)
        #expect(realm.schema["IgnoredModel"] == nil)
        #expect(realm.schema["MigrationExamplePersonV0"] == nil)
        // Object, EmbeddedObject and DynamicObject are not model classes.
        #expect(realm.schema["Object"] == nil)
        #expect(realm.schema["EmbeddedObject"] == nil)
        #expect(realm.schema["DynamicObject"] == nil)
        // Each class once, in name order.
        let names = realm.schema.objectSchema.map(\.className)
        #expect(names == names.sorted())
        #expect(Set(names).count == names.count)
    }

    @Test("objectTypes still restricts the schema")
    func objectTypesRestricts() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "discovery-\(UUID().uuidString)", objectTypes: [StringKeyed.self]))
        #expect(realm.schema.objectSchema.map(\.className) == ["StringKeyed"])
        #expect(realm.schema["DiscoveredPet"] == nil)
    }

    @Test("an ignored class is still used when objectTypes lists it")
    func ignoredClassListed() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "discovery-\(UUID().uuidString)", objectTypes: [IgnoredModel.self]))
        try realm.write { realm.add(IgnoredModel(value: ["value": 3])) }
        #expect(realm.objects(IgnoredModel.self).first?.value == 3)
    }

    @Test("a model changed without a schema version bump throws schemaMismatch when the Realm opens")
    func changedModelNeedsVersionBump() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("people.realm")
            try writeVersion0(url)
            #expect {
                _ = try Realm(configuration: .init(fileURL: url))
            } throws: { error in
                guard let error = error as? Realm.Error, error.code == .schemaMismatch else { return false }
                return error.message.hasPrefix("Migration is required due to the following errors:")
                    && error.message.contains("- Property 'MigrationExamplePerson.fullName' has been added.")
                    && error.message.contains("- Property 'MigrationExamplePerson.firstName' has been removed.")
            }
        }
    }

    @Test("Realm's documented migration example runs without objectTypes")
    func documentedMigrationExample() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("people.realm")
            try writeVersion0(url)
            let config = Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: { migration, oldSchemaVersion in
                if oldSchemaVersion < 1 {
                    migration.enumerateObjects(ofType: MigrationExamplePerson.className()) { oldObject, newObject in
                        let firstName = oldObject!["firstName"] as! String
                        let lastName = oldObject!["lastName"] as! String
                        newObject!["fullName"] = "\(firstName) \(lastName)"
                    }
                }
            })
            let realm = try Realm(configuration: config)
            let people = realm.objects(MigrationExamplePerson.self).sorted(byKeyPath: "age")
            #expect(people.map(\.fullName) == ["Bo Berg", "Ann Lee"])
            #expect(people.map(\.age) == [16, 34])
        }
    }

    private func writeVersion0(_ url: URL) throws {
        let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [MigrationExamplePersonV0.self]))
        try realm.write {
            realm.add(MigrationExamplePersonV0(value: ["firstName": "Ann", "lastName": "Lee", "age": 34]))
            realm.add(MigrationExamplePersonV0(value: ["firstName": "Bo", "lastName": "Berg", "age": 16]))
        }
    }
}
