// MapAssignmentTests.swift — a Map given for a Map property of the optional value type
// (Map<String, Int> for Map<String, Int?>), as Realm's key-value coding takes any dictionary.

import Foundation
import Testing

import OpenRealm

final class OptionalMapHolder: Object {
    @Persisted var optInts: Map<String, Int?>
    @Persisted var ints: Map<String, Int>
    @Persisted var optDogs: Map<String, Dog?>
}

@Suite("Assigning a Map to a Map property of optional values")
struct MapAssignmentTests {
    private func source() -> Map<String, Int> {
        let map = Map<String, Int>()
        map["a"] = 1
        map["b"] = 2
        return map
    }

    @Test("Object(value:) takes a Map<String, Int> for a Map<String, Int?> property")
    func initWithValue() {
        let holder = OptionalMapHolder(value: ["optInts": source()])
        #expect(holder.optInts.count == 2 && holder.optInts["b"] == 2)
    }

    @Test("setValue(_:forKey:) and the subscript take a Map<String, Int> for a Map<String, Int?> property", arguments: [false, true])
    func setValue(managed: Bool) throws {
        let holder = OptionalMapHolder()
        let realm = managed ? try memoryRealm([OptionalMapHolder.self, Dog.self, Person.self, Address.self]) : nil
        if let realm { try realm.write { realm.add(holder) } }
        func change() {
            holder.setValue(source(), forKey: "optInts")
            holder["ints"] = source()
        }
        if let realm { try realm.write(change) } else { change() }
        #expect(holder.optInts.count == 2 && holder.optInts["a"] == 1)
        #expect(holder.ints.count == 2 && holder.ints["b"] == 2)
        func change2() { holder["optInts"] = holder.ints }
        if let realm { try realm.write(change2) } else { change2() }
        #expect(holder.optInts.count == 2 && holder.optInts["b"] == 2)
    }

    @Test("realm.create takes a Map<String, Int> for a Map<String, Int?> property")
    func create() throws {
        let realm = try memoryRealm([OptionalMapHolder.self, Dog.self, Person.self, Address.self])
        let holder = try realm.write { realm.create(OptionalMapHolder.self, value: ["optInts": source()]) }
        #expect(holder.optInts.count == 2 && holder.optInts["a"] == 1)
    }
}
