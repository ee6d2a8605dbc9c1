// RealmConformanceTests.swift — Realm's documented behaviour of the Realm itself and of object
// creation and deletion (write rules, add and create with update policies, nested values,
// primary keys, delete), each checked against OpenRealm in a named case.

import Foundation
import Testing

import OpenRealm

// MARK: - Models of these tests

final class ConfPrimaryString: Object {
    @Persisted(primaryKey: true) var stringCol: String
    @Persisted var intCol: Int
}

final class ConfLinkToPrimaryString: Object {
    @Persisted(primaryKey: true) var pk: String
    @Persisted var object: ConfPrimaryString?
    @Persisted var objects: List<ConfPrimaryString>
}

final class ConfOptionalPrimary: Object {
    @Persisted(primaryKey: true) var id: Int?
    @Persisted var optInt: Int?
    @Persisted var optString: String?
    @Persisted var optDate: Date?
    @Persisted var optData: Data?
    @Persisted var optObject: ConfPlain?
}

final class ConfOptionalStringPrimary: Object {
    @Persisted(primaryKey: true) var key: String?
    @Persisted var intCol: Int
}

final class ConfPlain: Object {
    @Persisted var boolCol: Bool
    @Persisted var intCol: Int
}

final class ConfCompany: Object {
    @Persisted var name: String
    @Persisted var employees: List<ConfPlain>
    @Persisted var employeeSet: MutableSet<ConfPlain>
}

final class ConfInner: EmbeddedObject {
    @Persisted var value: Int
    @Persisted var children: List<ConfInner>
}

final class ConfEmbeddedParent: Object {
    @Persisted var value: Int
    @Persisted var inner: ConfInner?
    @Persisted var array: List<ConfInner>
}

final class ConfValues: Object {
    @Persisted var boolCol: Bool
    @Persisted var intCol: Int
    @Persisted var floatCol: Float
    @Persisted var doubleCol: Double
    @Persisted var stringCol: String
    @Persisted var decimalCol: Decimal128
    @Persisted var objectIdCol: ObjectId
    @Persisted var objectCol: ConfPlain?
    @Persisted var arrayCol: List<ConfPlain>
}

private let confTypes: [ObjectBase.Type] = [ConfValues.self,
    ConfPrimaryString.self, ConfLinkToPrimaryString.self, ConfOptionalPrimary.self, ConfOptionalStringPrimary.self,
    ConfPlain.self, ConfCompany.self, ConfInner.self, ConfEmbeddedParent.self,
]

/// A new in-memory Realm of these tests' models.
private func confRealm(_ identifier: String = "conf-\(UUID().uuidString)") throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: identifier, objectTypes: confTypes))
}

@Suite("Realm conformance: transactions")
struct RealmConformanceTransactionTests {
    @Test("isEmpty follows creation, cancelWrite and commitWrite")
    func isEmpty() throws {
        let realm = try confRealm()
        #expect(realm.isEmpty)
        realm.beginWrite()
        realm.create(ConfPlain.self, value: [true, 0])
        #expect(!realm.isEmpty)
        realm.cancelWrite()
        #expect(realm.isEmpty)
        realm.beginWrite()
        realm.create(ConfPlain.self, value: [true, 0])
        try realm.commitWrite()
        #expect(!realm.isEmpty)
    }

    @Test("cancelWrite inside write ends the transaction; write then returns without committing")
    func cancelInsideWrite() throws {
        let realm = try confRealm()
        var created: ConfPlain?
        try realm.write {
            #expect(realm.isInWriteTransaction)
            created = realm.create(ConfPlain.self)
            realm.cancelWrite()
            #expect(!realm.isInWriteTransaction)
        }
        #expect(created?.isInvalidated == true)
        #expect(realm.objects(ConfPlain.self).count == 0)
    }

