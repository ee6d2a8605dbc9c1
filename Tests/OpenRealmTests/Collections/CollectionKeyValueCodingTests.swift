// CollectionKeyValueCodingTests.swift — Realm's [AnyObject] key-value coding of List and
// MutableSet, setValue(_:forKey:) on them, and Map's object(forKey:).

import Foundation
import Testing

import OpenRealm

@Suite("Collection key-value coding")
struct CollectionKeyValueCodingTests {
    private func dogs(_ realm: Realm?) throws -> Collections {
        let holder = Collections()
        holder.dogSet.insert(objectsIn: [Dog(value: ["name": "Rex", "age": 3]), Dog(value: ["name": "Fido", "age": 3])])
        if let realm { try realm.write { realm.add(holder) } }
        return holder
    }

    private func person(_ realm: Realm?) throws -> Person {
        let person = Person(value: ["id": 1, "name": "Ann", "dogs": [["name": "Rex", "age": 3], ["name": "Fido", "age": 5]]])
        if let realm { try realm.write { realm.add(person) } }
        return person
    }

    @Test("List.value(forKey:) returns [AnyObject] that generic code casts to [String]", arguments: [false, true])
    func listValueForKey(managed: Bool) throws {
        let person = try person(managed ? memoryRealm() : nil)
        let values: [AnyObject] = person.dogs.value(forKey: "name")
        #expect(values.count == 2)
        let names = person.dogs.value(forKey: "name") as! [String]
        #expect(names == ["Rex", "Fido"])
        let ages: [AnyObject] = person.dogs.value(forKeyPath: "age")
        #expect(ages as? [Int] == [3, 5])
        #expect(person.dogs.value(forKey: "self").count == 2)
    }

    @Test("MutableSet.value(forKey:) returns the distinct values as [AnyObject]", arguments: [false, true])
    func setValueForKey(managed: Bool) throws {
        let holder = try dogs(managed ? memoryRealm() : nil)
        let names = holder.dogSet.value(forKey: "name") as! [String]
        #expect(Set(names) == ["Rex", "Fido"] && names.count == 2)
        let ages = holder.dogSet.value(forKeyPath: "age") as! [Int]
        #expect(ages == [3])
    }

    @Test("List and MutableSet setValue(_:forKey:) set the property of every object", arguments: [false, true])
    func setValueOnEveryObject(managed: Bool) throws {
        let realm = managed ? try memoryRealm() : nil
        let person = try person(realm)
        let holder = try dogs(realm)
        func change() {
            person.dogs.setValue(7, forKey: "age")
            holder.dogSet.setValue("Max", forKey: "name")
        }
        if let realm { try realm.write(change) } else { change() }
        #expect(person.dogs.map(\.age) == [7, 7])
        #expect(holder.dogSet.map(\.name) == ["Max", "Max"])
    }

    @Test("Map.object(forKey:) gives the value of a string key, nil otherwise", arguments: [false, true])
    func mapObjectForKey(managed: Bool) throws {
        let realm = managed ? try memoryRealm() : nil
        let person = try person(realm)
        func change() { person.scores["math"] = 90 }
        if let realm { try realm.write(change) } else { change() }
        #expect(person.scores.object(forKey: "math" as NSString) as? Int == 90)
        #expect(person.scores.object(forKey: "art" as NSString) == nil)
        #expect(person.scores.object(forKey: NSNumber(value: 1)) == nil)
    }
}
