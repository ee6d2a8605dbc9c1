// DynamicObjectTests.swift — objects read and written by class and property name:
// Realm.dynamicObjects(_:), dynamicObject(ofType:forPrimaryKey:), DynamicObject's subscripts and
// key-value coding over a Realm, and dynamicList / dynamicMutableSet / dynamicMap on model objects.

import Foundation
import Testing

import OpenRealm

final class DynPetDog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
}

final class DynAddress: EmbeddedObject {
    @Persisted var street: String
    @Persisted var number: Int
}

final class DynKeeper: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var address: DynAddress?
    @Persisted var name: String
    @Persisted var nickname: String?
    @Persisted var best: DynPetDog?
    @Persisted var dogs: List<DynPetDog>
    @Persisted var friends: MutableSet<DynPetDog>
    @Persisted var pets: Map<String, DynPetDog?>
    @Persisted var scores: List<Int>
    @Persisted var tags: Map<String, String>
}

final class DynNote: Object {
    @Persisted var text: String
}

/// A Realm holding two keepers and three dogs: Ada (id 1: best Rex; dogs Rex, Ace; friend
/// Rex; pet "first" Rex; scores 3, 5) and Bo (id 2: no best, dog Bolt), dogs Rex 3, Ace 5,
/// Bolt 1.
private func keepersRealm(_ identifier: String) throws -> Realm {
    let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier, objectTypes: [DynKeeper.self, DynPetDog.self, DynNote.self, DynAddress.self]))
    try realm.write {
        realm.deleteAll()  // what a stopped test process may have left in the in-memory file
        let rex = DynPetDog(value: ["name": "Rex", "age": 3])
        let ace = DynPetDog(value: ["name": "Ace", "age": 5])
        let bolt = DynPetDog(value: ["name": "Bolt", "age": 1])
        let ada = DynKeeper(value: ["id": 1, "name": "Ada", "best": rex, "scores": [3, 5]])
        ada.dogs.append(objectsIn: [rex, ace])
        ada.friends.insert(rex)
        ada.pets["first"] = rex
        ada.tags["role"] = "owner"
        let bo = DynKeeper(value: ["id": 2, "name": "Bo"])
        bo.dogs.append(bolt)
        realm.add([ada, bo])
    }
    return realm
}

@Suite("DynamicObject over a Realm")
struct DynamicObjectTests {
    @Test("dynamicObjects counts, filters and sorts the objects of a class by name")
    func dynamicObjectsQueries() throws {
        let realm = try keepersRealm("openrealm-dyn-queries")
        let dogs = realm.dynamicObjects("DynPetDog")
        #expect(dogs.count == 3)
        #expect(dogs.filter("age > %@", 2).count == 2)
        #expect(dogs.sorted(byKeyPath: "age").map { $0["name"] as? String } == ["Bolt", "Rex", "Ace"])
        #expect(dogs.sorted(byKeyPath: "name", ascending: false).first?["name"] as? String == "Rex")
        #expect(dogs.max(ofProperty: "age") as Int? == 5)
        #expect(dogs.sum(ofProperty: "age") as Int == 9)
        let keepers = realm.dynamicObjects("DynKeeper")
        // Key paths through links and collections.
        #expect(keepers.filter("best.age == 3").map { $0["name"] as? String } == ["Ada"])
        #expect(keepers.filter("ANY dogs.name == %@", "Bolt").first?["id"] as? Int == 2)
        // Live: a new object is counted.
        try realm.write { realm.add(DynPetDog(value: ["name": "Dot", "age": 7])) }
        #expect(dogs.count == 4)
        #expect(dogs.filter("age > %@", 2).count == 3)
        // A class whose table holds no object yet.
        #expect(realm.dynamicObjects("DynNote").isEmpty)
        // Described as Realm describes them: by the class of their table.
        #expect(dogs.description.hasPrefix("Results<DynPetDog> <0x"))
        #expect(dogs.description.contains("[0] DynPetDog {\n\t\tname = Rex;"))
        let ada = try #require(realm.object(ofType: DynKeeper.self, forPrimaryKey: 1))
        #expect(ada.dynamicList("dogs").description.hasPrefix("List<DynPetDog> <0x"))
        #expect(ada.dynamicMutableSet("friends").description.hasPrefix("MutableSet<DynPetDog> <0x"))
        #expect((ada.dynamicMap("pets") as Map<String, DynamicObject?>).description.hasPrefix("Map<string, DynPetDog> <0x"))
    }