    @Test("invalidate ends a write transaction")
    func invalidateEndsWrite() throws {
        let realm = try confRealm()
        realm.beginWrite()
        realm.create(ConfPlain.self)
        realm.invalidate()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(ConfPlain.self).count == 0)
    }

    @Test("after invalidate, new writes work and old objects stay invalidated")
    func invalidateThenWrite() throws {
        let realm = try confRealm()
        let object = ConfPlain()
        try realm.write { realm.add(object) }
        realm.invalidate()
        #expect(object.isInvalidated)
        try realm.write { realm.add(ConfPlain()) }
        #expect(realm.objects(ConfPlain.self).count == 2)
        #expect(object.isInvalidated)
    }

    @Test("a write of another Realm inside a write is allowed")
    func writeInOtherRealm() throws {
        let a = try confRealm()
        let b = try confRealm()
        try a.write {
            try b.write { b.create(ConfPlain.self) }
            a.create(ConfPlain.self)
        }
        #expect(a.objects(ConfPlain.self).count == 1)
        #expect(b.objects(ConfPlain.self).count == 1)
    }

    @Test("a block that throws after creating cancels and rethrows the block's error")
    func throwingWrite() throws {
        struct Intentional: Error {}
        let realm = try confRealm()
        #expect(throws: Intentional.self) {
            try realm.write {
                realm.create(ConfPlain.self)
                throw Intentional()
            }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.isEmpty)
    }

    @Test("Realm instances are equal for one configuration on one thread, different for another")
    func equality() throws {
        let id = "conf-eq-\(UUID().uuidString)"
        let realm = try confRealm(id)
        #expect(try realm == confRealm(id))
        #expect(try realm != confRealm())
    }

    @Test("fileURL is kept; fileExists and deleteFiles follow the file")
    func files() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("conf-\(UUID().uuidString).realm")
        let config = Realm.Configuration(fileURL: url, objectTypes: confTypes)
        #expect(!Realm.fileExists(for: config))
        try onOtherThread {
            let realm = try Realm(configuration: config)
            #expect(realm.configuration.fileURL == url)
        }
        waitUntilClosedEverywhere(url)
        #expect(Realm.fileExists(for: config))
        #expect(try Realm.deleteFiles(for: config))
        #expect(!Realm.fileExists(for: config))
    }
}

@Suite("Realm conformance: add, create and delete")
struct RealmConformanceObjectTests {
    @Test("adding an object twice in the same Realm is a no-op")
    func addTwice() throws {
        let realm = try confRealm()
        try realm.write {
            let object = ConfPlain()
            realm.add(object)
            realm.add(object)
            #expect(realm.objects(ConfPlain.self).count == 1)
        }
    }

    @Test("add(update: .all) of two new objects with one key keeps one")
    func addUpdateMany() throws {
        let realm = try confRealm()
        try realm.write {
            realm.add([ConfPrimaryString(), ConfPrimaryString()], update: .all)
        }
        #expect(realm.objects(ConfPrimaryString.self).count == 1)
    }

    @Test("delete of a List's objects, of a MutableSet's and of filtered Results")
    func deleteCollections() throws {
        let realm = try confRealm()
        try realm.write {
            let company = ConfCompany()
            company.employees.append(ConfPlain())
            company.employeeSet.insert(ConfPlain())
            realm.add(company)
            #expect(realm.objects(ConfPlain.self).count == 2)
            realm.delete(company.employees)
            #expect(company.employees.count == 0)
            realm.delete(company.employeeSet)
            #expect(company.employeeSet.count == 0)
            #expect(realm.objects(ConfPlain.self).count == 0)
            realm.add([ConfPlain(value: [false, 1]), ConfPlain(value: [false, 1]), ConfPlain(value: [false, 2])])
            realm.delete(realm.objects(ConfPlain.self).filter("intCol = 1"))
            #expect(realm.objects(ConfPlain.self).count == 1)
        }
    }

    @Test("deleting an object already deleted through another accessor does nothing")
    func deleteDeletedElsewhere() throws {
        let realm = try confRealm()
        let object = try realm.write { realm.create(ConfPlain.self) }
        let other = realm.objects(ConfPlain.self)[0]
        try realm.write {
            realm.delete(other)
            realm.delete(object)
        }
        #expect(object.isInvalidated)
        #expect(realm.isEmpty)
    }

    @Test("create from nested arrays makes the linked objects; an unmanaged value is copied")
    func createNested() throws {
        let realm = try confRealm()
        let standalone = ConfPrimaryString(value: ["p0", 11])
        let object = try realm.write {
            realm.create(ConfLinkToPrimaryString.self, value: ["p1", ["p1", 12] as [Any], [standalone]])
        }
        #expect(realm.objects(ConfPrimaryString.self).count == 2)
        let p0 = realm.object(ofType: ConfPrimaryString.self, forPrimaryKey: "p0")
        let p1 = realm.object(ofType: ConfPrimaryString.self, forPrimaryKey: "p1")
        #expect(standalone.realm == nil)
        #expect(object.object == p1)
        #expect(object.objects.first == p0)
    }

