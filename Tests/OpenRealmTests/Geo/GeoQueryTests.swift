// GeoQueryTests.swift — Realm's geospatial queries: Query.geoWithin, filter with IN %@ and with
// Realm Query Language's geoWithin (shapes written in the predicate, arguments), on embedded
// objects of the GeoJSON point shape; what does not match, and the errors, in Realm's words.

import Foundation
import Testing

import OpenRealm

/// A location as Realm's documentation stores one: a GeoJSON point.
final class GeoTestLocation: EmbeddedObject {
    @Persisted var coordinates: List<Double>
    @Persisted var type: String = "Point"

    convenience init(_ latitude: Double, _ longitude: Double) {
        self.init()
        coordinates.append(objectsIn: [longitude, latitude])
    }
}

/// An embedded object without the point shape.
final class GeoTestLabel: EmbeddedObject {
    @Persisted var text: String
}

/// A top-level class of the point shape (geospatial queries need an embedded one).
final class GeoTestTopLocation: Object {
    @Persisted var coordinates: List<Double>
    @Persisted var type: String = "Point"
}

final class GeoTestPlace: Object {
    @Persisted var name: String
    @Persisted var location: GeoTestLocation?
    @Persisted var stops: List<GeoTestLocation>
    @Persisted var label: GeoTestLabel?
    @Persisted var top: GeoTestTopLocation?
}

@Suite("Geospatial queries")
struct GeoQueryTests {
    /// Places (latitude, longitude): A (5, 5), B (5, 15), C none, D one coordinate only, E at
    /// (5, 5) with an altitude and a lower-case type, F (0, 175).
    private func placesRealm() throws -> Realm {
        let realm = try memoryRealm([GeoTestPlace.self, GeoTestLocation.self, GeoTestLabel.self, GeoTestTopLocation.self])
        try realm.write {
            func place(_ name: String, _ location: GeoTestLocation?, stops: [GeoTestLocation] = []) {
                let place = GeoTestPlace()
                place.name = name
                place.location = location
                place.stops.append(objectsIn: stops)
                realm.add(place)
            }
            place("A", GeoTestLocation(5, 5), stops: [GeoTestLocation(1, 1), GeoTestLocation(2, 2)])
            place("B", GeoTestLocation(5, 15), stops: [GeoTestLocation(1, 1), GeoTestLocation(50, 50)])
            place("C", nil, stops: [GeoTestLocation(50, 50)])
            let short = GeoTestLocation()
            short.coordinates.append(5)
            place("D", short)
            let lower = GeoTestLocation(5, 5)
            lower.type = "point"
            lower.coordinates.append(100)
            place("E", lower)
            place("F", GeoTestLocation(0, 175))
        }
        return realm
    }

    private func names(_ results: Results<GeoTestPlace>) -> [String] { results.map(\.name).sorted() }

    @Test("where { $0.location.geoWithin(shape) } with a box, a circle and a polygon")
    func typedQueries() throws {
        let places = try placesRealm().objects(GeoTestPlace.self)
        let box = GeoBox(bottomLeft: (0, 0), topRight: (10, 10))!
        #expect(names(places.where { $0.location.geoWithin(box) }) == ["A", "E"])
        // Across the antimeridian: longitudes from 170 eastwards to -170.
        let dateline = GeoBox(bottomLeft: (-10, 170), topRight: (10, -170))!
        #expect(names(places.where { $0.location.geoWithin(dateline) }) == ["F"])
        // 0.2 rad = 11.5 degrees reaches B, 10 degrees from (5, 5); 0.01 rad does not.
        #expect(names(places.where { $0.location.geoWithin(GeoCircle(center: (5, 5), radiusInRadians: 0.2)!) }) == ["A", "B", "E"])
        #expect(names(places.where { $0.location.geoWithin(GeoCircle(center: (5, 5), radiusInRadians: 0.01)!) }) == ["A", "E"])
        // 1000 km = 0.157 rad = 9.0 degrees: not B.
        let thousand = GeoCircle(center: GeoPoint(latitude: 5, longitude: 5)!, radius: .kilometers(1000)!)
        #expect(names(places.where { $0.location.geoWithin(thousand) }) == ["A", "E"])
        let square = GeoPolygon(outerRing: [(0, 0), (0, 20), (10, 20), (10, 0), (0, 0)])!
        #expect(names(places.where { $0.location.geoWithin(square) }) == ["A", "B", "E"])
        let framed = GeoPolygon(outerRing: [(0, 0), (0, 20), (10, 20), (10, 0), (0, 0)],
                                holes: [(4, 14), (4, 16), (6, 16), (6, 14), (4, 14)])!
        #expect(names(places.where { $0.location.geoWithin(framed) }) == ["A", "E"])
        #expect(names(places.where { !$0.location.geoWithin(box) }) == ["B", "C", "D", "F"])
        #expect(names(places.where { $0.location.geoWithin(box) && $0.name == "E" }) == ["E"])
        #expect(names(places.where { $0.location.geoWithin(box) || $0.name == "C" }) == ["A", "C", "E"])
    }

