// CustomPersistableCreationTests.swift — objects with CustomPersistable properties made from
// dictionaries and arrays of the custom values or of their persisted values, and from other
// objects, as Realm Swift makes them (its CustomObjectCreationTests).

import Foundation
import Testing

import OpenRealm

/// Converts only even persisted values.
struct EvenNumber: FailableCustomPersistable, Hashable {
    typealias PersistedType = Int
    var value: Int
    init(_ value: Int) { self.value = value }
    init?(persistedValue: Int) {
        guard persistedValue % 2 == 0 else { return nil }
        value = persistedValue
    }
    var persistableValue: Int { value }
}

final class EvenHolder: Object {
    @Persisted var even: EvenNumber
    @Persisted var optEven: EvenNumber?
    @Persisted var evens: List<EvenNumber>
    @Persisted var optEvens: List<EvenNumber?>
    @Persisted var evenSet: MutableSet<EvenNumber>
    @Persisted var evenMap: Map<String, EvenNumber>
    @Persisted var optEvenMap: Map<String, EvenNumber?>
}

final class WrappedBag: Object {
    @Persisted var link: WebLink
    @Persisted var optLink: WebLink?
    @Persisted var level: Level
    @Persisted var point: Point
    @Persisted var optPoint: Point?
    @Persisted var links: List<WebLink>
    @Persisted var optLinks: List<WebLink?>
    @Persisted var levelSet: MutableSet<Level>
    @Persisted var pointMap: Map<String, Point?>
    @Persisted var levelMap: Map<String, Level?>
}

@Suite("CustomPersistable object creation")
struct CustomPersistableCreationTests {
    private func realm() throws -> Realm {
        try Realm(configuration: .init(inMemoryIdentifier: "custom-creation-\(UUID().uuidString)",
                                       objectTypes: [WrappedBag.self, PointObject.self, EvenHolder.self]))
    }

    private let wrapped: [String: Any] = [
        "link": WebLink("a://1"), "optLink": WebLink("a://2"), "level": Level.high,
        "point": Point(x: 1, y: 2), "optPoint": Point(x: 3, y: 4),
        "links": [WebLink("a://3")], "optLinks": [WebLink("a://4"), nil] as [WebLink?],
        "levelSet": [Level.low, Level.medium], "pointMap": ["p": Point(x: 5, y: 6)],
        "levelMap": ["l": Level.medium, "n": nil] as [String: Level?],
    ]

    private let raw: [String: Any] = [
        "link": "a://1", "optLink": "a://2", "level": 3,
        "point": PointObject(value: [1, 2]), "optPoint": ["x": 3.0, "y": 4.0],
        "links": ["a://3"], "optLinks": ["a://4", NSNull()] as [Any],
        "levelSet": [1, 2], "pointMap": ["p": [5.0, 6.0]],
        "levelMap": ["l": 2, "n": NSNull()] as [String: Any],
    ]

    private let nulls: [String: Any] = [
        "link": "a://1", "level": 3, "point": NSNull(), "optLink": NSNull(), "optPoint": NSNull(),
        "optLinks": [NSNull()], "pointMap": ["p": NSNull()], "levelMap": ["n": NSNull()],
    ]

    private func verify(_ bag: WrappedBag) {
        #expect(bag.link == WebLink("a://1") && bag.optLink == WebLink("a://2") && bag.level == .high)
        #expect(bag.point == Point(x: 1, y: 2) && bag.optPoint == Point(x: 3, y: 4))
        #expect(Array(bag.links) == [WebLink("a://3")] && Array(bag.optLinks) == [WebLink("a://4"), nil])
        #expect(Set(bag.levelSet) == [.low, .medium])
        #expect(bag.pointMap["p"] == .some(Point(x: 5, y: 6)))
        #expect(bag.levelMap.count == 2 && bag.levelMap["l"] == .some(.medium) && bag.levelMap["n"] == .some(nil))
    }

    private func verifyNulls(_ bag: WrappedBag) {
        #expect(bag.point == Point(x: 0, y: 0))
        #expect(bag.optLink == nil && bag.optPoint == nil)
        #expect(Array(bag.optLinks) == [nil])
        #expect(bag.pointMap["p"] == .some(nil) && bag.levelMap["n"] == .some(nil))
    }