    @Test("create(update: .all / .modified) with nested values updates the linked object")
    func updateNested() throws {
        for policy in [UpdatePolicy.all, .modified] {
            let realm = try confRealm()
            let object = try realm.write {
                realm.create(ConfLinkToPrimaryString.self,
                             value: ["other", ["primary", 12] as [Any], [["primary", 12] as [Any]]], update: policy)
            }
            #expect(realm.objects(ConfPrimaryString.self).count == 1)
            #expect(object.object?.intCol == 12)
            #expect(object.objects.first == object.object)
        }
    }

    @Test("create from an object of another Realm copies it, nested objects included")
    func createFromOtherRealm() throws {
        let a = try confRealm()
        let b = try confRealm()
        let source = try a.write {
            a.create(ConfLinkToPrimaryString.self, value: ["primary", NSNull(), [["2", 2] as [Any], ["4", 4]]])
        }
        let copy = try b.write { () -> ConfLinkToPrimaryString in
            b.create(ConfLinkToPrimaryString.self, value: ["primary", ["10", 10] as [Any], [["11", 11] as [Any]]])
            return b.create(ConfLinkToPrimaryString.self, value: source, update: .all)
        }
        #expect(copy != source)
        #expect(copy.realm == b)
        #expect(b.objects(ConfLinkToPrimaryString.self).count == 1)
        #expect(b.objects(ConfPrimaryString.self).count == 4)
        #expect(copy.objects.map(\.stringCol) == ["2", "4"])
        #expect(copy.object == nil)
    }

    @Test("create with NSNull for a link and a list gives nil and an empty list")
    func createNSNull() throws {
        let realm = try confRealm()
        let object = try realm.write {
            realm.create(ConfLinkToPrimaryString.self, value: ["pk": "a", "object": NSNull(), "objects": NSNull()])
        }
        #expect(object.object == nil)
        #expect(object.objects.isEmpty)
    }

    @Test("create(update: .all) from an unmanaged object sets nil values back to nil")
    func createOrUpdateNil() throws {
        let realm = try confRealm()
        realm.beginWrite()
        let object = realm.create(ConfOptionalPrimary.self, value: ConfOptionalPrimary(), update: .all)
        #expect(object.id == nil && object.optInt == nil && object.optObject == nil)
        let filled = ConfOptionalPrimary()
        filled.optInt = 1
        filled.optString = ""
        filled.optDate = Date()
        filled.optData = Data()
        filled.optObject = ConfPlain()
        realm.create(ConfOptionalPrimary.self, value: filled, update: .all)
        #expect(object.optInt == 1 && object.optString == "" && object.optDate != nil)
        #expect(object.optData != nil && object.optObject != nil)
        realm.create(ConfOptionalPrimary.self, value: ConfOptionalPrimary(), update: .all)
        #expect(object.optInt == nil && object.optString == nil && object.optDate == nil)
        #expect(object.optData == nil && object.optObject == nil)
        #expect(realm.objects(ConfOptionalPrimary.self).count == 1)
        realm.cancelWrite()
    }

    @Test("add(update: .all) through a link updates the existing object of that key")
    func addUpdateExistingNested() throws {
        let realm = try confRealm()
        let existing = try realm.write { realm.create(ConfPrimaryString.self, value: ["primary", 1]) }
        let object = try realm.write { () -> ConfLinkToPrimaryString in
            let object = ConfLinkToPrimaryString(value: ["primary", ["primary", 2] as [Any], []])
            realm.add(object, update: .all)
            return object
        }
        #expect(object.realm != nil)
        #expect(object.object == existing)
        #expect(existing.intCol == 2)
    }

    @Test("create from a managed object with embedded objects copies them")
    func createEmbeddedCopy() throws {
        let realm = try confRealm()
        realm.beginWrite()
        let parent = realm.create(ConfEmbeddedParent.self, value: [
            "value": 1,
            "inner": ["value": 5, "children": [[7, []], [8, []]]] as [String: Any],
            "array": [[9, []], [10, []]],
        ])
        let copy = realm.create(ConfEmbeddedParent.self, value: parent)
        #expect(copy != parent)
        #expect(copy.inner?.value == 5)
        #expect(copy.inner?.children.map(\.value) == [7, 8])
        #expect(copy.array.map(\.value) == [9, 10])
        realm.cancelWrite()
    }

