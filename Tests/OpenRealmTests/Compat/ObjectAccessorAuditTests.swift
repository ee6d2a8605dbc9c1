// ObjectAccessorAuditTests.swift — object accessors against Realm Swift's ObjectAccessorTests:
// setting a link to the embedded object it already holds, a LinkingObjects property whose
// origin class shares its Realm name with another model class, and a managed object's
// collections read by name.

import Foundation
import Testing

import OpenRealm

/// A parent of an embedded object, held by a link and by a list.
final class AccessorAuditParent: Object {
    @Persisted var child: AccessorAuditChild?
    @Persisted var children: List<AccessorAuditChild>
}

/// The embedded object.
final class AccessorAuditChild: EmbeddedObject {
    @Persisted var value: Int
}

/// Two classes of one Realm class (`_realmObjectName()`), each naming its properties in the file.
final class AccessorAuditItemA: Object {
    @Persisted var number: Int
    @Persisted(originProperty: "itemB") var holdersB: LinkingObjects<AccessorAuditHolderB>
    override class func _realmObjectName() -> String? { "AccessorAuditItem" }
    override class func propertiesMapping() -> [String: String] { ["number": "n"] }
}

final class AccessorAuditItemB: Object {
    @Persisted var count: Int
    @Persisted(originProperty: "itemA") var holdersA: LinkingObjects<AccessorAuditHolderA>
    override class func _realmObjectName() -> String? { "AccessorAuditItem" }
    override class func propertiesMapping() -> [String: String] { ["count": "n"] }
}

/// Two classes of one Realm class that link to the item class, under their two Swift names.
final class AccessorAuditHolderA: Object {
    @Persisted var itemA: AccessorAuditItemA?
    override class func _realmObjectName() -> String? { "AccessorAuditHolder" }
    override class func propertiesMapping() -> [String: String] { ["itemA": "item"] }
}

final class AccessorAuditHolderB: Object {
    @Persisted var itemB: AccessorAuditItemB?
    override class func _realmObjectName() -> String? { "AccessorAuditHolder" }
    override class func propertiesMapping() -> [String: String] { ["itemB": "item"] }
}

/// An object with a list, a set and a map.
final class AccessorAuditCollections: Object {
    @Persisted var numbers: List<Int>
    @Persisted var numberSet: MutableSet<Int>
    @Persisted var numberMap: Map<String, Int>
}

private func accessorRealm(_ types: [ObjectBase.Type]) throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "accessor-audit-\(UUID().uuidString)", objectTypes: types))
}

@Suite("Object accessors as Realm (ObjectAccessorTests)")
struct ObjectAccessorAuditTests {
    @Test("setting a link to the embedded object it already holds keeps that object")
    func sameEmbeddedObjectAgain() throws {
        let realm = try accessorRealm([AccessorAuditParent.self, AccessorAuditChild.self])
        try realm.write {
            let parent = realm.create(AccessorAuditParent.self)
            parent.child = AccessorAuditChild(value: ["value": 7])
            let child = try #require(parent.child)
            parent.child = child
            parent["child"] = child
            parent.setValue(child, forKey: "child")
            #expect(!child.isInvalidated, "the embedded object was replaced")
            #expect(parent.child?.value == 7)
            #expect(realm.objects(AccessorAuditParent.self).count == 1)
        }
    }

    @Test("a dynamic object's link set to the embedded object it holds keeps that object")
    func sameEmbeddedObjectAgainDynamic() throws {
        let realm = try accessorRealm([AccessorAuditParent.self, AccessorAuditChild.self])
        try realm.write {
            realm.create(AccessorAuditParent.self, value: ["child": ["value": 3]])
            let parent = try #require(realm.dynamicObjects("AccessorAuditParent").first)
            let child = try #require(parent["child"] as? DynamicObject)
            parent["child"] = child
            #expect(!child.isInvalidated, "the embedded object was replaced")
            #expect(child["value"] as? Int == 3)
        }
    }

    @Test("setting a link to an embedded object another property holds stops with Realm's message")
    func otherEmbeddedObjectStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "accessor-audit-exit-embedded",
                                                       objectTypes: [AccessorAuditParent.self, AccessorAuditChild.self]))
            try realm.write {
                let parent = realm.create(AccessorAuditParent.self)
                parent.children.append(AccessorAuditChild())
                parent.child = parent.children[0]
            }
        }
        expectStop("Can't set link to existing managed embedded object", result)
    }

    @Test("a LinkingObjects property whose origin links to another class of the same Realm name")
    func linkingObjectsThroughSharedName() throws {
        let realm = try accessorRealm([AccessorAuditItemA.self, AccessorAuditHolderA.self])
        let item = AccessorAuditItemA(value: ["number": 5])
        try realm.write {
            realm.add(AccessorAuditHolderA(value: ["itemA": item]))
        }
        let itemB = try #require(realm.objects(AccessorAuditItemB.self).first)
        #expect(itemB.count == 5)
        #expect(itemB.isSameObject(as: item))
        let holderB = try #require(realm.objects(AccessorAuditHolderB.self).first)
        #expect(holderB.itemB?.isSameObject(as: item) == true)
        #expect(item.holdersB.count == 1)
        #expect(item.holdersB.first?.isSameObject(as: holderB) == true)
        #expect(itemB.holdersA.count == 1)
    }

    @Test("a managed object's list, set and map read by name are the ones its properties give")
    func collectionsByNameAreTheProperties() throws {
        let realm = try accessorRealm([AccessorAuditCollections.self])
        try realm.write {
            let object = realm.create(AccessorAuditCollections.self)
            #expect(object.value(forKey: "numbers") as AnyObject === object.value(forKey: "numbers") as AnyObject,
                    "value(forKey:) gave a new List each time")
            #expect(object["numbers"] as? List<Int> === object.numbers, "the subscript's List is not the property's")
            #expect(object["numberSet"] as? MutableSet<Int> === object.numberSet)
            #expect(object.value(forKey: "numberMap") as? Map<String, Int> === object.numberMap)
            // Read by name first, then through the property.
            let other = realm.create(AccessorAuditCollections.self)
            let byName = try #require(other["numbers"] as? List<Int>)
            #expect(byName === other.numbers)
            other.setValue([1, 2], forKey: "numbers")
            #expect(Array(byName) == [1, 2])
        }
    }

    @Test("a frozen object's collections read by name are frozen")
    func frozenCollectionsByName() throws {
        let realm = try accessorRealm([AccessorAuditCollections.self])
        let object = try realm.write { realm.create(AccessorAuditCollections.self, value: ["numbers": [3]]) }
        let frozen = object.freeze()
        let list = try #require(frozen["numbers"] as? List<Int>)
        #expect(list.isFrozen)
        #expect(Array(list) == [3])
    }
}
