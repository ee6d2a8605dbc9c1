// NotificationSemanticsTests.swift — what Realm Swift documents of its notifications, beyond the
// mechanics the Objects and Collections tests check: the initial notification of an observation
// followed at once by a write.

import Foundation
import Testing

import OpenRealm

private func policyRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "semantics-\(UUID().uuidString)",
                                   objectTypes: [Dog.self, Person.self, Address.self]))
}

@Suite("Realm's notification semantics")
struct NotificationSemanticsTests {
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
