// GeoShapeTests.swift — Realm's geospatial shapes on their own: GeoPoint's ranges, the failable
// initializers of GeoBox, GeoPolygon and GeoCircle, Distance's conversions, equality.

import Foundation
import Testing

import OpenRealm

@Suite("Geospatial shapes")
struct GeoShapeTests {
    @Test("GeoPoint takes latitudes within ±90 and longitudes within ±180, inclusive")
    func pointRanges() {
        let point = GeoPoint(latitude: 37.7749, longitude: -122.4194)
        #expect(point?.latitude == 37.7749)
        #expect(point?.longitude == -122.4194)
        #expect(point?.altitude == 0)
        #expect(GeoPoint(latitude: 90, longitude: 180) != nil)
        #expect(GeoPoint(latitude: -90, longitude: -180) != nil)
        #expect(GeoPoint(latitude: 90.000001, longitude: 0) == nil)
        #expect(GeoPoint(latitude: -90.5, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: 180.1) == nil)
        #expect(GeoPoint(latitude: 0, longitude: -181) == nil)
        #expect(GeoPoint(latitude: .nan, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: .nan) == nil)
        #expect(GeoPoint(latitude: 0, longitude: .infinity) == nil)
        #expect(GeoPoint(latitude: 1, longitude: 2, altitude: 100)?.altitude == 100)
        #expect(GeoPoint(latitude: 1, longitude: 2, altitude: -1) == nil)
        #expect(GeoPoint(latitude: 1, longitude: 2, altitude: .nan) == nil)
    }

    @Test("GeoPoint's unlabelled initializer, as Realm Swift's: latitude, longitude, altitude 0 unless given")
    func unlabelledPoint() {
        #expect(GeoPoint(37.5, -122.25) == GeoPoint(latitude: 37.5, longitude: -122.25))
        #expect(GeoPoint(37.5, -122.25)?.altitude == 0)
        #expect(GeoPoint(1, 2, 30) == GeoPoint(latitude: 1, longitude: 2, altitude: 30))
        #expect(GeoPoint(91, 0) == nil)
        #expect(GeoPoint(0, -180.5) == nil)
        #expect(GeoPoint(1, 2, -1) == nil)
        let make: (Double, Double, Double) -> GeoPoint? = GeoPoint.init
        #expect(make(3, 4, 5)?.latitude == 3)
    }

    @Test("GeoPolygon from pairs: holes optional, nil by default, as Realm Swift's")
    func polygonPairsHolesOptional() {
        let ring: [(Double, Double)] = [(0, 0), (0, 10), (10, 10), (0, 0)]
        let hole: [(Double, Double)] = [(2, 2), (2, 3), (3, 3), (2, 2)]
        #expect(GeoPolygon(outerRing: ring, holes: nil)?.holes == nil)
        let noHoles: [[(Double, Double)]]? = nil
        #expect(GeoPolygon(outerRing: ring, holes: noHoles)?.holes == nil)
        let someHoles: [[(Double, Double)]]? = [hole]
        #expect(GeoPolygon(outerRing: ring, holes: someHoles)?.holes?.count == 1)
        let emptyHoles: [[(Double, Double)]]? = []
        #expect(GeoPolygon(outerRing: ring, holes: emptyHoles)?.holes == [])
        #expect(GeoPolygon(outerRing: ring, holes: [[(2, 2), (2, 3), (3, 300), (2, 2)]]) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (0, 10), (100, 10), (0, 0)], holes: nil) == nil)
    }

