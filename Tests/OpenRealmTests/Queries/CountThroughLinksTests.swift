// CountThroughLinksTests.swift — @count and the aggregates of a collection of values reached
// through a list of links: one result per linked object, matched as any of them (Realm Swift's
// QueryTests: "arrayCol.arrayInt.@count < 2" matches 1 of its 6 objects).

import Foundation
import Testing

import OpenRealm

final class CountThroughLinksObject: Object {
    @Persisted var intCol: Int
    @Persisted var arrayInt: List<Int>
    @Persisted var arrayCol: List<CountThroughLinksObject>
    @Persisted var objectCol: CountThroughLinksObject?
}

@Suite("@count of a list reached through a list of links")
struct CountThroughLinksTests {
    /// Realm's data: one object links four objects with empty lists and one with five ints.
    private func realm() throws -> Realm {
        let realm = try Realm(configuration: .init(
            inMemoryIdentifier: "count-through-links-\(UUID().uuidString)", objectTypes: [CountThroughLinksObject.self]))
        try realm.write {
            let object = CountThroughLinksObject(value: ["intCol": 5, "arrayInt": [1, 2, 3, 4, 5]])
            let object2 = CountThroughLinksObject(value: ["intCol": 6, "arrayInt": [1, 2, 3, 4, 5]])
            let linked = [62, 65, 55, 72].map { CountThroughLinksObject(value: ["intCol": $0]) }
            object.arrayCol.append(objectsIn: linked)
            object.objectCol = object2
            realm.add(object)
        }
        return realm
    }

    @Test("arrayCol.arrayInt.@count < 2 matches the one object whose linked objects have short lists")
    func countThroughList() throws {
        let objects = try realm().objects(CountThroughLinksObject.self)
        #expect(objects.count == 6)
        #expect(objects.filter("arrayCol.arrayInt.@count < 2").count == 1)
        #expect(objects.filter("arrayCol.arrayInt.@count == 0").first?.intCol == 5)
        #expect(objects.filter("arrayCol.arrayInt.@count > 0").count == 0)
        #expect(objects.filter("objectCol.arrayInt.@count == 5").count == 1)
    }

    @Test("an aggregate through a list of links is of each linked object's list")
    func aggregateThroughList() throws {
        let realm = try realm()
        try realm.write {
            let root = try #require(realm.objects(CountThroughLinksObject.self).filter("intCol == 5").first)
            root.arrayCol[0].arrayInt.append(objectsIn: [10, 20])
            root.arrayCol[1].arrayInt.append(objectsIn: [1])
        }
        let objects = realm.objects(CountThroughLinksObject.self)
        // The sum of all the linked lists (31) is not compared; each list's sum (30, 1, 0, 0) is.
        #expect(objects.filter("arrayCol.arrayInt.@sum == 30").count == 1)
        #expect(objects.filter("arrayCol.arrayInt.@sum == 31").count == 0)
        #expect(objects.filter("arrayCol.arrayInt.@count == 2").count == 1)
    }
}
