// Codable+Values.swift — Codable for Decimal128, ObjectId, List, MutableSet and Map in Realm
// Swift's JSON shapes: Decimal128 and ObjectId as strings, lists and sets as arrays, maps as
// objects.

import Foundation

extension Decimal128: Codable {
    /// Decodes a string (`"1.5"`, `"1E+3"`), an integer or a double, as Realm does; anything
    /// else is a `DecodingError`.
    ///
    ///     try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.5", 2, 2.5]"#.utf8))
    public convenience init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.init(try Decimal128(string: text))
        } else if let integer = try? container.decode(Int64.self) {
            self.init(Int(integer))
        } else if let double = try? container.decode(Double.self) {
            self.init(Decimal128.fromDouble(double))
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Cannot convert value to Decimal128")
        }
    }

    /// Encodes the value as its string (`"1.5"`), as Realm does.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

extension ObjectId: Codable {
    /// Decodes the 24 hexadecimal digits of a string, as Realm does.
    ///
    ///     try JSONDecoder().decode([ObjectId].self, from: Data(#"["6054d1f5e5f8a2b3c4d5e6f7"]"#.utf8))
    public convenience init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let parsed = try ObjectId(string: container.decode(String.self))
        self.init(bytes: parsed.bytes)
    }

    /// Encodes the value as its 24 hexadecimal digits, as Realm does.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

extension List: Decodable where Element: Decodable {
    /// An unmanaged list of the elements of an array.
    ///
    ///     let tags = try JSONDecoder().decode(List<String>.self, from: Data(#"["a", "b"]"#.utf8))
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { append(try container.decode(Element.self)) }
    }
}

extension List: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension MutableSet: Decodable where Element: Decodable {
    /// An unmanaged set of the elements of an array.
    ///
    ///     let tags = try JSONDecoder().decode(MutableSet<String>.self, from: Data(#"["a", "b"]"#.utf8))
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { insert(try container.decode(Element.self)) }
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// Encodes the elements as an array.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension Map: Decodable where Key: Decodable, Value: Decodable {
    /// An unmanaged map of the entries of an object.
    ///
    ///     let scores = try JSONDecoder().decode(Map<String, Int>.self, from: Data(#"{"math": 90}"#.utf8))
    public convenience init(from decoder: Decoder) throws {
        self.init()
        let container = try decoder.singleValueContainer()
        for (key, value) in try container.decode([Key: Value].self) { updateValue(value, forKey: key) }
    }
}

extension Map: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes the entries as an object.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(uniqueKeysWithValues: asKeyValueSequence().map { ($0.key, $0.value) }))
    }
}
