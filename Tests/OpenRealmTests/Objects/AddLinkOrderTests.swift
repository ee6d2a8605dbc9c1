// AddLinkOrderTests.swift — adding an object whose to-one link and an earlier list hold the same
// new object: the list adds it first, and the link must still be written.

import Foundation
import Testing

import OpenRealm

final class ListFirstOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var pets: List<ListFirstPet>
    @Persisted var favourite: ListFirstPet?
}

final class ListFirstPet: Object {
    @Persisted var name: String
}

@Suite("Adding links to objects a list adds")
struct AddLinkOrderTests {
    @Test("a link to an object an earlier list of the same object adds is kept")
    func linkAfterList() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "add-link-order",
                                                   objectTypes: [ListFirstOwner.self, ListFirstPet.self]))
        try realm.write {
            let rex = ListFirstPet(value: ["name": "Rex"])
            let owner = ListFirstOwner(value: ["id": 1])
            owner.pets.append(rex)
            owner.favourite = rex
            realm.add(owner)
        }
        let owner = try #require(realm.objects(ListFirstOwner.self).first)
        #expect(owner.favourite?.name == "Rex")
        #expect(realm.objects(ListFirstPet.self).count == 1)
        // The same row (== is identity for an object without a primary key, as Realm's isEqual).
        #expect(try #require(owner.favourite).isSameObject(as: owner.pets.first))
        try realm.write {
            let ace = ListFirstPet(value: ["name": "Ace"])
            let second = ListFirstOwner(value: ["id": 2])
            second.pets.append(ace)
            second.favourite = ace
            realm.add(second, update: .modified)
        }
        #expect(realm.object(ofType: ListFirstOwner.self, forPrimaryKey: 2)?.favourite?.name == "Ace")
    }
}
