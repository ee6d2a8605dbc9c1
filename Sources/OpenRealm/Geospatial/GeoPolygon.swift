// GeoPolygon.swift — a polygon with holes on the sphere, for Realm's geospatial queries.

/// A polygon for a geospatial `geoWithin` query, as Realm's `GeoPolygon`: an outer ring and
/// any number of holes inside it. Each ring is closed (its last point is its first), so it
/// needs at least 4 points; its edges are great-circle arcs (the shortest way along the sphere);
/// whatever the order of its points, a ring stands for the smaller of the two regions it bounds.
/// Points on an edge, a hole's too, are within.
///
///     let triangle = GeoPolygon(outerRing: [(0, 0), (0, 10), (10, 0), (0, 0)])!
///     let frame = GeoPolygon(outerRing: [(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)],
///                            holes: [(4, 4), (4, 6), (6, 6), (6, 4), (4, 4)])!
///     let places = realm.objects(Place.self).where { $0.location.geoWithin(frame) }
///
/// The initializers return `nil` for a ring of fewer than 4 points or whose last point is not
/// its first. What they do not check is refused when the query runs, with realm-core's words:
/// a ring of fewer than 3 different points, edges that cross, a hole outside the outer ring,
/// holes that cross, share an edge or lie in one another. It cannot be stored.
public final class GeoPolygon: RLMGeospatial, Hashable, Sendable {
    /// The outer ring.
    public let outerRing: [GeoPoint]
    /// The holes, if any.
    public let holes: [[GeoPoint]]?

    /// A polygon without holes, or `nil` if the ring has fewer than 4 points or is not closed.
    ///
    ///     let square = GeoPolygon(outerRing: [GeoPoint(latitude: 0, longitude: 0)!, GeoPoint(latitude: 0, longitude: 1)!,
    ///                                         GeoPoint(latitude: 1, longitude: 1)!, GeoPoint(latitude: 0, longitude: 0)!])
    public convenience init?(outerRing: [GeoPoint]) {
        self.init(outerRing: outerRing, holes: nil)
    }

    /// A polygon with holes, or `nil` if a ring has fewer than 4 points or is not closed.
    ///
    ///     let ring = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (0.0, 0.0)].map { GeoPoint(latitude: $0.0, longitude: $0.1)! }
    ///     let polygon = GeoPolygon(outerRing: ring, holes: nil)
    public init?(outerRing: [GeoPoint], holes: [[GeoPoint]]?) {
        func closed(_ ring: [GeoPoint]) -> Bool { ring.count > 3 && ring.first == ring.last }
        guard closed(outerRing), (holes ?? []).allSatisfy(closed) else { return nil }
        self.outerRing = outerRing
        self.holes = holes
    }

    /// A polygon from points given as (latitude, longitude), or `nil` if a point is out of range,
    /// or a ring has fewer than 4 points or is not closed. Without holes (`nil`, the default),
    /// `holes` is `nil`.
    ///
    ///     let polygon = GeoPolygon(outerRing: [(0, 0), (0, 10), (10, 10), (0, 0)],
    ///                              holes: [[(2, 2), (2, 3), (3, 3), (2, 2)]])
    public convenience init?(outerRing: [(Double, Double)], holes: [[(Double, Double)]]? = nil) {
        func points(_ pairs: [(Double, Double)]) -> [GeoPoint]? {
            let points = pairs.compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
            return points.count == pairs.count ? points : nil
        }
        guard let outerRingPoints = points(outerRing) else { return nil }
        var holesPoints: [[GeoPoint]]?
        if let holes {
            let converted = holes.compactMap(points)
            guard converted.count == holes.count else { return nil }
            holesPoints = converted
        }
        self.init(outerRing: outerRingPoints, holes: holesPoints)
    }

    /// A polygon from points given as (latitude, longitude), its holes one argument each.
    ///
    ///     let polygon = GeoPolygon(outerRing: [(0, 0), (0, 10), (10, 10), (0, 0)],
    ///                              holes: [(2, 2), (2, 3), (3, 3), (2, 2)], [(5, 5), (5, 6), (6, 6), (5, 5)])
    public convenience init?(outerRing: [(Double, Double)], holes: [(Double, Double)]...) {
        self.init(outerRing: outerRing, holes: Optional(holes))
    }

    /// Polygons are equal when their rings are.
    ///
    ///     GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (0, 0)]) == GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (0, 0)])
    public static func == (lhs: GeoPolygon, rhs: GeoPolygon) -> Bool {
        lhs.outerRing == rhs.outerRing && lhs.holes == rhs.holes
    }

    /// Hashes the rings.
    ///
    ///     let seen: Set<GeoPolygon> = [GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (0, 0)])!]
    public func hash(into hasher: inout Hasher) {
        hasher.combine(outerRing)
        hasher.combine(holes)
    }
}

/// Realm's Objective-C name of `GeoPolygon`.
public typealias RLMGeospatialPolygon = GeoPolygon