    @Test("dynamicObject(ofType:forPrimaryKey:) finds an object by its primary key")
    func objectForPrimaryKey() throws {
        let realm = try keepersRealm("openrealm-dyn-pk")
        let rex = try #require(realm.dynamicObject(ofType: "DynPetDog", forPrimaryKey: "Rex"))
        #expect(rex["age"] as? Int == 3)
        #expect(rex.value(forKey: "name") as? String == "Rex")
        #expect(rex.age as? Int == 3)
        #expect(realm.dynamicObject(ofType: "DynPetDog", forPrimaryKey: "Zed") == nil)
        let ada = try #require(realm.dynamicObject(ofType: "DynKeeper", forPrimaryKey: 1))
        #expect(ada["name"] as? String == "Ada")
        #expect(ada["nickname"] == nil)
        // The same object as the typed accessor.
        let typed = try #require(realm.object(ofType: DynPetDog.self, forPrimaryKey: "Rex"))
        #expect(rex.isSameObject(as: typed))
        #expect(rex.realm == realm)
        #expect(rex.objectSchema.className == "DynPetDog")
        #expect(rex.objectSchema.primaryKeyProperty?.name == "name")
        #expect(ada.objectSchema["best"]?.objectClassName == "DynPetDog")
        #expect(ada.objectSchema["dogs"]?.isArray == true)
        #expect(ada.objectTypeName == "DynKeeper")
        #expect(rex.description.hasPrefix("DynPetDog {\n\tname = Rex;\n\tage = 3;\n}"))
    }

    @Test("links read as DynamicObjects, collections as typed collections of the property")
    func readsLinksAndCollections() throws {
        let realm = try keepersRealm("openrealm-dyn-read")
        let ada = try #require(realm.dynamicObject(ofType: "DynKeeper", forPrimaryKey: 1))
        let best = try #require(ada["best"] as? DynamicObject)
        #expect(best["name"] as? String == "Rex")
        #expect(best.objectTypeName == "DynPetDog")
        let dogs = try #require(ada["dogs"] as? List<DynamicObject>)
        #expect(dogs.map { $0["name"] as? String } == ["Rex", "Ace"])
        #expect(dogs.filter("age > 4").first?["name"] as? String == "Ace")
        #expect(dogs.sorted(byKeyPath: "age", ascending: false).first?["name"] as? String == "Ace")
        let friends = try #require(ada["friends"] as? MutableSet<DynamicObject>)
        #expect(friends.count == 1)
        let pets = try #require(ada["pets"] as? Map<String, DynamicObject?>)
        #expect(pets["first"]??["age"] as? Int == 3)
        #expect((ada["scores"] as? List<Int>).map(Array.init) == [3, 5])
        #expect((ada["tags"] as? Map<String, String>)?["role"] == "owner")
        let bo = try #require(realm.dynamicObject(ofType: "DynKeeper", forPrimaryKey: 2))
        #expect(bo["best"] == nil)
    }

    @Test("subscripts and setValue(_:forKey:) write in a write transaction")
    func writes() throws {
        let realm = try keepersRealm("openrealm-dyn-write")
        let ada = try #require(realm.dynamicObject(ofType: "DynKeeper", forPrimaryKey: 1))
        let bolt = try #require(realm.dynamicObject(ofType: "DynPetDog", forPrimaryKey: "Bolt"))
        let ace = try #require(realm.object(ofType: DynPetDog.self, forPrimaryKey: "Ace"))
        try realm.write {
            ada["name"] = "Ada L."
            ada.setValue("Countess", forKey: "nickname")
            ada["best"] = bolt
            ada.scores = [8]
            (ada["dogs"] as! List<DynamicObject>).append(bolt)
            ada.dynamicMutableSet("friends").insert(bolt)
            bolt["age"] = 2
        }
        let typed = try #require(realm.object(ofType: DynKeeper.self, forPrimaryKey: 1))
        #expect(typed.name == "Ada L.")
        #expect(typed.nickname == "Countess")
        #expect(typed.best?.name == "Bolt")
        #expect(Array(typed.scores) == [8])
        #expect(typed.dogs.map(\.name) == ["Rex", "Ace", "Bolt"])
        #expect(typed.friends.count == 2)
        #expect(typed.best?.age == 2)
        // A model object (of the link's class) and nil are links too.
        try realm.write {
            ada["best"] = ace
            ada["nickname"] = nil
        }
        #expect(typed.best?.name == "Ace")
        #expect(typed.nickname == nil)
        try realm.write { ada.best = nil }
        #expect(typed.best == nil)
        // Deleting through a DynamicObject.
        try realm.write { realm.delete(bolt) }
        #expect(bolt.isInvalidated)
        #expect(realm.dynamicObjects("DynPetDog").count == 2)
    }

