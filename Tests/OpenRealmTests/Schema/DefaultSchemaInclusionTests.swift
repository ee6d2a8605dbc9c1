// DefaultSchemaInclusionTests.swift — `shouldIncludeInDefaultSchema()` keeps a class out of the
// default schema, as Realm's RLMObjectBase method does; `objectTypes` still takes it.

import Foundation
import Testing

import OpenRealm

/// A base class of models that no Realm manages by itself (a common pattern in apps).
class StampedBase: Object {
    @Persisted var stamp: Int
    override class func shouldIncludeInDefaultSchema() -> Bool { self != StampedBase.self }
}

/// A subclass of the base: in the default schema, with the base's property.
final class StampedNote: StampedBase {
    @Persisted var text: String
}

@Suite("shouldIncludeInDefaultSchema")
struct DefaultSchemaInclusionTests {
    @Test("a class whose shouldIncludeInDefaultSchema() is false is not in the default schema")
    func excludedFromDefaultSchema() throws {
        #expect(Object.shouldIncludeInDefaultSchema())
        #expect(!StampedBase.shouldIncludeInDefaultSchema())
        #expect(StampedNote.shouldIncludeInDefaultSchema())
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "inclusion-\(UUID().uuidString)"))
        #expect(realm.schema["StampedBase"] == nil)
        #expect(realm.schema["StampedNote"]?.properties.map(\.name) == ["stamp", "text"])
        try realm.write { realm.add(StampedNote(value: ["stamp": 2, "text": "a"])) }
        #expect(realm.objects(StampedNote.self).first?.stamp == 2)
    }

    @Test("objectTypes still takes a class left out of the default schema")
    func objectTypesTakesExcludedClass() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "inclusion-\(UUID().uuidString)",
                                                   objectTypes: [StampedBase.self]))
        #expect(realm.schema.objectSchema.map(\.className) == ["StampedBase"])
        try realm.write { realm.add(StampedBase(value: ["stamp": 7])) }
        #expect(realm.objects(StampedBase.self).first?.stamp == 7)
    }
}
