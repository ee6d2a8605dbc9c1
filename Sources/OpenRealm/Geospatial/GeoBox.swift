// GeoBox.swift — a box between two corners, for Realm's geospatial queries.

/// A rectangle between two corners, for a geospatial `geoWithin` query, as Realm's `GeoBox`.
/// As realm-core, a query takes it as the polygon through its four corners (bottom-left,
/// top-left, top-right, bottom-right): its edges are great-circle arcs, so a north edge bulges
/// poleward of its parallel, and the order of the corners does not matter (the polygon is the
/// smaller region they bound, across the antimeridian too). Points on an edge are within.
///
///     let bayArea = GeoBox(bottomLeft: (37.2, -122.6), topRight: (38.0, -121.8))!
///     let places = realm.objects(Place.self).where { $0.location.geoWithin(bayArea) }
///
/// A box whose corners share a latitude or a longitude is refused when the query runs, with
/// realm-core's words for the polygon ("Ring 0 must have at least 3 different vertices"). It
/// cannot be stored.
public final class GeoBox: RLMGeospatial, Hashable, Sendable {
    /// The bottom-left (south-west) corner.
    public let bottomLeft: GeoPoint
    /// The top-right (north-east) corner.
    public let topRight: GeoPoint

    /// A box between two corners.
    ///
    ///     let box = GeoBox(bottomLeft: GeoPoint(latitude: 0, longitude: 0)!,
    ///                      topRight: GeoPoint(latitude: 10, longitude: 10)!)
    public init(bottomLeft: GeoPoint, topRight: GeoPoint) {
        self.bottomLeft = bottomLeft
        self.topRight = topRight
    }

    /// A box between two corners given as (latitude, longitude), or `nil` if a corner is out of
    /// range.
    ///
    ///     let box = GeoBox(bottomLeft: (0, 0), topRight: (10, 10))
    public convenience init?(bottomLeft: (Double, Double), topRight: (Double, Double)) {
        guard let bottomLeft = GeoPoint(latitude: bottomLeft.0, longitude: bottomLeft.1),
            let topRight = GeoPoint(latitude: topRight.0, longitude: topRight.1)
        else { return nil }
        self.init(bottomLeft: bottomLeft, topRight: topRight)
    }

    /// Boxes are equal when their corners are.
    ///
    ///     GeoBox(bottomLeft: (0, 0), topRight: (1, 1)) == GeoBox(bottomLeft: (0, 0), topRight: (1, 1))
    public static func == (lhs: GeoBox, rhs: GeoBox) -> Bool {
        lhs.bottomLeft == rhs.bottomLeft && lhs.topRight == rhs.topRight
    }

    /// Hashes the corners.
    ///
    ///     let seen: Set<GeoBox> = [GeoBox(bottomLeft: (0, 0), topRight: (1, 1))!]
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bottomLeft)
        hasher.combine(topRight)
    }
}

/// Realm's Objective-C name of `GeoBox`.
public typealias RLMGeospatialBox = GeoBox
