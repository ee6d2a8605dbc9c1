// PropertiesMappingTests.swift — propertiesMapping(): properties with another name in the file
// than in Swift. The file and the file's schema (a migration's old schema, the schema-mismatch
// messages) have the persisted names; everything written against the models (the schema's
// names, queries, sorting, key-value coding, observation, Codable, a migration's new objects)
// uses the Swift names, as Realm Swift does.

import Foundation
import Testing

import OpenRealm

final class MappedDog: Object {
    @Persisted var dogName: String
    @Persisted var age: Int
    @Persisted(originProperty: "pets") var owners: LinkingObjects<MappedPerson>

    override class func propertiesMapping() -> [String: String] { ["dogName": "dog_name", "age": "dog_age"] }
}

final class MappedAddress: EmbeddedObject {
    @Persisted var streetName: String

    override class func propertiesMapping() -> [String: String] { ["streetName": "street_name"] }
}

final class MappedPerson: Object {
    @Persisted(primaryKey: true) var personId: Int
    @Persisted var firstName: String
    @Persisted var age: Int
    @Persisted var pets: List<MappedDog>
    @Persisted var bestFriend: MappedDog?
    @Persisted var address: MappedAddress?
    @Persisted var scores: Map<String, Int>

    override class func propertiesMapping() -> [String: String] {
        ["personId": "_id", "firstName": "first_name", "pets": "custom_pets", "bestFriend": "best_friend",
         "address": "custom_address", "scores": "custom_scores"]
    }
}

final class MappedNote: Object, Codable {
    @Persisted var noteText: String
    @Persisted var stars: Int

    override class func propertiesMapping() -> [String: String] { ["noteText": "note_text"] }
}

/// The same table as MappedPerson's file has it, by its persisted names.
enum MappedFileView {
    final class Ledger: Object {
        @Persisted(primaryKey: true) var _id: Int
        @Persisted var entry_total: Int
        @Persisted var note: String
    }
}

enum MappedModel {
    final class Ledger: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var total: Int
        @Persisted var note: String

        override class func propertiesMapping() -> [String: String] { ["id": "_id", "total": "entry_total"] }
    }

    final class LedgerV2: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var total: Int
        @Persisted var note: String
        @Persisted var label: String

        override class func _realmObjectName() -> String? { "Ledger" }
        override class func propertiesMapping() -> [String: String] { ["id": "_id", "total": "entry_total", "label": "entry_label"] }
    }
}

enum MappedRenamed {
    final class Ledger: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var amount: Int
        @Persisted var note: String

        override class func propertiesMapping() -> [String: String] { ["id": "_id", "amount": "amount_total"] }
    }
}

final class MappingRecord: @unchecked Sendable {
    var oldNames: [String] = []
    var newColumns: [String: String] = [:]
    var oldTotals: [Int] = []
}

@Suite("propertiesMapping()")
struct PropertiesMappingTests {
    private func mappedRealm(_ name: String) throws -> Realm {
        try Realm(configuration: .init(inMemoryIdentifier: "mapping-\(name)",
                                       objectTypes: [MappedPerson.self, MappedDog.self, MappedAddress.self]))
    }

    private func fill(_ realm: Realm) throws {
        try realm.write {
            let rex = MappedDog(value: ["dogName": "Rex", "age": 3] as [String: Any])
            let ace = MappedDog(value: ["dogName": "Ace", "age": 5] as [String: Any])
            let ada = MappedPerson(value: ["personId": 1, "firstName": "Ada", "age": 36] as [String: Any])
            ada.pets.append(objectsIn: [rex, ace])
            ada.bestFriend = rex
            ada.address = MappedAddress(value: ["streetName": "Main"])
            ada.scores["math"] = 9
            let bob = MappedPerson(value: ["personId": 2, "firstName": "Bob", "age": 17] as [String: Any])
            bob.address = MappedAddress(value: ["streetName": "Side"])
            realm.add([ada, bob])
        }
    }

