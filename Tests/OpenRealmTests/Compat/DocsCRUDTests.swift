// DocsCRUDTests.swift — what Realm Swift's guide ("CRUD": create, read, update, delete; "Filter
// Data") and API reference (Realm.add, create, delete, deleteAll, Results) say of writes and
// reads.

import Foundation
import Testing

import OpenRealm

@Suite("Realm's documentation: create, read, update, delete")
struct DocsCRUDTests {
    // "Run a Transaction": an error thrown in the block cancels the transaction.
    @Test("an error thrown inside write rolls the transaction back")
    func throwingWriteRollsBack() throws {
        struct Stop: Error {}
        let realm = try docsRealm()
        #expect(throws: Stop.self) {
            try realm.write {
                realm.create(DocsPet.self, value: ["name": "Lost"])
                throw Stop()
            }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(DocsPet.self).isEmpty)
    }

    // "Initialize Objects with a Value": a dictionary, or an array in property order.
    @Test("objects from a dictionary, an array and nested values")
    func initializeWithValue() throws {
        let realm = try docsRealm()
        let fromArray = DocsPet(value: ["Rex", 4])
        #expect(fromArray.name == "Rex" && fromArray.age == 4 && fromArray.toy == nil)
        let keeper = DocsKeeper(value: ["id": 1, "name": "Ann",
                                        "pets": [["name": "a"], ["b", 2]],
                                        "contact": ["phone": "1", "town": "X"]])
        try realm.write { realm.add(keeper) }
        #expect(keeper.realm != nil)
        #expect(keeper.pets.map(\.name) == ["a", "b"])
        #expect(keeper.pets[1].age == 2)
        #expect(keeper.contact?.town == "X")
        #expect(realm.objects(DocsPet.self).count == 2)
    }

    // "Copy an Object to Another Realm": create(_:value:) of a managed object copies it,
    // with the objects it links to.
    @Test("create(_:value:) copies an object of another Realm, links included")
    func copyToAnotherRealm() throws {
        let source = try docsRealm()
        let original = try source.write {
            source.create(DocsKeeper.self, value: ["id": 5, "name": "Ann", "favourite": ["name": "Rex"],
                                                    "contact": ["phone": "9", "town": "Y"]])
        }
        let target = try docsRealm()
        let copy = try target.write { target.create(DocsKeeper.self, value: original) }
        #expect(copy.realm == target)
        #expect(copy.name == "Ann" && copy.favourite?.name == "Rex" && copy.contact?.phone == "9")
        #expect(target.objects(DocsPet.self).count == 1)
        #expect(source.objects(DocsPet.self).count == 1)
        try source.write { original.name = "Changed" }
        #expect(copy.name == "Ann")
    }

    // "Upsert an Object": add(_:update: .modified) updates the object with the same primary
    // key, or adds it.
    @Test("add(update: .modified) upserts by primary key")
    func upsert() throws {
        let realm = try docsRealm()
        try realm.write { realm.add(DocsKeeper(value: ["id": 1, "name": "Ann", "rank": 3])) }
        try realm.write { realm.add(DocsKeeper(value: ["id": 1, "name": "Anna"]), update: .modified) }
        try realm.write { realm.add(DocsKeeper(value: ["id": 2, "name": "Bo"]), update: .modified) }
        let keepers = realm.objects(DocsKeeper.self).sorted(byKeyPath: "id")
        #expect(keepers.map(\.name) == ["Anna", "Bo"])
        // A whole unmanaged object replaces every property: rank goes back to its default.
        #expect(keepers[0].rank == 0)
    }

    // "Update an Object with a Primary Key" (partial update): create(_:value:update:) with a
    // dictionary sets only the keys it has.
    @Test("create(update:) with a partial dictionary keeps the other properties")
    func partialUpdate() throws {
        let realm = try docsRealm()
        try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "name": "Ann", "rank": 3, "pets": [["name": "a"]]])
        }
        try realm.write { realm.create(DocsKeeper.self, value: ["id": 1, "rank": 4], update: .modified) }
        let keeper = try #require(realm.object(ofType: DocsKeeper.self, forPrimaryKey: 1))
        #expect(keeper.name == "Ann" && keeper.rank == 4 && keeper.pets.count == 1)
    }

    // "Update Properties with Key-value Coding": setValue(_:forKey:) on a collection sets the
    // property of every object in it.
    @Test("setValue(_:forKey:) on Results sets every object's property")
    func keyValueCodingUpdate() throws {
        let realm = try docsRealm()
        try realm.write { for i in 0..<3 { realm.create(DocsPet.self, value: ["name": "p\(i)", "age": i]) } }
        try realm.write { realm.objects(DocsPet.self).setValue("bone", forKey: "toy") }
        #expect(realm.objects(DocsPet.self).filter("toy == 'bone'").count == 3)
        #expect(realm.objects(DocsPet.self).value(forKey: "name") as? [String] == ["p0", "p1", "p2"])
    }

    // "Overwrite an Embedded Object": setting a new embedded object deletes the old one.
    @Test("replacing an embedded object deletes the old one")
    func overwriteEmbedded() throws {
        let realm = try docsRealm()
        let keeper = try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "contact": ["phone": "1", "town": "A"]])
        }
        let old = try #require(keeper.contact)
        try realm.write { keeper.contact = DocsContact(value: ["phone": "2", "town": "B"]) }
        #expect(old.isInvalidated)
        #expect(keeper.contact?.town == "B")
        // Updating in place keeps the object.
        let current = try #require(keeper.contact)
        try realm.write { keeper.contact?.town = "C" }
        #expect(!current.isInvalidated && current.town == "C")
    }

    // "Delete an Object and Its Related Objects": embedded objects are deleted with their
    // parent; linked (non-embedded) objects are not.
    @Test("deleting an object deletes its embedded objects, not the objects it links to")
    func cascadeEmbedded() throws {
        let realm = try docsRealm()
        let keeper = try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "favourite": ["name": "Rex"],
                                                   "contact": ["phone": "1", "town": "A"],
                                                   "pastContacts": [["phone": "2", "town": "B"], ["phone": "3", "town": "C"]]])
        }
        let contact = try #require(keeper.contact)
        let past = Array(keeper.pastContacts)
        try realm.write { realm.delete(keeper) }
        #expect(keeper.isInvalidated)
        #expect(contact.isInvalidated)
        #expect(past.allSatisfy { $0.isInvalidated })
        #expect(realm.objects(DocsPet.self).count == 1)
    }

    // Removing an object from a list does not delete it; deleting it removes it from lists.
    @Test("list removal keeps the object; deletion removes it from lists and links")
    func listRemovalAndDeletion() throws {
        let realm = try docsRealm()
        let keeper = try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "pets": [["name": "a"], ["name": "b"]]])
        }
        try realm.write { keeper.pets.remove(at: 0) }
        #expect(realm.objects(DocsPet.self).count == 2)
        let b = keeper.pets[0]
        try realm.write {
            keeper.favourite = b
            realm.delete(b)
        }
        #expect(keeper.pets.isEmpty)
        #expect(keeper.favourite == nil)
    }

    // "Delete All Objects of a Specific Type" and "Delete All Objects in a Realm".
    @Test("delete(objects(_:)) deletes one type; deleteAll() every object")
    func deleteAllKinds() throws {
        let realm = try docsRealm()
        try realm.write {
            realm.create(DocsPet.self, value: ["name": "a"])
            realm.create(DocsKeeper.self, value: ["id": 1, "favourite": ["name": "b"], "contact": ["phone": "1"]])
        }
        try realm.write { realm.delete(realm.objects(DocsKeeper.self)) }
        #expect(realm.objects(DocsKeeper.self).isEmpty)
        #expect(realm.objects(DocsPet.self).count == 2)
        try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 2])
            realm.deleteAll()
        }
        #expect(realm.isEmpty)
        #expect(realm.objects(DocsPet.self).isEmpty && realm.objects(DocsKeeper.self).isEmpty)
    }

    // "Read Operations": results are live and lazy.
    @Test("Results are live: a write shows in results made before it")
    func liveResults() throws {
        let realm = try docsRealm()
        let young = realm.objects(DocsPet.self).filter("age < 3")
        #expect(young.isEmpty)
        try realm.write { realm.create(DocsPet.self, value: ["name": "Pup", "age": 1]) }
        #expect(young.count == 1)
        try realm.write { young[0].age = 5 }
        #expect(young.isEmpty)
    }

    // "Find a Specific Object by Primary Key": nil when there is none.
    @Test("object(ofType:forPrimaryKey:) finds by key, nil for a missing key")
    func findByPrimaryKey() throws {
        let realm = try docsRealm()
        try realm.write { realm.create(DocsKeeper.self, value: ["id": 4, "name": "Di"]) }
        #expect(realm.object(ofType: DocsKeeper.self, forPrimaryKey: 4)?.name == "Di")
        #expect(realm.object(ofType: DocsKeeper.self, forPrimaryKey: 5) == nil)
    }

    // "Filter Data": the predicate forms the guide shows.
    @Test("the guide's query forms: comparisons, strings, aggregates, ANY, SUBQUERY, inverse links")
    func guideQueries() throws {
        let realm = try docsRealm()
        try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "name": "Ann", "rank": 3,
                                                   "pets": [["name": "Rex", "age": 2], ["name": "Rosie", "age": 10]],
                                                   "contact": ["phone": "1", "town": "Ely"]])
            realm.create(DocsKeeper.self, value: ["id": 2, "name": "ánne", "rank": 7,
                                                   "pets": [["name": "Max", "age": 4]]])
            realm.create(DocsKeeper.self, value: ["id": 3, "name": "Bob", "rank": 5])
        }
        let keepers = realm.objects(DocsKeeper.self)
        func ids(_ results: Results<DocsKeeper>) -> [Int] { results.sorted(byKeyPath: "id").map(\.id) }
        func ids(_ format: String) -> [Int] { ids(keepers.filter(format)) }
        #expect(ids("rank BETWEEN {3, 5}") == [1, 3])
        #expect(ids("id IN {1, 3}") == [1, 3])
        #expect(ids("name BEGINSWITH[cd] 'an'") == [1, 2])
        #expect(ids("name BEGINSWITH[c] 'an'") == [1])
        #expect(ids("name LIKE 'B?b'") == [3])
        #expect(ids("name LIKE '*n*'") == [1, 2])
        #expect(ids("pets.@count == 0") == [3])
        #expect(ids("pets.@avg.age > 5") == [1])
        #expect(ids("pets.@max.age == 4") == [2])
        #expect(ids("ANY pets.name == 'Max'") == [2])
        #expect(ids("ALL pets.age > 3") == [2, 3])
        #expect(ids("NONE pets.age > 3") == [3])
        #expect(ids("SUBQUERY(pets, $pet, $pet.age > 1 AND $pet.name BEGINSWITH 'R').@count == 2") == [1])
        #expect(ids(keepers.filter("contact.town == %@", "Ely")) == [1])
        #expect(ids("contact == nil") == [2, 3])
        #expect(ids(keepers.filter("%K > %@", "rank", 4)) == [2, 3])
        #expect(ids("NOT (name CONTAINS 'n')") == [3])
        #expect(realm.objects(DocsPet.self).filter("ANY keepers.name == 'Ann'").count == 2)
        #expect(realm.objects(DocsPet.self).filter("keepers.@count == 0").isEmpty)
        // "Chain Queries": a filter of a filter.
        #expect(keepers.filter("rank > 2").filter("name CONTAINS[c] 'N'").count == 2)
    }

    // "Sort Query Results": several descriptors, through a to-one link; "Aggregate Data".
    @Test("sorting by several key paths and through a link; aggregates")
    func sortAndAggregate() throws {
        let realm = try docsRealm()
        try realm.write {
            realm.create(DocsKeeper.self, value: ["id": 1, "name": "B", "rank": 1, "favourite": ["name": "z", "age": 3]])
            realm.create(DocsKeeper.self, value: ["id": 2, "name": "A", "rank": 1, "favourite": ["name": "y", "age": 5]])
            realm.create(DocsKeeper.self, value: ["id": 3, "name": "C", "rank": 2, "favourite": ["name": "x", "age": 7]])
        }
        let keepers = realm.objects(DocsKeeper.self)
        let byRankThenName = keepers.sorted(by: [SortDescriptor(keyPath: "rank", ascending: false),
                                                 SortDescriptor(keyPath: "name", ascending: true)])
        #expect(byRankThenName.map(\.id) == [3, 2, 1])
        #expect(keepers.sorted(byKeyPath: "favourite.name").map(\.id) == [3, 2, 1])
        let pets = realm.objects(DocsPet.self)
        #expect(pets.sum(ofProperty: "age") as Int == 15)
        #expect(pets.average(ofProperty: "age") as Double? == 5)
        #expect(pets.min(ofProperty: "age") as Int? == 3)
        #expect(pets.max(ofProperty: "age") as Int? == 7)
        #expect(realm.objects(DocsPet.self).filter("age > 100").average(ofProperty: "age") as Double? == nil)
        #expect(keepers.distinct(by: ["rank"]).count == 2)
    }
}
