// OptionalCodingWrapper.swift — OptionalCodingWrapper: how a decoded model's optional @Persisted
// property may be missing from its input, as in Realm Swift.

/// A property wrapper around an optional value: decoding a `Codable` model whose input lacks the
/// property's key gives nil rather than a `keyNotFound` error (`@Persisted var age: Int?`).
public protocol OptionalCodingWrapper {
    /// The wrapped optional type.
    associatedtype WrappedType: ExpressibleByNilLiteral
    /// A wrapper holding `wrappedValue`.
    init(wrappedValue: WrappedType)
}

extension KeyedDecodingContainer {
    /// Decodes an optional property wrapper: a missing key gives a wrapper holding nil, as Realm
    /// Swift does for `@Persisted` optionals. Used by synthesised `init(from:)`.
    public func decode<T>(_ type: T.Type, forKey key: KeyedDecodingContainer<K>.Key) throws -> T
    where T: Decodable, T: OptionalCodingWrapper {
        try decodeIfPresent(T.self, forKey: key) ?? T(wrappedValue: nil)
    }
}