    @Test("a link to an embedded object takes a dictionary, an array or an unmanaged object")
    func embeddedObjects() throws {
        let realm = try keepersRealm("openrealm-dyn-embedded")
        let ada = try #require(realm.dynamicObject(ofType: "DynKeeper", forPrimaryKey: 1))
        let typed = try #require(realm.object(ofType: DynKeeper.self, forPrimaryKey: 1))
        try realm.write { ada["address"] = ["street": "Main", "number": 3] }
        #expect(typed.address?.street == "Main" && typed.address?.number == 3)
        let address = try #require(ada["address"] as? DynamicObject)
        #expect(address.objectTypeName == "DynAddress")
        #expect(address["street"] as? String == "Main")
        try realm.write { address["number"] = 4 }
        #expect(typed.address?.number == 4)
        try realm.write { ada["address"] = ["High", 9] }
        #expect(typed.address?.street == "High" && typed.address?.number == 9)
        try realm.write { ada.address = DynAddress(value: ["street": "Low", "number": 1]) }
        #expect(typed.address?.street == "Low")
        try realm.write { ada["address"] = nil }
        #expect(typed.address == nil)
        #expect(realm.dynamicObjects("DynKeeper").filter("address == nil").count == 2)
    }

    @Test("dynamicList, dynamicMutableSet and dynamicMap of a model object")
    func modelObjectCollections() throws {
        let realm = try keepersRealm("openrealm-dyn-model")
        let ada = try #require(realm.object(ofType: DynKeeper.self, forPrimaryKey: 1))
        let dogs = ada.dynamicList("dogs")
        #expect(dogs.count == 2)
        #expect(dogs[0].isSameObject(as: ada.dogs[0]))
        #expect(dogs[1]["name"] as? String == "Ace")
        #expect(ada.dynamicMutableSet("friends").contains { $0.isSameObject(as: ada.best) })
        let pets: Map<String, DynamicObject?> = ada.dynamicMap("pets")
        #expect(pets["first"]??["name"] as? String == "Rex")
        // Live and writable: the typed list sees the change.
        let bolt = try #require(realm.dynamicObject(ofType: "DynPetDog", forPrimaryKey: "Bolt"))
        try realm.write { dogs.append(bolt) }
        #expect(ada.dogs.map(\.name) == ["Rex", "Ace", "Bolt"])
        #expect(dogs.filter("age < 2").count == 1)
        let bo = try #require(realm.object(ofType: DynKeeper.self, forPrimaryKey: 2))
        #expect(bo.dynamicMutableSet("friends").count == 0)
    }

    @Test("dynamic objects and results are observed, frozen and thawed as typed ones")
    func observeAndFreeze() throws {
        let realm = try keepersRealm("openrealm-dyn-observe")
        let rex = try #require(realm.dynamicObject(ofType: "DynPetDog", forPrimaryKey: "Rex"))
        let seen = Changes<[String]>()
        let token = rex.observe { (change: ObjectChange<DynamicObject>) in
            if case .change(let object, let properties) = change {
                seen.append(properties.map { "\($0.name)=\($0.newValue.map { "\($0)" } ?? "nil")" } + ["\(object.objectTypeName)"])
            }
        }
        defer { token.invalidate() }
        let dogs = realm.dynamicObjects("DynPetDog").filter("age >= 3")
        let counts = Changes<Int>()
        let resultsToken = dogs.observe { change in
            if case .update(let results, _, _, _) = change { counts.append(results.count) }
            if case .initial(let results) = change { counts.append(results.count) }
        }
        defer { resultsToken.invalidate() }
        realm.refresh()
        try realm.write { realm.object(ofType: DynPetDog.self, forPrimaryKey: "Rex")!.age = 4 }
        try realm.write { realm.object(ofType: DynPetDog.self, forPrimaryKey: "Bolt")!.age = 3 }
        realm.refresh()
        #expect(seen.take() == [["age=4", "DynPetDog"]])
        #expect(counts.take() == [2, 2, 3])    // initial; Rex modified; Bolt inserted

        let frozen = dogs.freeze()
        #expect(frozen.isFrozen)
        let frozenRex = rex.freeze()
        try realm.write { rex["age"] = 9 }
        #expect(frozenRex["age"] as? Int == 4)
        #expect(frozen.count == 3)
        #expect(frozen.sorted(byKeyPath: "age").first?["name"] as? String == "Bolt")
        #expect(frozenRex.thaw()?["age"] as? Int == 9)
        #expect(frozen.thaw()?.count == 3)
    }

