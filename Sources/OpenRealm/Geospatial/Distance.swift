// Distance.swift — a distance along the Earth's surface, kept as an angle in radians, for
// Realm's geospatial circles.

/// A distance along the sphere, as Realm's `Distance`: an angle at the Earth's centre in
/// radians, made from kilometres, miles, degrees or radians and read back in any of them.
/// Realm's Earth has a radius of 6378.1 km; a mile is 1.609344 km.
///
///     let radius = Distance.kilometers(44.4)!
///     radius.radians          // 0.006961...
///     radius.asMiles()        // 27.58...
///     let circle = GeoCircle(center: GeoPoint(latitude: 47.8, longitude: -122.6)!, radius: radius)
///
/// A negative distance (or NaN) makes the constructors return `nil`. It cannot be stored.
public final class Distance: Hashable, Sendable {
    /// The Earth's radius Realm uses, in metres.
    private static let earthRadiusMeters = 6378100.0
    private static let metersPerMile = 1609.344

    /// The distance in radians.
    public let radians: Double

    private init?(checkedRadians radians: Double) {
        guard !radians.isNaN, radians >= 0 else { return nil }
        self.radians = radians
    }

    /// A distance in kilometres, or `nil` if it is negative.
    ///
    ///     let radius = Distance.kilometers(10)
    public static func kilometers(_ kilometers: Double) -> Distance? {
        Distance(checkedRadians: kilometers * 1000 / earthRadiusMeters)
    }

    /// A distance in miles, or `nil` if it is negative.
    ///
    ///     let radius = Distance.miles(5)
    public static func miles(_ miles: Double) -> Distance? {
        Distance(checkedRadians: miles * metersPerMile / earthRadiusMeters)
    }

    /// A distance in degrees of arc, or `nil` if it is negative.
    ///
    ///     let radius = Distance.degrees(0.25)
    public static func degrees(_ degrees: Double) -> Distance? {
        Distance(checkedRadians: degrees * (Double.pi / 180))
    }

    /// A distance in radians, or `nil` if it is negative.
    ///
    ///     let radius = Distance.radians(0.01)
    public static func radians(_ radians: Double) -> Distance? {
        Distance(checkedRadians: radians)
    }

    /// The distance in kilometres.
    ///
    ///     Distance.radians(1)!.asKilometers()   // 6378.1
    public func asKilometers() -> Double { radians * Distance.earthRadiusMeters / 1000 }

    /// The distance in miles.
    ///
    ///     Distance.kilometers(1.609344)!.asMiles()   // 1.0
    public func asMiles() -> Double { radians * Distance.earthRadiusMeters / Distance.metersPerMile }

    /// The distance in degrees of arc.
    ///
    ///     Distance.radians(.pi)!.asDegrees()   // 180.0
    public func asDegrees() -> Double { radians / (Double.pi / 180) }

    /// Distances are equal when their radians are.
    ///
    ///     Distance.degrees(180) == Distance.radians(.pi)   // true
    public static func == (lhs: Distance, rhs: Distance) -> Bool { lhs.radians == rhs.radians }

    /// Hashes the radians.
    ///
    ///     let radii: Set<Distance> = [Distance.radians(0.1)!]
    public func hash(into hasher: inout Hasher) { hasher.combine(radians) }
}

/// Realm's Objective-C name of `Distance`.
public typealias RLMDistance = Distance