    @Test("a box is the polygon through its corners, its edges great circles")
    func boxEdgesAreGreatCircles() throws {
        let places = try placesRealm().objects(GeoTestPlace.self)
        // The north edge from (4.99, 0) to (4.99, 10) passes atan(tan 4.99 / cos 5) = 5.009 at
        // longitude 5: A and E at (5, 5) are within, though north of the parallel 4.99.
        let box = GeoBox(bottomLeft: (0, 0), topRight: (4.99, 10))!
        #expect(names(places.where { $0.location.geoWithin(box) }) == ["A", "E"])
        #expect(names(places.filter("location geoWithin geoBox([0, 0], [10, 4.99])")) == ["A", "E"])
        // 4.98 passes 4.999 there: not within.
        #expect(places.where { $0.location.geoWithin(GeoBox(bottomLeft: (0, 0), topRight: (4.98, 10))!) }.isEmpty)
        // The corners in either order are the same square.
        let swapped = GeoBox(bottomLeft: (10, 10), topRight: (0, 0))!
        #expect(names(places.where { $0.location.geoWithin(swapped) }) == ["A", "E"])
    }

    @Test("filter with IN %@, geoWithin $0 and shapes written in the predicate")
    func stringQueries() throws {
        let places = try placesRealm().objects(GeoTestPlace.self)
        let box = GeoBox(bottomLeft: (0, 0), topRight: (10, 10))!
        #expect(names(places.filter("location IN %@", box)) == ["A", "E"])
        #expect(names(places.filter("location geoWithin $0", box)) == ["A", "E"])
        #expect(names(places.filter("location geoWithin %@", GeoCircle(center: (0, 175), radius: .degrees(1)!)!)) == ["F"])
        #expect(names(places.filter("location geoWithin geoBox([0.0, 0.0], [10.0, 10.0])")) == ["A", "E"])
        #expect(names(places.filter("location geoWithin geoCircle([5, 5], 0.2)")) == ["A", "B", "E"])
        #expect(names(places.filter("location geoWithin geoPolygon({[0, 0], [20, 0], [20, 10], [0, 10], [0, 0]}, "
                                    + "{[14, 4], [16, 4], [16, 6], [14, 6], [14, 4]})")) == ["A", "E"])
        #expect(names(places.filter("location geoWithin geoCircle([$0, $1], $2)", 5, 5.0, 0.01)) == ["A", "E"])
        #expect(names(places.filter("ANY stops geoWithin geoBox([0, 0], [10, 10])")) == ["A", "B"])
        #expect(names(places.filter("ALL stops geoWithin geoBox([0, 0], [10, 10])")) == ["A"])
        #expect(names(places.filter("NONE stops geoWithin geoBox([0, 0], [10, 10])")) == ["C", "D", "E", "F"])
        #expect(names(places.filter("stops IN %@", box)) == ["A", "B"])
        // Joined with other filters and a type-safe query.
        #expect(names(places.filter("location IN %@", box).filter("name != 'A'")) == ["E"])
        #expect(names(places.filter("name != 'E'").where { $0.location.geoWithin(box) }) == ["A"])
    }

    @Test("results follow a location that moves")
    func liveResults() throws {
        let realm = try placesRealm()
        let box = GeoBox(bottomLeft: (0, 0), topRight: (10, 10))!
        let inside = realm.objects(GeoTestPlace.self).where { $0.location.geoWithin(box) }
        #expect(inside.count == 2)
        let b = realm.objects(GeoTestPlace.self).filter("name == 'B'").first!
        try realm.write {
            b.location!.coordinates[0] = 9 // longitude 15 -> 9
        }
        #expect(names(inside) == ["A", "B", "E"])
        try realm.write { b.location = nil }
        #expect(names(inside) == ["A", "E"])
    }

    @Test("a location that is not a valid point matches nothing, as in realm-core")
    func notAPoint() throws {
        let realm = try placesRealm()
        try realm.write {
            func place(_ name: String, type: String, _ coordinates: [Double]) {
                let location = GeoTestLocation()
                location.type = type
                location.coordinates.append(objectsIn: coordinates)
                let place = GeoTestPlace()
                place.name = name
                place.location = location
                realm.add(place)
            }
            place("Polygon", type: "Polygon", [5, 5])
            place("Empty type", type: "", [5, 5])
            place("No coordinates", type: "Point", [])
            place("Latitude 95", type: "Point", [5, 95])
            place("Longitude 185", type: "Point", [185, 5])
        }
        let places = realm.objects(GeoTestPlace.self)
        let around = GeoCircle(center: (5, 5), radiusInRadians: 0.01)!
        #expect(names(places.where { $0.location.geoWithin(around) }) == ["A", "E"])
        #expect(names(places.filter("location geoWithin geoCircle([0, 0], 4)")) == ["A", "B", "E", "F"])
        #expect(places.where { !$0.location.geoWithin(around) }.count == 9)
    }
}

