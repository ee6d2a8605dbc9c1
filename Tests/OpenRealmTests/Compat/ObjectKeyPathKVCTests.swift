// ObjectKeyPathKVCTests.swift — the key-value coding Realm's objects have from NSObject beyond
// value(forKey:): key paths, setValuesForKeys and dictionaryWithValues(forKeys:).

import Foundation
import Testing

import OpenRealm

@Suite("Key paths and several keys on objects")
struct ObjectKeyPathKVCTests {
    private func realm() throws -> Realm {
        try Realm(configuration: .init(inMemoryIdentifier: "kvc-paths-\(UUID().uuidString)"))
    }

    @Test("value(forKeyPath:) follows links and maps lists, unmanaged and managed")
    func valueForKeyPath() throws {
        let person = Person(value: ["id": 1, "name": "Ada", "dog": ["name": "Rex", "age": 3],
                                    "dogs": [["name": "A", "age": 1], ["name": "B", "age": 2]]])
        let check = { (person: Person) in
            #expect(person.value(forKeyPath: "name") as? String == "Ada")
            #expect(person.value(forKeyPath: "dog.name") as? String == "Rex")
            #expect(person.value(forKeyPath: "dog.age") as? Int == 3)
            #expect((person.value(forKeyPath: "dogs.name") as? [Any])?.compactMap { $0 as? String } == ["A", "B"])
        }
        check(person)
        let realm = try realm()
        try realm.write { realm.add(person) }
        check(person)
        try realm.write { person.dog = nil }
        #expect(person.value(forKeyPath: "dog.name") == nil)
    }

    @Test("setValue(_:forKeyPath:) sets a property of a linked object")
    func setValueForKeyPath() throws {
        let person = Person(value: ["id": 1, "dog": ["name": "Rex"]])
        person.setValue("Max", forKeyPath: "dog.name")
        person.setValue(40, forKeyPath: "age")
        #expect(person.dog?.name == "Max" && person.age == 40)
        let realm = try realm()
        try realm.write {
            realm.add(person)
            person.setValue(5, forKeyPath: "dog.age")
        }
        #expect(person.dog?.age == 5)
    }

    @Test("setValuesForKeys sets each property, NSNull as nil; dictionaryWithValues reads them")
    func severalKeys() throws {
        let person = Person(value: ["id": 1, "height": 1.5] as [String: Any])
        person.setValuesForKeys(["name": "Ada", "age": 36, "height": NSNull()])
        #expect(person.name == "Ada" && person.age == 36 && person.height == nil)
        let realm = try realm()
        try realm.write {
            realm.add(person)
            person.setValuesForKeys(["name": "Grace", "height": 1.7])
        }
        #expect(person.name == "Grace" && person.height == 1.7)
        let values = person.dictionaryWithValues(forKeys: ["name", "age", "dog"])
        #expect(values["name"] as? String == "Grace")
        #expect(values["age"] as? Int == 36)
        #expect(values["dog"] is NSNull)
    }
}