    private func array(_ values: [String: Any]) -> [Any] {
        WrappedBag().objectSchema.properties.map { values[$0.name] ?? NSNull() }
    }

    @Test("init(value:) takes the custom values or their persisted values")
    func initValues() {
        verify(WrappedBag(value: wrapped))
        verify(WrappedBag(value: raw))
        verify(WrappedBag(value: array(wrapped)))
        verify(WrappedBag(value: array(raw)))
        verify(WrappedBag(value: WrappedBag(value: wrapped)))
        verifyNulls(WrappedBag(value: nulls))
        verifyNulls(WrappedBag(value: WrappedBag(value: nulls)))
    }

    @Test("create takes the custom values or their persisted values")
    func createValues() throws {
        let realm = try realm()
        try realm.write {
            verify(realm.create(WrappedBag.self, value: wrapped))
            verify(realm.create(WrappedBag.self, value: raw))
            verify(realm.create(WrappedBag.self, value: array(wrapped)))
            verify(realm.create(WrappedBag.self, value: array(raw)))
            verify(realm.create(WrappedBag.self, value: WrappedBag(value: wrapped)))
            verifyNulls(realm.create(WrappedBag.self, value: nulls))
            let added = WrappedBag(value: raw)
            realm.add(added)
            verify(added)
        }
    }

    @Test("a failable type: values that do not convert read nil where optional")
    func failableOptional() {
        _ = EvenHolder(value: [] as [Any])
        let holder = EvenHolder(value: ["optEven": 1, "optEvens": [1], "optEvenMap": ["k": 1]] as [String: Any])
        #expect(holder.optEven == nil)
        #expect(Array(holder.optEvens) == [nil])
        #expect(holder.optEvenMap["k"] == .some(nil))
    }

    @Test("a failable type: the subscript of an unmanaged object reads the persisted value")
    func failableUnmanagedSubscript() {
        let holder = EvenHolder()
        holder["even"] = 2
        #expect(holder["even"] as? Int == 2)
        #expect(holder.even.persistableValue == 2)
        holder["optEven"] = 4
        #expect(holder["optEven"] as? Int == 4)
        holder["optEven"] = 1
        #expect(holder["optEven"] == nil)
        #expect(holder.optEven == nil)
    }

    @Test("a failable type: a required value that does not convert stops with Realm's message")
    func failableRequired() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = EvenHolder(value: ["even": 1])
        }
        expectStop("Could not convert value '1' to type 'EvenNumber'.", result)
    }

    @Test("a failable type: setting a value that does not convert on an unmanaged object stops")
    func failableUnmanagedSet() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let holder = EvenHolder()
            holder["even"] = 1
        }
        expectStop("Could not convert value '1' to type 'EvenNumber'.", result)
    }

    @Test("a failable type: a list element that does not convert stops when read")
    func failableListElement() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let holder = EvenHolder(value: ["evens": [1]])
            _ = holder.evens[0]
        }
        expectStop("Could not convert value '1' to type 'EvenNumber'.", result)
    }

    @Test("a failable type: the subscript of a managed object reads and writes the persisted value")
    func failableManagedSubscript() throws {
        let realm = try realm()
        try realm.write {
            let holder = realm.create(EvenHolder.self)
            holder["even"] = 2
            #expect(holder["even"] as? Int == 2)
            #expect(holder.even.persistableValue == 2)
            holder["optEven"] = 1
            #expect(holder["optEven"] == nil)
            #expect(holder.optEven == nil)
        }
    }

    // Realm stores such a value and stops when it is read (README, Differences).
    @Test("a failable type: setting a managed value that does not convert stops with Realm's message")
    func failableManagedSet() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "even-managed-read", objectTypes: [EvenHolder.self]))
            realm.beginWrite()
            let holder = realm.create(EvenHolder.self)
            holder["even"] = 1
        }
        expectStop("Could not convert value '1' to type 'EvenNumber'.", result)
    }
}
