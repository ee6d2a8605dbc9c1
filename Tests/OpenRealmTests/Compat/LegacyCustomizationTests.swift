// LegacyCustomizationTests.swift — Object's class methods of Realm's legacy model customization
// (primaryKey(), indexedProperties(), ignoredProperties()): their defaults, and overrides on
// @Persisted models read as Realm reads them.

import Foundation
import Testing

import OpenRealm

/// A @Persisted model that names its primary key and an index the legacy way.
final class LegacyKeyed: Object {
    @Persisted var code: String
    @Persisted var title: String
    @Persisted var rank: Int
    override class func primaryKey() -> String? { "code" }
    override class func indexedProperties() -> [String] { ["title"] }
}

/// A primary key override naming no property (kept out of the default schema: used alone).
final class LegacyMissingKey: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var code: String
    override class func primaryKey() -> String? { "nope" }
}

/// A primary key override that names another property than @Persisted(primaryKey: true).
final class LegacyTwoKeys: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var code: String
    override class func primaryKey() -> String? { "code" }
}

@Suite("Legacy model customization")
struct LegacyCustomizationTests {
    // Realm's Object: primaryKey() "returns: The name of the property designated as the primary
    // key, or `nil` if the model has no primary key" (nil by default: @Persisted(primaryKey:)
    // does not override it); ignoredProperties() and indexedProperties() return [] by default.
    @Test("the defaults are Realm's")
    func defaults() {
        #expect(Dog.primaryKey() == nil)
        #expect(Person.primaryKey() == nil)
        #expect(Dog.ignoredProperties().isEmpty)
        #expect(Person.indexedProperties().isEmpty)
    }

    // RLMObjectSchema reads [objectClass primaryKey] for every class: the named property becomes
    // the (indexed) primary key; indexedProperties() names indexed properties.
    @Test("overrides name the primary key and the indexes")
    func overrides() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "legacy-\(UUID().uuidString)", objectTypes: [LegacyKeyed.self]))
        let schema = try #require(realm.schema["LegacyKeyed"])
        #expect(schema.primaryKeyProperty?.name == "code")
        #expect(schema["title"]?.isIndexed == true)
        #expect(schema["rank"]?.isIndexed == false)
        try realm.write {
            realm.create(LegacyKeyed.self, value: ["code": "a", "title": "x"])
            realm.create(LegacyKeyed.self, value: ["code": "a", "title": "y"], update: .modified)
        }
        #expect(realm.objects(LegacyKeyed.self).count == 1)
        #expect(realm.object(ofType: LegacyKeyed.self, forPrimaryKey: "a")?.title == "y")
    }

    @Test("a primary key override naming no property stops with Realm's message")
    func missingKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "legacy-missing", objectTypes: [LegacyMissingKey.self]))
        }
        expectStop("Primary key property 'nope' does not exist on object 'LegacyMissingKey'", result)
    }

    @Test("two primary keys stop with Realm's message")
    func twoKeys() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "legacy-two", objectTypes: [LegacyTwoKeys.self]))
        }
        expectStop("Properties 'id' and 'code' are both marked as the primary key of 'LegacyTwoKeys'.", result)
    }
}
