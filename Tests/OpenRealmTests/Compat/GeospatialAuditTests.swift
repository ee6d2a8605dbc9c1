// GeospatialAuditTests.swift — geospatial queries against Realm Swift's GeospatialTests: what its
// cases check that the Geo suites did not (polygons with several holes, a hole that touches the
// outer ring, the messages for shared edges and nested holes).

import Foundation
import Testing

import OpenRealm

@Suite("Geospatial queries as Realm (GeospatialTests)")
struct GeospatialAuditTests {
    /// Places (latitude, longitude) along and around the equator between longitudes 20 and 22.
    private func equatorRealm() throws -> Realm {
        let realm = try memoryRealm([GeoTestPlace.self, GeoTestLocation.self, GeoTestLabel.self, GeoTestTopLocation.self])
        try realm.write {
            for (name, latitude, longitude) in [("edge", 0.0, 21.0), ("hole", 0.5, 21.0), ("north", 1.5, 21.0),
                                                ("corner", 2.0, 22.0), ("outside", -0.5, 21.0), ("second hole", 1.5, 20.25)] {
                let place = GeoTestPlace()
                place.name = name
                place.location = GeoTestLocation(latitude, longitude)
                realm.add(place)
            }
        }
        return realm
    }

    private func names(_ results: Results<GeoTestPlace>) -> [String] { results.map(\.name).sorted() }

    @Test("each hole of a polygon takes its points out, and the where and filter forms agree")
    func severalHoles() throws {
        let places = try equatorRealm().objects(GeoTestPlace.self)
        let outer: [(Double, Double)] = [(-1, 19), (-1, 23), (3, 23), (3, 19), (-1, 19)]
        let first: [(Double, Double)] = [(0.25, 20.75), (0.75, 20.75), (0.75, 21.25), (0.25, 21.25), (0.25, 20.75)]
        let second: [(Double, Double)] = [(1.25, 20), (1.75, 20), (1.75, 20.5), (1.25, 20.5), (1.25, 20)]
        let none = GeoPolygon(outerRing: outer)!
        let one = GeoPolygon(outerRing: outer, holes: [first])!
        let two = GeoPolygon(outerRing: outer, holes: [first, second])!
        let all = ["corner", "edge", "hole", "north", "outside", "second hole"]
        #expect(names(places.where { $0.location.geoWithin(none) }) == all)
        #expect(names(places.where { $0.location.geoWithin(one) }) == all.filter { $0 != "hole" })
        #expect(names(places.where { $0.location.geoWithin(two) }) == all.filter { $0 != "hole" && $0 != "second hole" })
        #expect(names(places.filter("location IN %@", two)) == all.filter { $0 != "hole" && $0 != "second hole" })
    }

    // README "Differences": a point on an edge is within the polygon, and a hole whose edge lies
    // along the outer ring's edge is held by it. Realm's S2 decides by symbolic perturbation and
    // refuses some such holes ("Secondary ring 1 not contained by first exterior ring").
    @Test("a hole along the outer ring's edge on the equator is within the ring; its points on that edge match")
    func holeTouchingOuterRing() throws {
        let places = try equatorRealm().objects(GeoTestPlace.self)
        let outer: [(Double, Double)] = [(0, 20), (0, 22), (2, 22), (2, 20), (0, 20)]
        let touching: [(Double, Double)] = [(0, 20.5), (1, 20.5), (1, 21.5), (0, 21.5), (0, 20.5)]
        let polygon = GeoPolygon(outerRing: outer, holes: [touching])!
        #expect(names(places.where { $0.location.geoWithin(polygon) }) == ["corner", "edge", "north", "second hole"])
        #expect(names(places.where { $0.location.geoWithin(GeoPolygon(outerRing: outer)!) })
                == ["corner", "edge", "hole", "north", "second hole"])
    }
}

@Suite("Geospatial queries as Realm (GeospatialTests): invalid polygons stop with Realm's message")
struct GeospatialAuditErrorTests {
    @Test("a hole with an edge of the outer ring")
    func duplicateEdge() async {
        removeInMemoryRealm("openrealm-exit-geoDuplicateEdge")
        defer { removeInMemoryRealm("openrealm-exit-geoDuplicateEdge") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoDuplicateEdge"))
            let polygon = GeoPolygon(outerRing: [(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)],
                                     holes: [[(0, 10), (10, 10), (5, 5), (0, 10)]])!
            _ = realm.objects(GeoTestPlace.self).where { $0.location.geoWithin(polygon) }.count
        }
        expectStop("Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0], "
            + "[0, 0, 0]}, {[10, 0, 0], [10, 10, 0], [5, 5, 0], [10, 0, 0]})': 'Polygon isn't valid: 'Duplicate edge: ring 1, edge",
            result)
    }

    @Test("a hole inside another hole")
    func nestedHoles() async {
        removeInMemoryRealm("openrealm-exit-geoNestedHoles")
        defer { removeInMemoryRealm("openrealm-exit-geoNestedHoles") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-geoNestedHoles"))
            let polygon = GeoPolygon(outerRing: [(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)],
                                     holes: [[(1, 1), (1, 9), (9, 9), (9, 1), (1, 1)], [(4, 4), (4, 6), (6, 6), (6, 4), (4, 4)]])!
            _ = realm.objects(GeoTestPlace.self).filter("location IN %@", polygon).count
        }
        expectStop("'Polygon interior rings cannot be nested: 2'", result)
    }
}