    @Test("the schema has the Swift names, columnName the persisted ones")
    func schema() throws {
        let realm = try mappedRealm("schema")
        let person = try #require(realm.schema["MappedPerson"])
        #expect(person.properties.map(\.name) == ["personId", "firstName", "age", "pets", "bestFriend", "address", "scores"])
        #expect(person.properties.map(\.columnName) == ["_id", "first_name", "age", "custom_pets", "best_friend", "custom_address", "custom_scores"])
        #expect(person["firstName"]?.columnName == "first_name")
        #expect(person.primaryKeyProperty?.name == "personId")
        #expect(MappedPerson().objectSchema["firstName"]?.columnName == "first_name")
        #expect(realm.schema["MappedAddress"]?["streetName"]?.columnName == "street_name")
        #expect(person["firstName"]?.description.contains("columnName = first_name;") == true)
        #expect(person["age"]?.columnName == "age")
        // Realm's description (RLMProperty.mm): links give their target and origin.
        #expect(person["bestFriend"]?.description == """
            bestFriend {
            \ttype = object;
            \tobjectClassName = MappedDog;
            \tlinkOriginPropertyName = (null);
            \tcolumnName = best_friend;
            \tindexed = NO;
            \tisPrimary = NO;
            \tarray = NO;
            \tset = NO;
            \tdictionary = NO;
            \toptional = YES;
            }
            """)
        #expect(realm.schema["MappedDog"]?["owners"]?.description.contains(
            "\ttype = linking objects;\n\tobjectClassName = MappedPerson;\n\tlinkOriginPropertyName = pets;\n\tcolumnName = owners;") == true)
    }

    @Test("the file stores the persisted names: a class with those names reads the same table")
    func fileNames() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("ledger.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [MappedModel.Ledger.self]))
                try realm.write { realm.add(MappedModel.Ledger(value: ["id": 7, "total": 120, "note": "rent"] as [String: Any])) }
                #expect(realm.objects(MappedModel.Ledger.self).first?.total == 120)
            }
            let plain = try Realm(configuration: .init(fileURL: url, objectTypes: [MappedFileView.Ledger.self]))
            let row = try #require(plain.objects(MappedFileView.Ledger.self).first)
            #expect(row._id == 7 && row.entry_total == 120 && row.note == "rent")
            #expect(plain.schema["Ledger"]?.properties.map(\.name).sorted() == ["_id", "entry_total", "note"])
        }
    }

    @Test("filter and where take the Swift names, through links, lists, embedded objects and maps")
    func queries() throws {
        let realm = try mappedRealm("queries")
        try fill(realm)
        let people = realm.objects(MappedPerson.self)
        #expect(people.filter("firstName == 'Ada'").count == 1)
        #expect(people.filter("personId == 2").first?.firstName == "Bob")
        #expect(people.filter("ANY pets.dogName == 'Ace'").count == 1)
        #expect(people.filter("bestFriend.dogName == %@", "Rex").count == 1)
        #expect(people.filter("address.streetName == 'Side'").first?.firstName == "Bob")
        #expect(people.filter("pets.@count == 2 AND pets.@sum.age == 8").count == 1)
        #expect(people.filter("scores['math'] == 9").count == 1)
        #expect(people.filter("SUBQUERY(pets, $dog, $dog.dogName == 'Ace' AND $dog.age > 4).@count == 1").count == 1)
        #expect(people.filter("pets.@max.age == 5 AND pets.@min.age == 3").count == 1)
        #expect(people.where { $0.pets.age.max == 5 }.count == 1)
        #expect(people.filter("%K BEGINSWITH 'B'", "firstName").count == 1)
        #expect(people.where { $0.firstName == "Ada" && $0.age > 30 }.count == 1)
        #expect(people.where { $0.pets.dogName == "Rex" }.count == 1)
        #expect(people.where { $0.address.streetName.starts(with: "M") }.first?.personId == 1)
        let dogs = realm.objects(MappedDog.self)
        #expect(dogs.filter("ANY owners.firstName == 'Ada'").count == 2)
        #expect(dogs.where { $0.owners.firstName == "Ada" }.count == 2)
        #expect(realm.object(ofType: MappedPerson.self, forPrimaryKey: 2)?.firstName == "Bob")
    }

    @Test("sort, distinct and aggregates take the Swift names")
    func sortDistinctAggregates() throws {
        let realm = try mappedRealm("sort")
        try fill(realm)
        let people = realm.objects(MappedPerson.self)
        #expect(people.sorted(byKeyPath: "firstName", ascending: false).map(\.firstName) == ["Bob", "Ada"])
        #expect(people.sorted(byKeyPath: "address.streetName").map(\.personId) == [1, 2])
        #expect(people.sorted(by: \.age).map(\.personId) == [2, 1])
        #expect(people.distinct(by: ["address.streetName"]).count == 2)
        #expect(realm.objects(MappedDog.self).sorted(byKeyPath: "dogName").map(\.dogName) == ["Ace", "Rex"])
        #expect(people.max(ofProperty: "personId") as Int? == 2)
        #expect(realm.objects(MappedDog.self).sum(ofProperty: "age") as Int == 8)
        #expect(people.first(where: { $0.firstName == "Bob" })?.age == 17)
    }

    @Test("key-value coding, Codable and description use the Swift names")
    func keyValueCoding() throws {
        let realm = try mappedRealm("kvc")
        try fill(realm)
        let ada = try #require(realm.object(ofType: MappedPerson.self, forPrimaryKey: 1))
        #expect(ada.value(forKey: "firstName") as? String == "Ada")
        #expect(ada["age"] as? Int == 36)
        try realm.write {
            ada.setValue("Ada L.", forKey: "firstName")
            ada["age"] = 37
        }
        #expect(ada.firstName == "Ada L." && ada.age == 37)
        #expect(realm.objects(MappedPerson.self).value(forKey: "firstName") as? [String] == ["Ada L.", "Bob"])
        let note = MappedNote(value: ["noteText": "hi", "stars": 2] as [String: Any])
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(note)) as? [String: Any]
        #expect(json?["noteText"] as? String == "hi" && json?["note_text"] == nil)
        let decoded = try JSONDecoder().decode(MappedNote.self, from: Data(#"{"noteText":"back","stars":1}"#.utf8))
        #expect(decoded.noteText == "back")
        #expect(ada.description.contains("firstName = Ada L.;"))
    }

    @Test("observation key paths are the Swift names")
    func observation() throws {
        let realm = try mappedRealm("observe")
        try fill(realm)
        let ada = try #require(realm.object(ofType: MappedPerson.self, forPrimaryKey: 1))
        var changed: [String] = []
        let token = ada.observe(keyPaths: ["firstName", "pets.dogName"]) { (change: ObjectChange<MappedPerson>) in
            if case .change(_, let properties) = change { changed += properties.map(\.name) }
        }
        defer { token.invalidate() }
        try realm.write { ada.age = 40 }
        realm.refresh()
        #expect(changed.isEmpty)
        try realm.write { ada.firstName = "Ada B." }
        realm.refresh()
        #expect(changed == ["firstName"])
        try realm.write { ada.pets[0].dogName = "Rexy" }
        realm.refresh()
        #expect(changed == ["firstName", "pets"])
    }

    @Test("a migration's old objects and schema have the persisted names, the new ones the Swift names")
    func migration() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("ledger.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [MappedModel.Ledger.self]))
                try realm.write { realm.add(MappedModel.Ledger(value: ["id": 1, "total": 50, "note": "a"] as [String: Any])) }
            }
            let record = MappingRecord()
            let configuration = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
                record.oldNames = migration.oldSchema["Ledger"]?.properties.map(\.name).sorted() ?? []
                for property in migration.newSchema["Ledger"]?.properties ?? [] { record.newColumns[property.name] = property.columnName }
                migration.enumerateObjects(ofType: "Ledger") { old, new in
                    record.oldTotals.append(old?["entry_total"] as? Int ?? -1)
                    new?["label"] = "total \(new?["total"] as? Int ?? -1)"
                    new?.total = (new?.total as? Int ?? 0) * 2
                }
                migration.create("Ledger", value: ["id": 2, "total": 5, "label": "made"] as [String: Any])
            }, objectTypes: [MappedModel.LedgerV2.self])
            let realm = try Realm(configuration: configuration)
            #expect(record.oldNames == ["_id", "entry_total", "note"])
            #expect(record.newColumns == ["id": "_id", "total": "entry_total", "note": "note", "label": "entry_label"])
            #expect(record.oldTotals == [50])
            let ledgers = realm.objects(MappedModel.LedgerV2.self).sorted(byKeyPath: "id")
            #expect(ledgers.map(\.total) == [100, 5])
            #expect(ledgers.map(\.label) == ["total 50", "made"])
        }
    }

    @Test("renameProperty takes the old schema's name and the new Swift name")
    func rename() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("ledger.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [MappedFileView.Ledger.self]))
                try realm.write { realm.add(MappedFileView.Ledger(value: ["_id": 3, "entry_total": 42, "note": "n"] as [String: Any])) }
            }
            let realm = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, migrationBlock: { migration, _ in
                migration.renameProperty(onType: "Ledger", from: "entry_total", to: "amount")
            }, objectTypes: [MappedRenamed.Ledger.self]))
            #expect(realm.object(ofType: MappedRenamed.Ledger.self, forPrimaryKey: 3)?.amount == 42)
            #expect(realm.schema["Ledger"]?["amount"]?.columnName == "amount_total")
        }
    }

    @Test("a model change is reported with the persisted names")
    func mismatchMessage() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("ledger.realm")
            _ = try Realm(configuration: .init(fileURL: url, objectTypes: [MappedModel.Ledger.self]))
            #expect {
                _ = try Realm(configuration: .init(fileURL: url, objectTypes: [MappedModel.LedgerV2.self]))
            } throws: { error in
                (error as? Realm.Error)?.code == .schemaMismatch
                    && (error as? Realm.Error)?.localizedDescription.contains("Property 'Ledger.entry_label' has been added.") == true
            }
        }
    }
}