    @Test("create converts the values Realm accepts: numbers across types, decimals from strings, objects from values")
    func valueConversions() throws {
        let realm = try confRealm()
        let persisted = try realm.write { realm.create(ConfPlain.self, value: [true, 7]) }
        for bool in [true, NSNumber(value: 0), NSNumber(value: 1)] as [Any] {
            let object = try realm.write { realm.create(ConfValues.self, value: ["boolCol": bool]) }
            #expect(object.boolCol == (bool as? Bool ?? ((bool as! NSNumber).intValue == 1)))
        }
        for number in [NSNumber(value: 1), NSNumber(value: 1.5 as Float), NSNumber(value: 11.5)] {
            let object = try realm.write {
                realm.create(ConfValues.self, value: ["floatCol": number, "doubleCol": number])
            }
            #expect(object.floatCol == number.floatValue)
            #expect(object.doubleCol == number.doubleValue)
        }
        let ints = try realm.write { realm.create(ConfValues.self, value: ["intCol": NSNumber(value: 1)]) }
        #expect(ints.intCol == 1)
        for (decimal, expected) in [(1, Decimal128(1)), ("2", Decimal128(2)), (Decimal128(3), Decimal128(3))] as [(Any, Decimal128)] {
            let object = try realm.write { realm.create(ConfValues.self, value: ["decimalCol": decimal]) }
            #expect(object.decimalCol == expected)
        }
        for link in [[true, 0], ["boolCol": true], ConfPlain(value: [true, 0]), persisted] as [Any] {
            let object = try realm.write { realm.create(ConfValues.self, value: ["objectCol": link]) }
            #expect(object.objectCol?.boolCol == true)
        }
        for list in [[[true, 0], [false, 0]], [["boolCol": true], ["boolCol": false]],
                     [ConfPlain(value: [true, 0]), ConfPlain(value: [false, 0])], [persisted, [false, 0]]] as [Any] {
            let object = try realm.write { realm.create(ConfValues.self, value: ["arrayCol": list]) }
            #expect(object.arrayCol.map(\.boolCol) == [true, false])
        }
        // ConfPlain has no primary key: == is identity (as Realm's isEqual), isSameObject the row.
        let viaPersisted = realm.objects(ConfValues.self).filter { $0.objectCol?.isSameObject(as: persisted) == true }
        #expect(viaPersisted.count == 1)
    }

    @Test("dictionary values: keys that name no persisted property are ignored, in init, create and update")
    func extraDictionaryKeys() throws {
        let unmanaged = ConfPlain(value: ["intCol": 3, "noSuchProperty": "x"])
        #expect(unmanaged.intCol == 3)
        let realm = try confRealm()
        let created = try realm.write { realm.create(ConfPrimaryString.self, value: ["stringCol": "a", "intCol": 1, "extra": 2]) }
        #expect(created.intCol == 1)
        try realm.write {
            realm.create(ConfPrimaryString.self, value: ["stringCol": "a", "intCol": 5, "extra": 2], update: .modified)
        }
        #expect(created.intCol == 5)
    }

    @Test("object(ofType:forPrimaryKey:) with a nil optional key, NSNull or a missing key")
    func optionalKeys() throws {
        let realm = try confRealm()
        try realm.write {
            realm.create(ConfOptionalPrimary.self, value: [NSNull(), NSNull(), NSNull(), NSNull(), NSNull(), NSNull()])
            realm.create(ConfOptionalPrimary.self, value: [2, NSNull(), NSNull(), NSNull(), NSNull(), NSNull()])
            realm.create(ConfOptionalStringPrimary.self, value: [NSNull(), 1])
            realm.create(ConfOptionalStringPrimary.self, value: ["b", 2])
        }
        #expect(realm.object(ofType: ConfOptionalPrimary.self, forPrimaryKey: NSNull()) != nil)
        #expect(realm.object(ofType: ConfOptionalPrimary.self, forPrimaryKey: nil as Int?) != nil)
        #expect(realm.object(ofType: ConfOptionalPrimary.self, forPrimaryKey: 2) != nil)
        #expect(realm.object(ofType: ConfOptionalPrimary.self, forPrimaryKey: 0) == nil)
        #expect(realm.object(ofType: ConfOptionalStringPrimary.self, forPrimaryKey: NSNull())?.intCol == 1)
        #expect(realm.object(ofType: ConfOptionalStringPrimary.self, forPrimaryKey: "b")?.intCol == 2)
        #expect(realm.object(ofType: ConfOptionalStringPrimary.self, forPrimaryKey: "z") == nil)
    }
}

