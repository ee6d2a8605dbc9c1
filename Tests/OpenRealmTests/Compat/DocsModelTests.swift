// DocsModelTests.swift — what Realm Swift's guide ("Define a Realm Object Model", "Supported
// Types", "Change an Object Model") and API reference (Map, List, MutableSet, LinkingObjects,
// Migration) say of models, their collections and schema changes.

import Foundation
import Testing

import OpenRealm

/// A mood stored as its raw value.
enum DocsMood: String, PersistableEnum {
    case calm, busy
}

/// Properties of the kinds the guide lists: defaults, optionals, an ignored property, an enum,
/// a map, a set and a list of values.
final class DocsShelter: Object {
    @Persisted(primaryKey: true) var code: String
    @Persisted var capacity = 12
    @Persisted var nickname: String?
    @Persisted var mood: DocsMood = .busy
    @Persisted var food: Map<String, Int?>
    @Persisted var residents: Map<String, DocsPet?>
    @Persisted var tags: MutableSet<String>
    @Persisted var ratings: List<Double>
    /// Not persisted: no @Persisted.
    var visitorsToday = 0
}

/// Version 1 of a migrated class, then version 2 (the same name in the file).
final class DocsVisitorV1: Object {
    override class func _realmObjectName() -> String? { "DocsVisitor" }
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var yearsSinceBirth: Int
    @Persisted var badge: Int
}

final class DocsVisitorV2: Object {
    override class func _realmObjectName() -> String? { "DocsVisitor" }
    @Persisted var fullName: String
    @Persisted var age: Int
    @Persisted var badge: String
    @Persisted var email: String?
}

private func shelterRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "docs-\(UUID().uuidString)",
                                   objectTypes: [DocsShelter.self, DocsPet.self, DocsKeeper.self, DocsContact.self]))
}

@Suite("Realm's documentation: models, collections and schema changes", .serialized)
struct DocsModelTests {
    // "Supported Types": defaults from the property's initial value, optionals hold nil, an
    // enum is stored by raw value and queried by it; a property without @Persisted is not
    // stored.
    @Test("defaults, optionals, enums and an ignored property")
    func propertyKinds() throws {
        let realm = try shelterRealm()
        let shelter = DocsShelter(value: ["code": "A"])
        shelter.visitorsToday = 5
        try realm.write { realm.add(shelter) }
        let read = try #require(realm.object(ofType: DocsShelter.self, forPrimaryKey: "A"))
        #expect(read.capacity == 12 && read.nickname == nil && read.mood == .busy)
        try realm.write {
            read.mood = .calm
            read.nickname = "Home"
        }
        #expect(realm.objects(DocsShelter.self).filter("mood == 'calm'").count == 1)
        #expect(realm.objects(DocsShelter.self).where { $0.mood == .calm }.count == 1)
        try realm.write { read.nickname = nil }
        #expect(realm.objects(DocsShelter.self).filter("nickname == nil").count == 1)
        // A fresh accessor of the stored object does not have the ignored value.
        let other = try #require(try shelterRealmCopy(realm).first)
        #expect(other.visitorsToday == 0)
    }

    private func shelterRealmCopy(_ realm: Realm) throws -> Results<DocsShelter> {
        try Realm(configuration: realm.configuration).objects(DocsShelter.self)
    }

    // Map: "If the value assigned for a key is nil, the key will be removed from the map";
    // an unmanaged object added to a managed map is added to the Realm; removeAll() does not
    // delete the objects.
    @Test("Map: nil removes a key, unmanaged objects are added, removeAll keeps objects")
    func mapBehaviour() throws {
        let realm = try shelterRealm()
        let shelter = try realm.write { realm.create(DocsShelter.self, value: ["code": "M"]) }
        try realm.write {
            shelter.food["kibble"] = 3
            shelter.food["treats"] = .some(nil)
        }
        #expect(shelter.food.count == 2)
        #expect(shelter.food["treats"] == .some(nil))
        try realm.write { shelter.food["kibble"] = nil }
        #expect(shelter.food.keys == ["treats"])
        try realm.write { shelter.residents["front"] = DocsPet(value: ["name": "Rex"]) }
        #expect(realm.objects(DocsPet.self).count == 1)
        #expect(shelter.residents["front"]??.realm != nil)
        try realm.write { shelter.residents.removeAll() }
        #expect(shelter.residents.isEmpty)
        #expect(realm.objects(DocsPet.self).count == 1)
        // Deleting the object a map links to leaves its key with nil.
        try realm.write {
            shelter.residents["back"] = realm.objects(DocsPet.self).first
            realm.delete(realm.objects(DocsPet.self))
        }
        #expect(shelter.residents.count == 1)
        #expect(shelter.residents["back"] == .some(nil))
    }

    // MutableSet keeps one of each value; List keeps order and duplicates.
    @Test("MutableSet keeps distinct values; List keeps order and duplicates")
    func setAndList() throws {
        let realm = try shelterRealm()
        let shelter = try realm.write { realm.create(DocsShelter.self, value: ["code": "S"]) }
        try realm.write {
            shelter.tags.insert("quiet")
            shelter.tags.insert("quiet")
            shelter.tags.insert(objectsIn: ["big", "quiet"])
            shelter.ratings.append(objectsIn: [4.5, 2.0, 4.5])
        }
        #expect(shelter.tags.count == 2)
        #expect(shelter.tags.contains("big"))
        #expect(Array(shelter.ratings) == [4.5, 2.0, 4.5])
        let other = MutableSet<String>()
        other.insert(objectsIn: ["big", "new"])
        #expect(shelter.tags.intersects(other))
        try realm.write { shelter.tags.formUnion(other) }
        #expect(Set(shelter.tags) == ["big", "new", "quiet"])
        #expect(shelter.ratings.max() == 4.5 && shelter.ratings.sum() == 11.0)
    }

