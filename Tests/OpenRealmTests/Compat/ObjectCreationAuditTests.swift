// ObjectCreationAuditTests.swift — creating objects (Object(value:), create, add) as Realm Swift
// does, for what the audit against its ObjectCreationTests, ModernObjectCreationTests and
// CustomObjectCreationTests found.

import Foundation
import Testing

import OpenRealm

/// Made by another class's default value with `init(value:)`, which reads this class's schema.
final class CreationAuditBadge: Object {
    @Persisted var label = ""
    @Persisted var level = 0
}

/// Its default value builds a `CreationAuditBadge` from a dictionary, between two other properties.
final class CreationAuditHolder: Object {
    @Persisted var before = 1
    @Persisted var badge: CreationAuditBadge? = CreationAuditBadge(value: ["label": "gold", "level": 3])
    @Persisted var after = "x"
}

/// An embedded object that a CustomPersistable value is stored as.
final class CreationAuditPoint: EmbeddedObject {
    @Persisted var x = 0
}

/// Stored as a `CreationAuditPoint`.
struct CreationAuditCoordinate: CustomPersistable {
    typealias PersistedType = CreationAuditPoint
    var x: Int
    init(x: Int) { self.x = x }
    init(persistedValue: CreationAuditPoint) { x = persistedValue.x }
    var persistableValue: CreationAuditPoint { CreationAuditPoint(value: [x]) }
}

/// A map of a CustomPersistable mapped to an embedded object, not marked optional (Realm allows it).
final class CreationAuditRoute: Object {
    @Persisted var stops: Map<String, CreationAuditCoordinate>
}

/// Links to badges through a map (and a list), to be copied from one Realm into another.
final class CreationAuditBoard: Object {
    @Persisted var name = ""
    @Persisted var byRank: Map<String, CreationAuditBadge?>
    @Persisted var all: List<CreationAuditBadge>
}

/// A list of CustomPersistable values stored as embedded objects (no null element).
final class CreationAuditPath: Object {
    @Persisted var points: List<CreationAuditCoordinate>
}

@Suite("Object creation, as Realm Swift's creation tests")
struct ObjectCreationAuditTests {
    @Test("a default value made with init(value:) while the holder's schema is first read")
    func defaultValueMadeFromDictionary() throws {
        // The holder is read first: its probe instance runs the default value, whose
        // init(value:) reads the badge's schema in the middle of the holder's properties.
        let config = Realm.Configuration(inMemoryIdentifier: "creation-audit-\(UUID().uuidString)",
                                         objectTypes: [CreationAuditHolder.self, CreationAuditBadge.self])
        let realm = try Realm(configuration: config)
        let names = realm.schema["CreationAuditHolder"]?.properties.map(\.name)
        #expect(names == ["before", "badge", "after"])
        let holder = CreationAuditHolder()
        #expect(holder.before == 1 && holder.after == "x")
        #expect(holder.badge?.label == "gold" && holder.badge?.level == 3)
        try realm.write {
            realm.add(holder)
            holder.after = "y"
        }
        let stored = try #require(realm.objects(CreationAuditHolder.self).first)
        #expect(stored.before == 1 && stored.after == "y")
        #expect(stored.badge?.label == "gold" && stored.badge?.level == 3)
        let made = try realm.write { realm.create(CreationAuditHolder.self, value: ["before": 7]) }
        #expect(made.before == 7 && made.after == "x" && made.badge?.level == 3)
    }

    @Test("a map of CustomPersistable values stored as embedded objects need not be optional")
    func mapOfCustomEmbeddedValues() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "creation-audit-\(UUID().uuidString)",
                                         objectTypes: [CreationAuditRoute.self, CreationAuditPoint.self])
        let realm = try Realm(configuration: config)
        #expect(realm.schema["CreationAuditRoute"]?["stops"]?.isOptional == true)
        let unmanaged = CreationAuditRoute(value: ["stops": ["a": NSNull(), "b": CreationAuditCoordinate(x: 4)]])
        #expect(unmanaged.stops["a"]?.x == 0 && unmanaged.stops["b"]?.x == 4)
        let route = try realm.write {
            realm.create(CreationAuditRoute.self, value: ["stops": ["a": NSNull(), "b": CreationAuditCoordinate(x: 4)]])
        }
        #expect(route.stops.count == 2)
        #expect(route.stops["a"]?.x == 0 && route.stops["b"]?.x == 4)
        try realm.write { route.stops["c"] = CreationAuditCoordinate(x: 9) }
        #expect(route.stops["c"]?.x == 9)
    }

    @Test("a write begun on a Realm() not kept is the thread's next Realm()'s, until it ends")
    func writeBegunOnTemporaryRealm() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("creation-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = Realm.Configuration(fileURL: dir.appendingPathComponent("t.realm"), objectTypes: [CreationAuditBadge.self])
        try Realm(configuration: config).beginWrite()
        #expect(try Realm(configuration: config).isInWriteTransaction)
        try Realm(configuration: config).create(CreationAuditBadge.self, value: ["label": "a"])
        try Realm(configuration: config).commitWrite()
        #expect(try Realm(configuration: config).isInWriteTransaction == false)
        try Realm(configuration: config).beginWrite()
        try Realm(configuration: config).create(CreationAuditBadge.self, value: ["label": "b"])
        try Realm(configuration: config).cancelWrite()
        let labels = try Realm(configuration: config).objects(CreationAuditBadge.self).map(\.label)
        #expect(labels == ["a"])
    }

    @Test("create(_:value:) with an object of another Realm copies the objects its map links to")
    func createCopiesMapLinksFromAnotherRealm() throws {
        func open() throws -> Realm {
            try Realm(configuration: .init(inMemoryIdentifier: "creation-audit-\(UUID().uuidString)",
                                           objectTypes: [CreationAuditBoard.self, CreationAuditBadge.self]))
        }
        let source = try open(), target = try open()
        let board = try source.write {
            source.create(CreationAuditBoard.self, value: ["name": "b", "byRank": ["gold": ["label": "g", "level": 1], "none": NSNull()],
                                                         "all": [["label": "s", "level": 2]]])
        }
        let copy = try target.write { target.create(CreationAuditBoard.self, value: board) }
        #expect(copy.realm == target && copy.name == "b")
        #expect(copy.byRank.count == 2)
        let gold = try #require(copy.byRank["gold"] ?? nil)
        #expect(gold.realm == target && gold.label == "g" && gold.level == 1)
        #expect(copy.byRank["none"] == .some(nil))
        #expect(copy.all.first?.realm == target && copy.all.first?.label == "s")
        #expect(target.objects(CreationAuditBadge.self).count == 2 && source.objects(CreationAuditBadge.self).count == 2)
    }

    @Test("a null element for a list of CustomPersistable values stored as embedded objects stops")
    func nullInListOfCustomEmbeddedValuesStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = CreationAuditPath(value: ["points": [CreationAuditCoordinate(x: 1), NSNull()]])
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Invalid value") && stderr.contains("'CreationAuditPath.points'"))
    }
}