@Suite("Realm conformance: programmer errors")
struct RealmConformanceErrorTests {
    @Test("cancelWrite outside a write transaction")
    func cancelOutsideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-cancel")).cancelWrite()
        }
        expectStop("Can't cancel a non-existing write transaction", result)
    }

    @Test("commitWrite outside a write transaction")
    func commitOutsideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-commit")).commitWrite()
        }
        expectStop("Can't commit a non-existing write transaction", result)
    }

    @Test("beginWrite inside a write transaction")
    func nestedBeginWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-nested"))
            try realm.write { realm.beginWrite() }
        }
        expectStop("The Realm is already in a write transaction", result)
    }

    @Test("create outside a write transaction")
    func createOutsideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-create", objectTypes: [ConfPlain.self]))
            realm.create(ConfPlain.self)
        }
        expectStop(
            "Can only add, remove, or create objects in a Realm in a write transaction - call beginWriteTransaction on an RLMRealm instance first.",
            result)
    }

    @Test("deleting an unmanaged object outside a write transaction names the Realm first")
    func deleteUnmanagedOutsideWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-delete", objectTypes: [ConfPlain.self]))
            realm.delete(ConfPlain())
        }
        expectStop("Can only delete an object from the Realm it belongs to.", result)
    }

    @Test("deleting an object of another Realm")
    func deleteFromOtherRealm() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let a = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-del-a", objectTypes: [ConfPlain.self]))
            let b = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-del-b", objectTypes: [ConfPlain.self]))
            let object = try a.write { a.create(ConfPlain.self) }
            try b.write { b.delete(object) }
        }
        expectStop("Can only delete an object from the Realm it belongs to.", result)
    }

    @Test("adding a deleted object")
    func addDeleted() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-adddeleted", objectTypes: [ConfPlain.self]))
            let object = try realm.write { realm.create(ConfPlain.self) }
            try realm.write {
                realm.delete(realm.objects(ConfPlain.self))
                realm.add(object)
            }
        }
        expectStop("Adding a deleted or invalidated object to a Realm is not permitted", result)
    }

    @Test("adding an object after invalidate()")
    func addInvalidated() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-addinvalid", objectTypes: [ConfPlain.self]))
            let object = try realm.write { realm.create(ConfPlain.self) }
            realm.invalidate()
            try realm.write { realm.add(object) }
        }
        expectStop("Adding a deleted or invalidated object to a Realm is not permitted", result)
    }

    @Test("add(update:) of a class without a primary key")
    func addUpdateWithoutPrimaryKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-addpk", objectTypes: [ConfPlain.self]))
            try realm.write { realm.add(ConfPlain(), update: .modified) }
        }
        expectStop("'ConfPlain' does not have a primary key and can not be updated", result)
    }

    @Test("create(update:) of a class without a primary key")
    func createUpdateWithoutPrimaryKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-createpk", objectTypes: [ConfPlain.self]))
            try realm.write { realm.create(ConfPlain.self, value: [true, 0], update: .all) }
        }
        expectStop("'ConfPlain' does not have a primary key and can not be updated", result)
    }

    @Test("object(ofType:forPrimaryKey:) of a class without a primary key")
    func lookupWithoutPrimaryKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-lookup", objectTypes: [ConfPlain.self]))
            _ = realm.object(ofType: ConfPlain.self, forPrimaryKey: 1)
        }
        expectStop("ConfPlain does not have a primary key", result)
    }

    @Test("object(ofType:forPrimaryKey:) with nil for a required primary key")
    func nilForRequiredKey() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-nilkey", objectTypes: [ConfPrimaryString.self]))
            _ = realm.object(ofType: ConfPrimaryString.self, forPrimaryKey: nil as String?)
        }
        expectStop("Invalid null value for non-nullable primary key.", result)
    }

    @Test("create with nested values whose primary key exists")
    func createNestedDuplicate() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(
                inMemoryIdentifier: "conf-exit-nestdup", objectTypes: [ConfPrimaryString.self, ConfLinkToPrimaryString.self]))
            let standalone = ConfPrimaryString(value: ["p3", 11])
            try realm.write {
                realm.create(ConfLinkToPrimaryString.self, value: ["p3", ["p3", 11] as [Any], [standalone]])
            }
        }
        expectStop("Attempting to create an object of type 'ConfPrimaryString' with an existing primary key value 'p3'.", result)
    }

    @Test("objects(Object.self)")
    func objectsOfObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "conf-exit-objects", objectTypes: [ConfPlain.self]))
            _ = realm.objects(Object.self).count
        }
        expectStop("is not managed by the Realm", result)
    }
    @Test("values Realm refuses for a property: 2 for a Bool, 1.5 for an Int, a number for a String")
    func invalidValues() async {
        let bool = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ConfValues(value: ["boolCol": 2])
        }
        expectStop("Invalid value '2' of type", bool)
        let int = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ConfValues(value: ["intCol": 1.5])
        }
        expectStop("Invalid value '1.5' of type", int)
        let string = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ConfValues(value: ["stringCol": 7])
        }
        expectStop("Invalid value '7' of type", string)
    }
}
