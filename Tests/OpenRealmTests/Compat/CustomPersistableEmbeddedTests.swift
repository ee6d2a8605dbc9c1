// CustomPersistableEmbeddedTests.swift — CustomPersistable types whose PersistedType is an
// EmbeddedObject subclass (Realm's documented CGPoint example): stored as a link to an embedded
// object, optional in the schema whether the Swift type is or not, in properties and lists.

import Foundation
import Testing

import OpenRealm

final class PointObject: EmbeddedObject {
    @Persisted var x: Double
    @Persisted var y: Double
}

/// A point stored as an embedded object, as Realm documents for CGPoint.
struct Point: CustomPersistable, Hashable {
    typealias PersistedType = PointObject
    var x: Double
    var y: Double
    init(x: Double, y: Double) { self.x = x; self.y = y }
    init(persistedValue: PointObject) { self.init(x: persistedValue.x, y: persistedValue.y) }
    var persistableValue: PointObject { PointObject(value: [x, y]) }
}

/// A failable mapping to an embedded object: negative coordinates do not convert.
struct PositivePoint: FailableCustomPersistable, Hashable {
    typealias PersistedType = PointObject
    var x: Double
    init(x: Double) { self.x = x }
    init?(persistedValue: PointObject) {
        guard persistedValue.x >= 0 else { return nil }
        x = persistedValue.x
    }
    var persistableValue: PointObject { PointObject(value: ["x": x]) }
}

final class PointModel: Object {
    @Persisted var point: Point
    @Persisted var optPoint: Point?
    @Persisted var line: List<Point>
    @Persisted var positive: PositivePoint?
}

@Suite("CustomPersistable mapped to an EmbeddedObject")
struct CustomPersistableEmbeddedTests {
    private func realm() throws -> Realm {
        try Realm(configuration: .init(
            inMemoryIdentifier: "custom-embedded-\(UUID().uuidString)", objectTypes: [PointModel.self, PointObject.self]))
    }

    @Test("the schema links to the embedded class, optional for an optional or required type")
    func schema() throws {
        let schema = try #require(try realm().schema["PointModel"])
        for name in ["point", "optPoint"] {
            let property = try #require(schema[name])
            #expect(property.type == .object && property.objectClassName == "PointObject" && property.isOptional)
        }
        let line = try #require(schema["line"])
        #expect(line.type == .object && line.isArray && line.objectClassName == "PointObject" && !line.isOptional)
    }

    @Test("values are stored as embedded objects and read back")
    func storeAndRead() throws {
        let realm = try realm()
        let model = PointModel()
        model.point = Point(x: 1, y: 2)
        model.line.append(objectsIn: [Point(x: 3, y: 4), Point(x: 5, y: 6)])
        try realm.write { realm.add(model) }
        #expect(model.point == Point(x: 1, y: 2) && model.optPoint == nil)
        #expect(Array(model.line) == [Point(x: 3, y: 4), Point(x: 5, y: 6)])
        try realm.write {
            model.optPoint = Point(x: 7, y: 8)
            model.point = Point(x: 9, y: 10)
            model.line.append(Point(x: 11, y: 12))
        }
        let stored = try #require(realm.objects(PointModel.self).first)
        #expect(stored.point == Point(x: 9, y: 10) && stored.optPoint == Point(x: 7, y: 8))
        #expect(stored.line.map(\.x) == [3, 5, 11])
        try realm.write { model.optPoint = nil }
        #expect(stored.optPoint == nil && stored.point == Point(x: 9, y: 10))
    }

    @Test("a required property without an embedded object reads the persisted type's default")
    func nullReadsDefault() throws {
        let realm = try realm()
        let model = try realm.write { realm.create(PointModel.self, value: [:]) }
        #expect(model.point == Point(x: 0, y: 0))
        let created = try realm.write { realm.create(PointModel.self, value: ["point": ["x": 1.5, "y": 2.5]]) }
        #expect(created.point == Point(x: 1.5, y: 2.5))
    }

    @Test("a failable mapping reads nil when the embedded object does not convert")
    func failable() throws {
        let realm = try realm()
        let model = try realm.write { realm.create(PointModel.self, value: ["positive": ["x": 2.0]]) }
        #expect(model.positive == PositivePoint(x: 2))
        try realm.write { model.positive = PositivePoint(x: -1) }
        #expect(model.positive == nil)
    }
}
