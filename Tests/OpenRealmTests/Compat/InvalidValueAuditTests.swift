// InvalidValueAuditTests.swift — how the "Invalid value" message of a refused value names the
// property's type, as Realm Swift's RLMThrowTypeError does: a link by its class with '?', the
// other types by Realm's names (data, date, object id), a collection's kind after the quotes.

import Foundation
import Testing

import OpenRealm

final class InvalidValueAuditDog: Object {
    @Persisted var name: String
}

final class InvalidValueAuditNote: Object {
    @Persisted var text: String
}

final class InvalidValueAuditHolder: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var dog: InvalidValueAuditDog?
    @Persisted var dogs: List<InvalidValueAuditDog>
    @Persisted var numbers: MutableSet<Int>
    @Persisted var labels: Map<String, String?>
    @Persisted var reference: ObjectId?
}

@Suite("Invalid value messages name types as Realm Swift")
struct InvalidValueAuditTests {
    @Test("an object of another class for a link names the linked class, optional")
    func wrongClassForLink() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            InvalidValueAuditHolder().setValue(InvalidValueAuditNote(value: ["hi"]), forKey: "dog")
        }
        expectStop("' of type 'InvalidValueAuditNote' for 'InvalidValueAuditDog?' property 'InvalidValueAuditHolder.dog'.",
                   result)
    }

    @Test("a managed object of another class given to create for a link")
    func wrongClassForLinkInCreate() async {
        removeInMemoryRealm("openrealm-exit-wrongClassForLinkInCreate")
        defer { removeInMemoryRealm("openrealm-exit-wrongClassForLinkInCreate") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(
                inMemoryIdentifier: "openrealm-exit-wrongClassForLinkInCreate",
                objectTypes: [InvalidValueAuditDog.self, InvalidValueAuditNote.self, InvalidValueAuditHolder.self]))
            try realm.write {
                let note = realm.create(InvalidValueAuditNote.self, value: ["hi"])
                realm.create(InvalidValueAuditHolder.self, value: ["id": ObjectId.generate(), "dog": note])
            }
        }
        expectStop("' of type 'InvalidValueAuditNote' for 'InvalidValueAuditDog?' property 'InvalidValueAuditHolder.dog'.",
                   result)
    }

    @Test("a value that holds no elements for a list, a set or a map is not enumerable")
    func notEnumerable() async {
        let list = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            InvalidValueAuditHolder().setValue(5, forKey: "dogs")
        }
        expectStop("Invalid value (5) for 'InvalidValueAuditDog' array property 'InvalidValueAuditHolder.dogs': "
                   + "value is not enumerable.", list)
        // A string is a Swift sequence, but no NSFastEnumeration: Realm refuses it too.
        let set = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            InvalidValueAuditHolder()["numbers"] = "one"
        }
        expectStop("Invalid value (one) for 'int' set property 'InvalidValueAuditHolder.numbers': value is not enumerable.", set)
        let map = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            InvalidValueAuditHolder().setValue(2.5, forKey: "labels")
        }
        expectStop("Invalid value (2.5) for 'string?' dictionary property 'InvalidValueAuditHolder.labels': "
                   + "value is not enumerable.", map)
    }

    @Test("an ObjectId property is an 'object id' one")
    func objectIdName() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            InvalidValueAuditHolder().setValue(7, forKey: "reference")
        }
        expectStop("Invalid value '7' of type 'Int' for 'object id?' property 'InvalidValueAuditHolder.reference'.", result)
    }

    @Test("a primary key of the wrong type given to object(ofType:forPrimaryKey:)")
    func primaryKeyLookup() async {
        removeInMemoryRealm("openrealm-exit-invalidValuePrimaryKeyLookup")
        defer { removeInMemoryRealm("openrealm-exit-invalidValuePrimaryKeyLookup") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(
                inMemoryIdentifier: "openrealm-exit-invalidValuePrimaryKeyLookup",
                objectTypes: [InvalidValueAuditDog.self, InvalidValueAuditHolder.self]))
            _ = realm.object(ofType: InvalidValueAuditHolder.self, forPrimaryKey: 12)
        }
        expectStop("Invalid value '12' of type 'Int' for 'object id' property 'InvalidValueAuditHolder.id'.", result)
    }
}
