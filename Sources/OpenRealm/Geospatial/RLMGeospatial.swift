// RLMGeospatial.swift — the protocol Realm's geospatial shapes conform to.

/// A shape a geospatial query (`geoWithin`) can look within: `GeoBox`, `GeoPolygon` and
/// `GeoCircle` conform to it, as Realm's shapes conform to its `RLMGeospatial` protocol.
///
///     func places(in shape: some RLMGeospatial, of realm: Realm) -> Results<Place> {
///         realm.objects(Place.self).where { $0.location.geoWithin(shape) }
///     }
///
/// Other types that conform to it cannot be used in a query.
public protocol RLMGeospatial {}
