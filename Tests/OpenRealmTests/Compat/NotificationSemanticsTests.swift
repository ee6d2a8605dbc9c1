// NotificationSemanticsTests.swift — what Realm Swift documents of its notifications, beyond the
// mechanics the Objects and Collections tests check: every set of a property is a change (even
// to the value it had), the update policies' reports, and the initial notification of an
// observation followed at once by a write.

import Foundation
import Testing

import OpenRealm

/// A primary-keyed model for the update policies.
final class PolicyItem: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var count: Int
    @Persisted var dog: Dog?
}

/// The names of the properties an object observer was told changed, one array per call;
/// "deleted" for a deletion.
private func observeNames<T: Object>(_ object: T) -> (NotificationToken, Changes<[String]>) {
    let changes = Changes<[String]>()
    let token = object.observe { (change: ObjectChange<T>) in
        switch change {
        case .change(_, let properties): changes.append(properties.map(\.name))
        case .deleted: changes.append(["deleted"])
        case .error: changes.append(["error"])
        }
    }
    return (token, changes)
}

private func policyRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "semantics-\(UUID().uuidString)",
                                   objectTypes: [PolicyItem.self, Dog.self, Person.self, Address.self, Collections.self]))
}

@Suite("Realm's notification semantics")
struct NotificationSemanticsTests {
    // Object.observe: "The block will be asynchronously called after each write transaction
    // which deletes the object or modifies any of the managed properties of the object,
    // including self-assignments that set a property to its existing value."
    @Test("setting a property to the value it has notifies its observers")
    func sameValueIsAChange() throws {
        let realm = try policyRealm()
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
        let item = try realm.write { realm.create(PolicyItem.self, value: ["id": 1, "name": "a", "count": 2, "dog": dog]) }
        let (token, changes) = observeNames(item)
        defer { token.invalidate() }
        let (resultsToken, resultsChanges) = record(realm.objects(PolicyItem.self))
        defer { resultsToken.invalidate() }
        realm.refresh()
        #expect(resultsChanges.take() == [.initial(1)])
        try realm.write { item.count = 2 }
        realm.refresh()
        #expect(changes.take() == [["count"]])
        #expect(resultsChanges.take() == [.update(1, deletions: [], insertions: [], modifications: [0])])
        // A link set to the object it links to.
        try realm.write { item.dog = dog }
        realm.refresh()
        #expect(changes.take() == [["dog"]])
        // A list element and a dictionary value set to the values they have.
        let holder = try realm.write { realm.create(Collections.self, value: ["ints": [1, 2], "doubles": ["a": 1.0]]) }
        let (listToken, list) = record(holder.ints)
        defer { listToken.invalidate() }
        let maps = Changes<[String]>()
        let mapToken = holder.doubles.observe { change in
            if case .update(_, _, _, let modifications) = change { maps.append(modifications) }
        }
        defer { mapToken.invalidate() }
        realm.refresh()
        _ = list.take()
        try realm.write {
            holder.ints[0] = 1
            holder.doubles["a"] = 1.0
        }
        realm.refresh()
        #expect(list.take() == [.update(2, deletions: [], insertions: [], modifications: [0])])
        #expect(maps.take() == [["a"]])
        // Set to another value and back in one transaction.
        try realm.write {
            item.name = "b"
            item.name = "a"
        }
        realm.refresh()
        #expect(changes.take() == [["name"]])
    }