    // "Inverse Relationships": LinkingObjects are computed and live.
    @Test("LinkingObjects follow the links as they change")
    func inverseRelationship() throws {
        let realm = try shelterRealm()
        let pet = try realm.write { realm.create(DocsPet.self, value: ["name": "Rex"]) }
        #expect(pet.keepers.isEmpty)
        let keeper = try realm.write { realm.create(DocsKeeper.self, value: ["id": 1, "name": "Ann", "pets": [pet]]) }
        #expect(pet.keepers.map(\.name) == ["Ann"])
        try realm.write { realm.create(DocsKeeper.self, value: ["id": 2, "name": "Bo", "pets": [pet, pet]]) }
        #expect(pet.keepers.count == 3)
        try realm.write { keeper.pets.removeAll() }
        #expect(pet.keepers.map(\.name) == ["Bo", "Bo"])
    }

    // Managed objects: two accessors of one object are equal and the same object.
    @Test("two reads of one object are equal; isSameObject")
    func identity() throws {
        let realm = try shelterRealm()
        try realm.write { realm.create(DocsShelter.self, value: ["code": "I"]) }
        let a = try #require(realm.object(ofType: DocsShelter.self, forPrimaryKey: "I"))
        let b = try #require(realm.objects(DocsShelter.self).first)
        #expect(a == b)
        #expect(a.isSameObject(as: b))
        #expect(!DocsShelter().isSameObject(as: DocsShelter()))
    }

    // "Change an Object Model": a changed model without a higher schema version fails to open
    // with .schemaMismatch and Realm's list of changes.
    @Test("a changed model without a new schema version throws schemaMismatch")
    func mismatchWithoutVersion() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("visitors.realm")
            do { _ = try Realm(configuration: .init(fileURL: url, objectTypes: [DocsVisitorV1.self])) }
            waitUntilClosedEverywhere(url)
            do {
                _ = try Realm(configuration: .init(fileURL: url, objectTypes: [DocsVisitorV2.self]))
                Issue.record("opened a changed model without a migration")
            } catch let error as Realm.Error {
                #expect(error.code == .schemaMismatch)
                let text = error.localizedDescription
                #expect(text.hasPrefix("Migration is required due to the following errors:"))
                #expect(text.contains("Property 'DocsVisitor.fullName' has been added."))
                #expect(text.contains("Property 'DocsVisitor.firstName' has been removed."))
                #expect(text.contains("Property 'DocsVisitor.badge' has been changed from 'int' to 'string'."))
            }
        }
    }

    // "Rename a Property", "Modify Properties" (combine two into one, change a type), "Add a
    // property": the guide's migration block.
    @Test("a migration renames, combines and converts properties; a new one gets its default")
    func migration() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("visitors.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [DocsVisitorV1.self]))
                try realm.write {
                    realm.create(DocsVisitorV1.self, value: ["firstName": "Ada", "lastName": "Byron",
                                                             "yearsSinceBirth": 36, "badge": 7])
                }
            }
            waitUntilClosedEverywhere(url)
            let configuration = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, oldVersion in
                #expect(oldVersion == 0)
                migration.renameProperty(onType: "DocsVisitor", from: "yearsSinceBirth", to: "age")
                migration.enumerateObjects(ofType: "DocsVisitor") { old, new in
                    guard let old, let new else { return }
                    new["fullName"] = "\(old["firstName"] as! String) \(old["lastName"] as! String)"
                    new["badge"] = "#\(old["badge"] as! Int)"
                }
            }, objectTypes: [DocsVisitorV2.self])
            let realm = try Realm(configuration: configuration)
            let visitor = try #require(realm.objects(DocsVisitorV2.self).first)
            #expect(visitor.fullName == "Ada Byron")
            #expect(visitor.age == 36)
            #expect(visitor.badge == "#7")
            #expect(visitor.email == nil)
            #expect(try schemaVersionAtURL(url) == 2)
        }
    }

    // deleteRealmIfMigrationNeeded: the file is deleted and opened anew instead of migrating.
    @Test("deleteRealmIfMigrationNeeded deletes the data of a changed model")
    func deleteIfMigrationNeeded() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("visitors.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [DocsVisitorV1.self]))
                try realm.write { realm.create(DocsVisitorV1.self, value: ["firstName": "Ada"]) }
            }
            waitUntilClosedEverywhere(url)
            let realm = try Realm(configuration: .init(fileURL: url, deleteRealmIfMigrationNeeded: true,
                                                       objectTypes: [DocsVisitorV2.self]))
            #expect(realm.objects(DocsVisitorV2.self).isEmpty)
            try realm.write { realm.create(DocsVisitorV2.self, value: ["fullName": "New"]) }
            #expect(realm.objects(DocsVisitorV2.self).count == 1)
        }
    }
}
