// GeoCircle.swift — a circle on the sphere (a centre and a radius along the surface), for
// Realm's geospatial queries.

/// A circle for a geospatial `geoWithin` query, as Realm's `GeoCircle`: the points within a
/// distance of its centre measured along the sphere (the edge included). The radius is an angle
/// in radians; `Distance` converts kilometres, miles and degrees.
///
///     let nearby = GeoCircle(center: (47.3, -121.9), radiusInRadians: 0.004363323)!
///     let wider = GeoCircle(center: GeoPoint(latitude: 47.8, longitude: -122.6)!, radius: Distance.kilometers(44.4)!)
///     let places = realm.objects(Place.self).where { $0.location.geoWithin(wider) }
///
/// It cannot be stored.
public final class GeoCircle: RLMGeospatial, Hashable, Sendable {
    /// The centre.
    public let center: GeoPoint
    /// The radius in radians.
    public let radians: Double

    /// A circle, or `nil` if the radius is negative (or NaN).
    ///
    ///     let circle = GeoCircle(center: GeoPoint(latitude: 0, longitude: 0)!, radiusInRadians: 0.1)
    public init?(center: GeoPoint, radiusInRadians radians: Double) {
        guard !radians.isNaN, radians >= 0 else { return nil }
        self.center = center
        self.radians = radians
    }

    /// A circle whose radius is a `Distance`.
    ///
    ///     let circle = GeoCircle(center: GeoPoint(latitude: 0, longitude: 0)!, radius: .miles(3)!)
    public init(center: GeoPoint, radius: Distance) {
        self.center = center
        self.radians = radius.radians
    }

    /// A circle around (latitude, longitude), or `nil` if the centre is out of range or the
    /// radius negative.
    ///
    ///     let circle = GeoCircle(center: (47.3, -121.9), radiusInRadians: 0.01)
    public convenience init?(center: (Double, Double), radiusInRadians: Double) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radiusInRadians: radiusInRadians)
    }

    /// A circle around (latitude, longitude) whose radius is a `Distance`, or `nil` if the centre
    /// is out of range.
    ///
    ///     let circle = GeoCircle(center: (47.3, -121.9), radius: .kilometers(5)!)
    public convenience init?(center: (Double, Double), radius: Distance) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radius: radius)
    }

    /// Circles are equal when their centres and radii are.
    ///
    ///     GeoCircle(center: (0, 0), radiusInRadians: 1) == GeoCircle(center: (0, 0), radiusInRadians: 1)
    public static func == (lhs: GeoCircle, rhs: GeoCircle) -> Bool {
        lhs.radians == rhs.radians && lhs.center == rhs.center
    }

    /// Hashes the centre and radius.
    ///
    ///     let seen: Set<GeoCircle> = [GeoCircle(center: (0, 0), radiusInRadians: 1)!]
    public func hash(into hasher: inout Hasher) {
        hasher.combine(center)
        hasher.combine(radians)
    }
}

/// Realm's Objective-C name of `GeoCircle`.
public typealias RLMGeospatialCircle = GeoCircle