    @Test("points, boxes, polygons, circles and distances compare by value")
    func equality() {
        #expect(GeoPoint(latitude: 1, longitude: 2) == GeoPoint(latitude: 1, longitude: 2))
        #expect(GeoPoint(latitude: 1, longitude: 2) != GeoPoint(latitude: 2, longitude: 1))
        #expect(GeoPoint(latitude: 1, longitude: 2) != GeoPoint(latitude: 1, longitude: 2, altitude: 3))
        #expect(Set([GeoPoint(latitude: 1, longitude: 2)!, GeoPoint(latitude: 1, longitude: 2)!]).count == 1)
        #expect(GeoBox(bottomLeft: (0, 0), topRight: (1, 1)) == GeoBox(bottomLeft: (0, 0), topRight: (1, 1)))
        #expect(GeoBox(bottomLeft: (0, 0), topRight: (1, 1)) != GeoBox(bottomLeft: (0, 0), topRight: (1, 2)))
        let ring = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0)]
        #expect(GeoPolygon(outerRing: ring) == GeoPolygon(outerRing: ring))
        #expect(GeoPolygon(outerRing: ring) != GeoPolygon(outerRing: ring, holes: [ring]))
        #expect(GeoCircle(center: (0, 0), radiusInRadians: 1) == GeoCircle(center: (0, 0), radiusInRadians: 1))
        #expect(GeoCircle(center: (0, 0), radiusInRadians: 1) != GeoCircle(center: (0, 0), radiusInRadians: 2))
        #expect(Distance.degrees(180) == Distance.radians(.pi))
    }

    @Test("GeoBox from corners, and from (latitude, longitude) pairs that fail out of range")
    func boxes() {
        let bottomLeft = GeoPoint(latitude: 37.2, longitude: -122.6)!
        let topRight = GeoPoint(latitude: 38.0, longitude: -121.8)!
        let box = GeoBox(bottomLeft: bottomLeft, topRight: topRight)
        #expect(box.bottomLeft == bottomLeft)
        #expect(box.topRight == topRight)
        let pairs = GeoBox(bottomLeft: (37.2, -122.6), topRight: (38.0, -121.8))
        #expect(pairs == box)
        #expect(GeoBox(bottomLeft: (91, 0), topRight: (1, 1)) == nil)
        #expect(GeoBox(bottomLeft: (0, 0), topRight: (1, 200)) == nil)
        let shape: any RLMGeospatial = box
        #expect(shape is GeoBox)
        let objectiveCName: RLMGeospatialBox = box
        #expect(objectiveCName === box)
    }

    @Test("GeoPolygon needs closed rings of at least four points")
    func polygons() {
        let ring = [GeoPoint(latitude: 0, longitude: 0)!, GeoPoint(latitude: 0, longitude: 10)!,
                    GeoPoint(latitude: 10, longitude: 10)!, GeoPoint(latitude: 0, longitude: 0)!]
        let polygon = GeoPolygon(outerRing: ring)
        #expect(polygon?.outerRing == ring)
        #expect(polygon?.holes == nil)
        #expect(GeoPolygon(outerRing: Array(ring.prefix(3))) == nil) // three points
        #expect(GeoPolygon(outerRing: Array(ring.prefix(3)) + [GeoPoint(latitude: 5, longitude: 5)!]) == nil) // not closed
        let hole = [GeoPoint(latitude: 1, longitude: 1)!, GeoPoint(latitude: 1, longitude: 2)!,
                    GeoPoint(latitude: 2, longitude: 2)!, GeoPoint(latitude: 1, longitude: 1)!]
        #expect(GeoPolygon(outerRing: ring, holes: [hole])?.holes == [hole])
        #expect(GeoPolygon(outerRing: ring, holes: [Array(hole.prefix(3))]) == nil)
        #expect(GeoPolygon(outerRing: ring, holes: [hole.dropLast() + [GeoPoint(latitude: 3, longitude: 3)!]]) == nil)

        // From (latitude, longitude) pairs: the holes as an array, or one argument each.
        let pairs = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (0.0, 0.0)]
        let holePairs = [(1.0, 1.0), (1.0, 2.0), (2.0, 2.0), (1.0, 1.0)]
        #expect(GeoPolygon(outerRing: pairs)?.outerRing == ring)
        #expect(GeoPolygon(outerRing: pairs, holes: [holePairs])?.holes == [hole])
        #expect(GeoPolygon(outerRing: pairs, holes: holePairs, holePairs)?.holes == [hole, hole])
        #expect(GeoPolygon(outerRing: [(0, 0), (0, 10), (100, 10), (0, 0)]) == nil) // latitude out of range
        #expect(GeoPolygon(outerRing: pairs, holes: [[(1, 1), (1, 2), (2, 200), (1, 1)]]) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (0, 10), (0, 0)]) == nil)
    }

    @Test("GeoCircle refuses a negative radius and a centre out of range")
    func circles() {
        let center = GeoPoint(latitude: 47.8, longitude: -122.6)!
        let circle = GeoCircle(center: center, radiusInRadians: 0.25)
        #expect(circle?.center == center)
        #expect(circle?.radians == 0.25)
        #expect(GeoCircle(center: center, radiusInRadians: 0)?.radians == 0)
        #expect(GeoCircle(center: center, radiusInRadians: -0.1) == nil)
        #expect(GeoCircle(center: center, radiusInRadians: .nan) == nil)
        #expect(GeoCircle(center: center, radius: .kilometers(6378.1)!).radians == 1)
        #expect(GeoCircle(center: (47.3, -121.9), radiusInRadians: 0.004363323)?.center == GeoPoint(latitude: 47.3, longitude: -121.9))
        #expect(GeoCircle(center: (95, 0), radiusInRadians: 1) == nil)
        #expect(GeoCircle(center: (0, 0), radiusInRadians: -1) == nil)
        #expect(GeoCircle(center: (47.3, -121.9), radius: .miles(3)!)?.radians == Distance.miles(3)!.radians)
        #expect(GeoCircle(center: (0, 181), radius: .miles(3)!) == nil)
    }

    @Test("Distance converts kilometres, miles and degrees to radians on a 6378.1 km Earth")
    func distances() {
        #expect(Distance.kilometers(6378.1)?.radians == 1)
        #expect(Distance.radians(1)?.asKilometers() == 6378.1)
        #expect(abs(Distance.miles(1)!.asKilometers() - 1.609344) < 1e-12)
        #expect(abs(Distance.kilometers(1.609344)!.asMiles() - 1) < 1e-12)
        #expect(Distance.degrees(180)?.radians == .pi)
        #expect(Distance.radians(.pi)?.asDegrees() == 180)
        #expect(abs(Distance.kilometers(44.4)!.radians - 44.4 / 6378.1) < 1e-15)
        #expect(Distance.kilometers(0)?.radians == 0)
        #expect(Distance.kilometers(-1) == nil)
        #expect(Distance.miles(-0.5) == nil)
        #expect(Distance.degrees(-1) == nil)
        #expect(Distance.radians(-1) == nil)
        #expect(Distance.radians(.nan) == nil)
        let objectiveCName: RLMDistance? = Distance.radians(2)
        #expect(objectiveCName?.radians == 2)
    }
}
