// EmbeddedRenameTests.swift — renameProperty in a migration carries embedded objects over, as
// Realm does: a to-one embedded object, a list and a map of them, each with the collections and
// embedded objects they hold.

import Foundation
import Testing

import OpenRealm

final class RenameSub: EmbeddedObject {
    @Persisted var note: String
}

final class RenameStop: EmbeddedObject {
    @Persisted var name: String
    @Persisted var minutes: Int
    @Persisted var tags: List<String>
    @Persisted var sub: RenameSub?
    @Persisted var friend: Dog?
}

enum TripV1 {
    final class Trip: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var home: RenameStop?
        @Persisted var stops: List<RenameStop>
        @Persisted var stopMap: Map<String, RenameStop?>
    }
}

enum TripV2 {
    final class Trip: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var base: RenameStop?
        @Persisted var route: List<RenameStop>
        @Persisted var stopsByName: Map<String, RenameStop?>
    }
}

@Suite("Renaming embedded properties in a migration")
struct EmbeddedRenameTests {
    private func writeVersion1(_ url: URL) throws {
        let types: [ObjectBase.Type] = [TripV1.Trip.self, RenameStop.self, RenameSub.self, Dog.self]
        let realm = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, objectTypes: types))
        try realm.write {
            let rex = realm.create(Dog.self, value: ["name": "Rex", "age": 3])
            let trip = realm.create(TripV1.Trip.self, value: ["id": 1])
            trip.home = RenameStop(value: ["name": "Home", "minutes": 0, "tags": ["start"], "sub": ["note": "door"]])
            trip.stops.append(RenameStop(value: ["name": "Park", "minutes": 20, "tags": ["green", "dogs"], "friend": rex]))
            trip.stops.append(RenameStop(value: ["name": "Cafe", "minutes": 45, "sub": ["note": "latte"]]))
            trip.stopMap["lunch"] = RenameStop(value: ["name": "Deli", "minutes": 30])
            trip.stopMap.updateValue(nil, forKey: "none")
            realm.create(TripV1.Trip.self, value: ["id": 2])
        }
    }

    private func openVersion2(_ url: URL) throws -> Realm {
        let config = Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: { migration, _ in
            migration.renameProperty(onType: "Trip", from: "home", to: "base")
            migration.renameProperty(onType: "Trip", from: "stops", to: "route")
            migration.renameProperty(onType: "Trip", from: "stopMap", to: "stopsByName")
        }, objectTypes: [TripV2.Trip.self, RenameStop.self, RenameSub.self, Dog.self])
        return try Realm(configuration: config)
    }

    @Test("a list, a map and a to-one embedded object keep their objects and values")
    func renameEmbedded() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("trips.realm")
            try writeVersion1(url)
            let realm = try openVersion2(url)
            let trip = try #require(realm.object(ofType: TripV2.Trip.self, forPrimaryKey: 1))
            let base = try #require(trip.base)
            #expect(base.name == "Home")
            #expect(Array(base.tags) == ["start"])
            #expect(base.sub?.note == "door")
            #expect(trip.route.map(\.name) == ["Park", "Cafe"])
            #expect(trip.route.map(\.minutes) == [20, 45])
            #expect(Array(trip.route[0].tags) == ["green", "dogs"])
            #expect(trip.route[0].friend?.name == "Rex")
            #expect(trip.route[0].sub == nil)
            #expect(trip.route[1].sub?.note == "latte")
            #expect(trip.stopsByName.count == 2)
            #expect(trip.stopsByName["lunch"]??.name == "Deli")
            #expect(trip.stopsByName["none"] == .some(nil))
            // The embedded objects are the trip's: one of each, none left over.
            #expect(realm.objects(Dog.self).count == 1)
            let empty = try #require(realm.object(ofType: TripV2.Trip.self, forPrimaryKey: 2))
            #expect(empty.base == nil)
            #expect(empty.route.isEmpty)
            #expect(empty.stopsByName.isEmpty)
            // They are live embedded objects of the new property.
            try realm.write { trip.route[1].minutes = 50 }
            #expect(trip.route[1].minutes == 50)
            try realm.write { trip.route.removeAll() }
            #expect(trip.route.isEmpty)
        }
    }

    @Test("queries see the renamed embedded objects")
    func queriesSeeRenamed() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("trips.realm")
            try writeVersion1(url)
            let realm = try openVersion2(url)
            let trips = realm.objects(TripV2.Trip.self)
            #expect(trips.filter("ANY route.minutes > 40").map(\.id) == [1])
            #expect(trips.filter("route[LAST].sub.note == 'latte'").map(\.id) == [1])
            #expect(trips.filter("base.sub.note == 'door'").map(\.id) == [1])
            #expect(trips.filter("stopsByName['lunch'].minutes == 30").map(\.id) == [1])
        }
    }
}
