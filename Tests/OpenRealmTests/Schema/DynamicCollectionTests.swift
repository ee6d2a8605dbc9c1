// DynamicCollectionTests.swift — dynamicList, dynamicMutableSet and dynamicMap of a migration's
// objects: Realm's List<DynamicObject>, MutableSet<DynamicObject> and Map<String, DynamicObject?>
// of a property, read from the old objects, written through the new ones.

import Foundation
import Testing

import OpenRealm

final class DynDog: Object {
    @Persisted var name: String
}

final class DynOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var age: Int
    @Persisted var dogs: List<DynDog>
    @Persisted var friends: MutableSet<DynDog>
    @Persisted var pets: Map<String, DynDog?>
}

final class DynamicRecord: @unchecked Sendable {
    var listNames: [String] = []
    var setCount = -1
    var mapKeys: [String] = []
    var nilEntry = false
}

@Suite("dynamicList, dynamicMutableSet, dynamicMap")
struct DynamicCollectionTests {
    private static func writeVersion1(_ url: URL) throws {
        let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [DynOwner.self, DynDog.self]))
        try realm.write {
            let rex = DynDog(value: ["name": "Rex"]), ace = DynDog(value: ["name": "Ace"])
            let owner = DynOwner(value: ["id": 1])
            owner.dogs.append(objectsIn: [rex, ace])
            owner.friends.insert(rex)
            owner.pets["first"] = rex
            owner.pets["none"] = nil as DynDog?
            realm.add(owner)
        }
    }

    private static func configuration(_ url: URL, _ block: @escaping MigrationBlock) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: block, objectTypes: [DynOwner.self, DynDog.self])
    }

    @Test("old objects read their collections of objects; new ones write through them")
    func readAndWrite() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("owners.realm")
            try Self.writeVersion1(url)
            let record = DynamicRecord()
            let realm = try Realm(configuration: Self.configuration(url) { migration, _ in
                migration.enumerateObjects(ofType: "DynOwner") { old, new in
                    guard let old, let new else { return }
                    let dogs: List<DynamicObject> = old.dynamicList("dogs")
                    record.listNames = dogs.map { $0["name"] as? String ?? "?" }
                    record.setCount = old.dynamicMutableSet("friends").count
                    let pets: Map<String, DynamicObject?> = old.dynamicMap("pets")
                    record.mapKeys = pets.keys.sorted()
                    record.nilEntry = pets["none"] == .some(nil)
                    let bolt = migration.create("DynDog", value: ["name": "Bolt"])
                    new.dynamicList("dogs").append(bolt)
                    new.dynamicMutableSet("friends").insert(bolt)
                    let newPets: Map<String, DynamicObject?> = new.dynamicMap("pets")
                    newPets["second"] = bolt
                }
            })
            #expect(record.listNames == ["Rex", "Ace"])
            #expect(record.setCount == 1)
            #expect(record.mapKeys == ["first", "none"])
            #expect(record.nilEntry)
            let owner = try #require(realm.object(ofType: DynOwner.self, forPrimaryKey: 1))
            #expect(owner.dogs.map(\.name) == ["Rex", "Ace", "Bolt"])
            #expect(owner.friends.map(\.name).sorted() == ["Bolt", "Rex"])
            #expect(owner.pets["second"]??.name == "Bolt")
        }
    }

    @Test("an unknown property name stops with Realm's message")
    func unknownName() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try withDirectory { directory in
                let url = directory.appendingPathComponent("owners.realm")
                try DynamicCollectionTests.writeVersion1(url)
                _ = try Realm(configuration: DynamicCollectionTests.configuration(url) { migration, _ in
                    migration.enumerateObjects(ofType: "DynOwner") { old, _ in _ = old?.dynamicList("cats") }
                })
            }
        }
        expectStop("Invalid property name 'cats' for class 'DynOwner'.", result)
    }

    @Test("a property of another kind stops")
    func wrongKind() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try withDirectory { directory in
                let url = directory.appendingPathComponent("owners.realm")
                try DynamicCollectionTests.writeVersion1(url)
                _ = try Realm(configuration: DynamicCollectionTests.configuration(url) { migration, _ in
                    migration.enumerateObjects(ofType: "DynOwner") { old, _ in _ = old?.dynamicMutableSet("dogs") }
                })
            }
        }
        expectStop("property 'DynOwner.dogs' holds no MutableSet<DynamicObject>", result)
    }
}