    @Test("dynamicList, dynamicMutableSet and dynamicMap of an unmanaged object write through to it")
    func unmanagedObjectCollections() throws {
        let rex = DynPetDog(value: ["name": "Rex", "age": 3])
        let ace = DynPetDog(value: ["name": "Ace", "age": 5])
        let keeper = DynKeeper(value: ["id": 7, "name": "Cy"])
        keeper.dogs.append(rex)
        keeper.pets["first"] = rex
        let dogs = keeper.dynamicList("dogs")
        #expect(dogs.count == 1)
        #expect(dogs[0]["name"] as? String == "Rex")
        #expect(dogs[0].isSameObject(as: rex))
        #expect(dogs[0].objectTypeName == "DynPetDog")
        #expect(dogs[0].objectSchema.className == "DynPetDog")
        #expect(dogs[0].description == rex.description)
        // Writes reach the unmanaged objects: a property, then the list itself.
        dogs[0]["age"] = 4
        #expect(rex.age == 4)
        // Each call gives DynamicObjects of the same objects.
        #expect(keeper.dynamicList("dogs")[0] == dogs[0])
        dogs.append(DynamicObjectTests.dynamic(ace))
        #expect(keeper.dogs.map(\.name) == ["Rex", "Ace"])
        dogs.remove(at: 0)
        #expect(keeper.dogs.map(\.name) == ["Ace"])
        let friends = keeper.dynamicMutableSet("friends")
        friends.insert(dogs[0])
        #expect(keeper.friends.map(\.name) == ["Ace"])
        let pets: Map<String, DynamicObject?> = keeper.dynamicMap("pets")
        #expect(pets["first"]??["name"] as? String == "Rex")
        pets["second"] = dogs[0]
        #expect(keeper.pets["second"]??.name == "Ace")
        #expect(keeper.pets.count == 2)
        // Added to a Realm, the object keeps what its dynamic collections wrote.
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-dyn-unmanaged",
                                                   objectTypes: [DynKeeper.self, DynPetDog.self, DynNote.self, DynAddress.self]))
        try realm.write { realm.add(keeper) }
        #expect(keeper.dynamicList("dogs").map { $0["name"] as? String } == ["Ace"])
        #expect(keeper.dynamicMutableSet("friends").count == 1)
    }

    /// A DynamicObject of the unmanaged `object`, as the dynamic collections give it.
    private static func dynamic(_ object: DynPetDog) -> DynamicObject {
        let holder = DynKeeper()
        holder.dogs.append(object)
        return holder.dynamicList("dogs")[0]
    }

    @Test("dynamicCreate creates and updates objects by class name")
    func dynamicCreate() throws {
        let realm = try keepersRealm("openrealm-dyn-create")
        let rex = try #require(realm.dynamicObject(ofType: "DynPetDog", forPrimaryKey: "Rex"))
        let created = try realm.write {
            realm.dynamicCreate("DynKeeper", value: ["id": 3, "name": "Cy", "best": rex, "dogs": [["name": "Dot", "age": 2]], "scores": [1, 2]])
        }
        #expect(created.objectTypeName == "DynKeeper")
        #expect(created["name"] as? String == "Cy")
        #expect((created["best"] as? DynamicObject)?.isSameObject(as: rex) == true)
        #expect((created["dogs"] as? List<DynamicObject>)?.first?["name"] as? String == "Dot")
        let typed = try #require(realm.object(ofType: DynKeeper.self, forPrimaryKey: 3))
        #expect(Array(typed.scores) == [1, 2])
        // An array in property order; an update by primary key.
        let note = try realm.write { realm.dynamicCreate("DynNote", value: ["hello"]) }
        #expect(note["text"] as? String == "hello")
        try realm.write { realm.dynamicCreate("DynKeeper", value: ["id": 3, "name": "Cy B."], update: .modified) }
        #expect(typed.name == "Cy B.")
        #expect(typed.best?.name == "Rex")
        #expect(realm.dynamicObjects("DynKeeper").count == 3)
    }

    @Test("dynamicCreate with an update policy for a class without a primary key stops")
    func dynamicCreateWithoutPrimaryKey() async {
        defer { removeInMemoryRealm("openrealm-dyn-create-nokey") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-create-nokey")
            try realm.write { realm.dynamicCreate("DynNote", value: ["text": "x"], update: .all) }
        }
        expectStop("'DynNote' does not have a primary key and can not be updated", result)
    }

    @Test("an unknown class name stops with Realm's message")
    func unknownType() async {
        defer { removeInMemoryRealm("openrealm-dyn-unknown") }
        defer { removeInMemoryRealm("openrealm-dyn-unknown-pk") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-unknown")
            _ = realm.dynamicObjects("NoSuchClass")
        }
        expectStop("Object type 'NoSuchClass' is not managed by the Realm. If using a custom `objectClasses` / `objectTypes` array in your configuration, add `NoSuchClass` to the list of `objectClasses` / `objectTypes`.", result)
        let byKey = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-unknown-pk")
            _ = realm.dynamicObject(ofType: "NoSuchClass", forPrimaryKey: 1)
        }
        expectStop("Object type 'NoSuchClass' is not managed by the Realm.", byKey)
    }

    @Test("a primary key of the wrong type stops with Realm's message")
    func wrongKeyType() async {
        defer { removeInMemoryRealm("openrealm-dyn-keytype") }
        defer { removeInMemoryRealm("openrealm-dyn-nokey") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-keytype")
            _ = realm.dynamicObject(ofType: "DynKeeper", forPrimaryKey: "one")
        }
        expectStop("Invalid value 'one' of type 'String' for 'int' property 'DynKeeper.id'.", result)
        let noKey = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-nokey")
            _ = realm.dynamicObject(ofType: "DynNote", forPrimaryKey: "x")
        }
        expectStop("DynNote does not have a primary key", noKey)
    }

    @Test("an unknown property name stops with Realm's message")
    func unknownProperty() async {
        defer { removeInMemoryRealm("openrealm-dyn-prop") }
        defer { removeInMemoryRealm("openrealm-dyn-noList") }
        let read = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-prop")
            _ = realm.dynamicObjects("DynPetDog").first?["color"]
        }
        expectStop("Invalid property name 'color' for class 'DynPetDog'.", read)
        let list = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-noList")
            _ = realm.object(ofType: DynKeeper.self, forPrimaryKey: 1)!.dynamicList("noSuchList")
        }
        expectStop("Invalid property name 'noSuchList' for class 'DynKeeper'.", list)
    }

    @Test("dynamicList of a property that is no list of objects stops")
    func wrongCollectionType() async {
        defer { removeInMemoryRealm("openrealm-dyn-wrongtype") }
        defer { removeInMemoryRealm("openrealm-dyn-values") }
        defer { removeInMemoryRealm("openrealm-dyn-setAsList") }
        let scalar = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-wrongtype")
            _ = realm.object(ofType: DynKeeper.self, forPrimaryKey: 1)!.dynamicList("name")
        }
        expectStop("Could not cast value of type 'String' to 'List<DynamicObject>': property 'DynKeeper.name' holds no List<DynamicObject>.", scalar)
        let values = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-values")
            _ = realm.object(ofType: DynKeeper.self, forPrimaryKey: 1)!.dynamicList("scores")
        }
        expectStop("Could not cast value of type 'List<Int>' to 'List<DynamicObject>'", values)
        let set = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-setAsList")
            _ = realm.dynamicObject(ofType: "DynKeeper", forPrimaryKey: 1)!.dynamicList("friends")
        }
        expectStop("Could not cast value of type 'MutableSet<DynamicObject>' to 'List<DynamicObject>'", set)
    }

    @Test("DynamicObject is not a model class of the Realm")
    func notAModelClass() async {
        defer { removeInMemoryRealm("openrealm-dyn-objects") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-objects")
            try realm.write { _ = realm.objects(DynamicObject.self).count }
        }
        expectStop("Object type 'DynamicObject' is not managed by the Realm.", result)
    }

    @Test("a write outside a write transaction stops with Realm's message")
    func writeOutsideTransaction() async {
        defer { removeInMemoryRealm("openrealm-dyn-nowrite") }
        defer { removeInMemoryRealm("openrealm-dyn-pkwrite") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-nowrite")
            realm.dynamicObject(ofType: "DynPetDog", forPrimaryKey: "Rex")!["age"] = 4
        }
        expectStop("Attempting to modify object outside of a write transaction", result)
        let key = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try keepersRealm("openrealm-dyn-pkwrite")
            let rex = realm.dynamicObject(ofType: "DynPetDog", forPrimaryKey: "Rex")!
            try realm.write { rex["name"] = "Max" }
        }
        expectStop("Primary key can't be changed after an object is inserted.", key)
    }
}