@Suite("Geospatial queries: errors stop with Realm's message")
struct GeoQueryErrorTests {
    @Test("the left side is not a link")
    func notALink() async {
        removeInMemoryRealm("openrealm-exit-geoNotALink")
        defer { removeInMemoryRealm("openrealm-exit-geoNotALink") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoNotALink"))
            _ = realm.objects(GeoTestPlace.self).filter("name IN %@", GeoBox(bottomLeft: (0, 0), topRight: (1, 1))!).count
        }
        expectStop("The left hand side of 'geoWithin' must be a link to geoJSON formatted data. But the provided type is 'string'", result)
    }

    @Test("an invalid box")
    func invalidBox() async {
        removeInMemoryRealm("openrealm-exit-geoInvalidBox")
        defer { removeInMemoryRealm("openrealm-exit-geoInvalidBox") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoInvalidBox"))
            // Both corners on the parallel 10: the ring through them has 2 different points.
            let flat = GeoBox(bottomLeft: (10, 0), topRight: (10, 10))!
            _ = realm.objects(GeoTestPlace.self).where { $0.location.geoWithin(flat) }.count
        }
        // Realm Swift passes every point's altitude (0 unless given) and realm-core prints it; the
        // two corners the box adds have none.
        expectStop("Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[0, 10, 0], [0, 10], [10, 10, 0], [10, 10], [0, 10, 0]})': "
            + "'Ring 0 must have at least 3 different vertices, 2 unique vertices were provided'", result)
    }

    @Test("a shape's points print their altitudes, as Realm Swift's messages do")
    func altitudesInMessages() async {
        removeInMemoryRealm("openrealm-exit-geoAltitudes")
        defer { removeInMemoryRealm("openrealm-exit-geoAltitudes") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoAltitudes"))
            let center = GeoPoint(latitude: 2, longitude: 1, altitude: 30)!
            _ = realm.objects(GeoTestPlace.self).where { $0.label.geoWithin(GeoCircle(center: center, radiusInRadians: 0.5)!) }.count
        }
        expectStop("Query 'label GEOWITHIN GeoCircle([1, 2, 30], 0.5)' links to data in the wrong format for a geoWithin query",
            result)
    }

    @Test("a polygon's hole outside its outer ring, with the altitudes Realm prints")
    func holeOutside() async {
        removeInMemoryRealm("openrealm-exit-geoHoleOutside")
        defer { removeInMemoryRealm("openrealm-exit-geoHoleOutside") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoHoleOutside"))
            let polygon = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)],
                                     holes: [[(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]])!
            _ = realm.objects(GeoTestPlace.self).where { $0.location.geoWithin(polygon) }.count
        }
        expectStop("Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], "
            + "[0, 0, 0]}, {[2, 2, 0], [3, 2, 0], [3, 3, 0], [2, 3, 0], [2, 2, 0]})': 'Secondary ring 1 not contained by first "
            + "exterior ring - secondary rings must be holes in the first ring", result)
    }

    @Test("a polygon whose edges cross")
    func crossingPolygon() async {
        removeInMemoryRealm("openrealm-exit-geoCrossing")
        defer { removeInMemoryRealm("openrealm-exit-geoCrossing") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoCrossing"))
            let bowtie = GeoPolygon(outerRing: [(0, 0), (10, 10), (0, 10), (10, 0), (0, 0)])!
            _ = realm.objects(GeoTestPlace.self).filter("location IN %@", bowtie).count
        }
        expectStop("Ring 0 is not valid: 'Edges 0 and 2 cross.", result)
    }

    @Test("an embedded class without the point shape, and a top-level one")
    func wrongShape() async {
        removeInMemoryRealm("openrealm-exit-geoWrongShape")
        defer { removeInMemoryRealm("openrealm-exit-geoWrongShape") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoWrongShape"))
            _ = realm.objects(GeoTestPlace.self).filter("label geoWithin geoBox([0, 0], [1, 1])").count
        }
        expectStop("Query 'label GEOWITHIN GeoPolygon({[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]})' links to data in the wrong format "
            + "for a geoWithin query", result)
        removeInMemoryRealm("openrealm-exit-geoTopLevel")
        defer { removeInMemoryRealm("openrealm-exit-geoTopLevel") }
        let top = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoTopLevel"))
            _ = realm.objects(GeoTestPlace.self).filter("top geoWithin geoBox([0, 0], [1, 1])").count
        }
        expectStop("A GEOWITHIN query can only operate on a link to an embedded class but 'GeoTestTopLocation' is at the top level", top)
    }
}
