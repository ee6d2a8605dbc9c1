// ObjectKVCTests.swift — setting an object's collection properties by name as Realm's ObjectTests
// do (setAndTestAllTypes): a List, an array, nil and NSNull, on unmanaged and managed objects.

import Foundation
import Testing

import OpenRealm

@Suite("Collection properties by name, as Realm's ObjectTests")
struct ObjectKVCTests {
    @Test("a List, an array, nil or NSNull set by name", arguments: [false, true])
    func collectionsByName(managed: Bool) throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "kvc-\(UUID().uuidString)"))
        let person = Person(value: ["id": 1])
        let dog = Dog(value: ["name": "Rex"])
        realm.beginWrite()
        defer { realm.cancelWrite() }
        if managed { realm.add(person) }
        func dogs() -> Int { (person.value(forKey: "dogs") as! List<Dog>).count }

        let list = List<Dog>()
        list.append(dog)
        person.setValue(list, forKey: "dogs")
        #expect(dogs() == 1 && (person.value(forKey: "dogs") as! List<Dog>).first?.name == "Rex")
        list.removeAll()
        person.setValue(list, forKey: "dogs")
        #expect(dogs() == 0)
        person.setValue([dog], forKey: "dogs")
        #expect(dogs() == 1)
        person.setValue(nil, forKey: "dogs")
        #expect(dogs() == 0)
        person["dogs"] = [dog]
        person["dogs"] = NSNull()
        #expect(dogs() == 0)

        person["scores"] = ["art": 3]
        #expect(person.scores["art"] == 3)
        person["scores"] = nil
        #expect(person.scores.isEmpty)
        person["tags"] = ["a"]
        person.setValue(nil, forKey: "tags")
        #expect(person.tags.isEmpty)
    }
}