    // UpdatePolicy.all: "Overwrite all properties in the existing object with the new values,
    // even if they have not changed. This results in change notifications reporting all
    // properties as changed." UpdatePolicy.modified: "Overwrite only properties in the existing
    // object which are different from the new values. This results in change notifications
    // reporting only the properties which changed."
    @Test("add(_:update: .all) reports every property; .modified only those that differ")
    func addPolicies() throws {
        let realm = try policyRealm()
        try realm.write { realm.add(PolicyItem(value: ["id": 1, "name": "a", "count": 2])) }
        let item = try #require(realm.object(ofType: PolicyItem.self, forPrimaryKey: 1))
        let (token, changes) = observeNames(item)
        defer { token.invalidate() }
        realm.refresh()
        try realm.write { realm.add(PolicyItem(value: ["id": 1, "name": "a", "count": 2]), update: .all) }
        realm.refresh()
        #expect(changes.take() == [["name", "count", "dog"]])
        try realm.write { realm.add(PolicyItem(value: ["id": 1, "name": "a", "count": 2]), update: .modified) }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { realm.add(PolicyItem(value: ["id": 1, "name": "a", "count": 5]), update: .modified) }
        realm.refresh()
        #expect(changes.take() == [["count"]])
    }

    // The same policies through create(_:value:update:): .all sets the properties `value` gives,
    // .modified those whose values differ.
    @Test("create(_:value:update:) with .all and .modified")
    func createPolicies() throws {
        let realm = try policyRealm()
        let item = try realm.write { realm.create(PolicyItem.self, value: ["id": 1, "name": "a", "count": 2]) }
        let (token, changes) = observeNames(item)
        defer { token.invalidate() }
        realm.refresh()
        try realm.write { realm.create(PolicyItem.self, value: ["id": 1, "name": "a", "count": 2], update: .modified) }
        realm.refresh()
        #expect(changes.take().isEmpty)
        try realm.write { realm.create(PolicyItem.self, value: ["id": 1, "name": "a", "count": 3], update: .modified) }
        realm.refresh()
        #expect(changes.take() == [["count"]])
        try realm.write { realm.create(PolicyItem.self, value: ["id": 1, "name": "a", "count": 3], update: .all) }
        realm.refresh()
        #expect(changes.take() == [["name", "count"]])
        try realm.write { realm.create(PolicyItem.self, value: [1, "a", 3], update: .modified) }
        realm.refresh()
        #expect(changes.take().isEmpty)
        #expect(item.count == 3)
        // A link: set when it links elsewhere, left alone when it links to the same object.
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        realm.refresh()
        try realm.write { realm.create(PolicyItem.self, value: ["id": 1, "dog": dog], update: .modified) }
        realm.refresh()
        #expect(changes.take() == [["dog"]])
        try realm.write { realm.create(PolicyItem.self, value: ["id": 1, "dog": dog], update: .modified) }
        realm.refresh()
        #expect(changes.take().isEmpty)
    }

    // RealmCollection.observe: "the following code performs a write transaction immediately
    // after adding the notification block, so there is no opportunity for the initial
    // notification to be delivered first. As a result, the initial notification will reflect
    // the state of the Realm after the write transaction." (and `.update` "Will not be hit in
    // this example").
    @Test("a write right after observe: the initial notification reflects it, no update")
    func writeRightAfterObserve() throws {
        let realm = try policyRealm()
        let person = try realm.write { realm.create(Person.self, value: ["id": 1]) }
        let (resultsToken, results) = record(realm.objects(Dog.self))
        defer { resultsToken.invalidate() }
        let (listToken, list) = record(person.dogs)
        defer { listToken.invalidate() }
        try realm.write { person.dogs.append(Dog(value: ["name": "Rex"])) }
        realm.refresh()
        #expect(results.take() == [.initial(1)])
        #expect(list.take() == [.initial(1)])
        // Later writes are updates.
        try realm.write { person.dogs.append(Dog(value: ["name": "Fido"])) }
        realm.refresh()
        #expect(results.take() == [.update(2, deletions: [], insertions: [1], modifications: [])])
        #expect(list.take() == [.update(2, deletions: [], insertions: [1], modifications: [])])
    }

    @Test("two writes before the context runs: one initial notification with both")
    func twoWritesBeforeInitial() throws {
        let realm = try policyRealm()
        let (token, changes) = record(realm.objects(Dog.self))
        defer { token.invalidate() }
        try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
        try realm.write { realm.create(Dog.self, value: ["name": "Fido"]) }
        realm.refresh()
        #expect(changes.take() == [.initial(2)])
    }
}
