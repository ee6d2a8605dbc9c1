// SchemaMessageTests.swift — a class outside a Realm's `objectTypes` stops with Realm's messages,
// word for word (RLMSchemaInfo's for reads, RLMAddObjectToRealm's for add).

import Foundation
import Testing

import OpenRealm

@Suite("Classes outside the schema: Realm's messages")
struct SchemaMessageTests {
    // RLMSchemaInfo::operator[]: "Object type '%@' is not managed by the Realm. If using a custom
    // `objectClasses` / `objectTypes` array in your configuration, add `%@` to the list of
    // `objectClasses` / `objectTypes`."
    @Test("objects(_:) of a class not in objectTypes")
    func objectsOutsideSchema() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "schema-message-objects", objectTypes: [StringKeyed.self]))
            _ = realm.objects(Dog.self).count
        }
        expectStop("Object type 'Dog' is not managed by the Realm. If using a custom `objectClasses` / `objectTypes` array in your configuration, add `Dog` to the list of `objectClasses` / `objectTypes`.", result)
    }

    // RLMAddObjectToRealm: "Object type '%@' is not persisted in the Realm. If using a custom
    // `objectClasses` / `objectTypes` array in your configuration, add `%@` to the list of
    // `objectClasses` / `objectTypes`."
    @Test("add(_:) of a class not in objectTypes")
    func addOutsideSchema() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "schema-message-add", objectTypes: [StringKeyed.self]))
            try realm.write { realm.add(Dog()) }
        }
        expectStop("Object type 'Dog' is not persisted in the Realm. If using a custom `objectClasses` / `objectTypes` array in your configuration, add `Dog` to the list of `objectClasses` / `objectTypes`.", result)
    }
}
