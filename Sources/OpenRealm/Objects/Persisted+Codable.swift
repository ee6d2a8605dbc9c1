// Persisted+Codable.swift — Codable of @Persisted properties, so that a model class declared
// `Codable` gets Swift's synthesised conformance, as in Realm Swift: decoding makes an unmanaged
// object; encoding works on unmanaged objects and throws Realm's error for managed ones.

import Foundation

extension Persisted: Decodable where Value: Decodable {
    /// Decodes the property's value; `null` gives the type's default value (nil for optionals).
    /// A model declared `Codable` is decoded unmanaged:
    ///
    ///     final class Dog: Object, Codable {
    ///         @Persisted var name: String
    ///         @Persisted var age: Int?
    ///     }
    ///     let dog = try JSONDecoder().decode(Dog.self, from: Data(#"{"name": "Rex"}"#.utf8))
    ///     dog.age == nil    // a missing optional property is nil
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        storage = .value(try container.decodeNil() ? Value._rlmDefault() : container.decode(Value.self))
        // Replaces the wrapper the object's init made: its token is set when the object is added.
        token = -1
        options = 0
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the value of an unmanaged object's property. A managed object's property throws
    /// `EncodingError.invalidValue` (Realm's message): write `encode(to:)` for such a class.
    public func encode(to encoder: Encoder) throws {
        if options & Self.managedOption != 0 {
            throw EncodingError.invalidValue(self, EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "Only unmanaged Realm objects can be encoded using automatic Codable synthesis. You must explicitly define encode(to:) on your model class to support managed Realm objects."))
        }
        switch storage {
        case .value(let value), .managedCache(let value): try value.encode(to: encoder)
        case .unset: try Value._rlmDefault().encode(to: encoder)
        }
    }
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {}
