// GeoPoint.swift — a point on the Earth by latitude and longitude, the corner, centre and vertex
// of Realm's geospatial shapes.

/// The coordinates of a point: a latitude and a longitude in degrees, as Realm's `GeoPoint`.
///
/// - Latitude lies between -90 and 90 degrees, inclusive.
/// - Longitude lies between -180 and 180 degrees, inclusive.
/// - Altitude cannot be negative; no query uses it.
///
/// Values outside these ranges (or NaN) make the initializer return `nil`.
///
///     let sanFrancisco = GeoPoint(latitude: 37.7749, longitude: -122.4194)!
///     GeoPoint(latitude: 91, longitude: 0) == nil
///
/// A `GeoPoint` is not stored: points are stored as a GeoJSON-shaped embedded object, which a
/// geospatial query (`geoWithin`) recognises by its shape: a `String` property `type` holding
/// `"Point"` and a `List<Double>` property `coordinates` holding the longitude, then the latitude.
///
///     class Location: EmbeddedObject {
///         @Persisted private var coordinates: List<Double>
///         @Persisted private var type: String = "Point"
///
///         var latitude: Double { coordinates[1] }
///         var longitude: Double { coordinates[0] }
///
///         convenience init(_ latitude: Double, _ longitude: Double) {
///             self.init()
///             // GeoJSON puts the longitude first.
///             coordinates.append(objectsIn: [longitude, latitude])
///         }
///     }
public final class GeoPoint: Hashable, Sendable, CustomStringConvertible {
    /// Latitude in degrees.
    public let latitude: Double
    /// Longitude in degrees.
    public let longitude: Double
    /// Altitude distance (no query uses it).
    public let altitude: Double

    /// A point, or `nil` if the latitude or longitude is out of range.
    ///
    ///     let point = GeoPoint(latitude: 40.7128, longitude: -74.0060)
    public convenience init?(latitude: Double, longitude: Double) {
        self.init(latitude: latitude, longitude: longitude, altitude: 0)
    }

    /// A point with an altitude, or `nil` if the latitude or longitude is out of range or the
    /// altitude is negative.
    ///
    ///     let summit = GeoPoint(latitude: 27.9881, longitude: 86.9250, altitude: 8849)
    public init?(latitude: Double, longitude: Double, altitude: Double) {
        guard !latitude.isNaN, !longitude.isNaN, !altitude.isNaN, (-90...90).contains(latitude),
            (-180...180).contains(longitude), altitude >= 0
        else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// A point from an unlabelled latitude, longitude and altitude (0 unless given), as Realm
    /// Swift's extension, or `nil` if one is out of range.
    ///
    ///     let point = GeoPoint(40.7128, -74.0060)
    ///     let summit = GeoPoint(27.9881, 86.9250, 8849)
    public convenience init?(_ latitude: Double, _ longitude: Double, _ altitude: Double = 0) {
        self.init(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// Points are equal when their latitude, longitude and altitude are.
    ///
    ///     GeoPoint(latitude: 1, longitude: 2) == GeoPoint(latitude: 1, longitude: 2)   // true
    public static func == (lhs: GeoPoint, rhs: GeoPoint) -> Bool {
        lhs.latitude == rhs.latitude && lhs.longitude == rhs.longitude && lhs.altitude == rhs.altitude
    }

    /// Hashes the latitude, longitude and altitude.
    ///
    ///     let visited: Set<GeoPoint> = [GeoPoint(latitude: 1, longitude: 2)!]
    public func hash(into hasher: inout Hasher) {
        hasher.combine(latitude)
        hasher.combine(longitude)
        hasher.combine(altitude)
    }

    /// `GeoPoint(latitude: 1.0, longitude: 2.0)`.
    ///
    ///     print(GeoPoint(latitude: 1, longitude: 2)!)
    public var description: String { "GeoPoint(latitude: \(latitude), longitude: \(longitude))" }
}

/// Realm's Objective-C name of `GeoPoint`.
public typealias RLMGeospatialPoint = GeoPoint
