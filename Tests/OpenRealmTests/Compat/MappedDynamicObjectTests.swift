// MappedDynamicObjectTests.swift — dynamic objects of a class with propertiesMapping() read and
// write its properties by their Swift names, and list the persisted names as columnName, as in
// Realm Swift (its CustomColumnNameTests).

import Foundation
import Testing

import OpenRealm

@Suite("Mapped properties of dynamic objects")
struct MappedDynamicObjectTests {
    private func realm() throws -> Realm {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "mapped-dynamic-\(UUID().uuidString)",
                                                   objectTypes: [MappedPerson.self, MappedDog.self, MappedAddress.self, Gauge.self]))
        try realm.write {
            let ada = MappedPerson(value: ["personId": 1, "firstName": "Ada", "age": 36] as [String: Any])
            realm.add(ada)
            let g = realm.create(Gauge.self)
            g.mixed = .object(ada)
        }
        return realm
    }

    @Test("a dynamic object reads and writes a mapped property by its Swift name")
    func subscriptByName() throws {
        let realm = try realm()
        let person = try #require(realm.dynamicObjects("MappedPerson").first)
        try realm.write { person[_name(for: \MappedPerson.firstName)] = "Ann" }
        #expect(person["firstName"] as? String == "Ann")
        try realm.write { person.setValue("Bea", forUndefinedKey: "firstName") }
        #expect(person.value(forUndefinedKey: "firstName") as? String == "Bea")
        try realm.write { person.age = 40 }
        #expect(person.age as? Int == 40)
        #expect(person.objectSchema.properties.map(\.columnName).contains("first_name"))
    }

    @Test("an object held by an AnyRealmValue reads its mapped properties by their Swift names")
    func mixedHeldObject() throws {
        let realm = try realm()
        let holder = try #require(realm.objects(Gauge.self).first)
        let held = try #require(holder.mixed.dynamicObject)
        try realm.write { held["firstName"] = "Cid" }
        #expect(held["firstName"] as? String == "Cid")
        #expect(realm.objects(MappedPerson.self).first?.firstName == "Cid")
    }
}
