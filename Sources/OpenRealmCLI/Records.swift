// Records.swift — what export and query share: a file's schema as JSON, the references of
// links (primary keys or "@key"), and objects as JSON, CSV or table cells.

import Foundation
import OpenRealm

enum Records {
    static func schemaJSON(_ cls: DynamicClass) -> JSONValue {
        var entries: [(key: String, value: JSONValue)] = [("name", .string(cls.name))]
        if cls.embedded { entries.append(("embedded", .bool(true))) }
        entries.append(("properties", .array(cls.properties.map { property in
            var fields: [(key: String, value: JSONValue)] = [("name", .string(property.name)), ("type", .string(property.type.rawValue))]
            if property.collection != .none { fields.append(("collection", .string(property.collection.rawValue))) }
            if property.optional && property.type != .mixed { fields.append(("optional", .bool(true))) }
            if property.primaryKey { fields.append(("primaryKey", .bool(true))) }
            if property.indexed && !property.primaryKey { fields.append(("indexed", .bool(true))) }
            if let target = property.target { fields.append(("target", .string(target))) }
            return .object(fields)
        })))
        return .object(entries)
    }

    static func schema(from json: JSONValue) throws -> DynamicClass {
        guard case .string(let name)? = json["name"], case .array(let properties)? = json["properties"] else {
            throw ToolError.failure("a class of the schema needs a name and properties: \(json.shown)")
        }
        // A key the format does not have, or a flag that is not a boolean, is an error: read as
        // absent or false, a misspelt or misplaced one would change the schema without a word.
        try checkKeys(json, ["name", "embedded", "properties"], "class '\(name)'")
        let embedded = try flag(json, "embedded", "class '\(name)'")
        return DynamicClass(name: name, embedded: embedded, properties: try properties.map { property in
            guard case .string(let propertyName)? = property["name"], case .string(let typeName)? = property["type"],
                let type = DynamicType(rawValue: typeName)
            else { throw ToolError.failure("a property of class '\(name)' needs a name and a type: \(property.shown)") }
            let place = "property '\(propertyName)' of class '\(name)'"
            try checkKeys(property, ["name", "type", "collection", "optional", "primaryKey", "indexed", "target"], place)
            func flag(_ key: String) throws -> Bool { try Records.flag(property, key, place) }
            func text(_ key: String) throws -> String? {
                switch property[key] {
                case nil: return nil
                case .string(let text)?: return text
                case let other?: throw ToolError.failure("\(place): \"\(key)\" is a string, not \(other.shown)")
                }
            }
            var collection = DynamicCollection.none
            if let text = try text("collection") {
                guard let parsed = DynamicCollection(rawValue: text) else { throw ToolError.failure("unknown collection '\(text)'") }
                collection = parsed
            }
            let target = try text("target")
            return DynamicProperty(name: propertyName, type: type, collection: collection, optional: try flag("optional"),
                                   primaryKey: try flag("primaryKey"), indexed: try flag("indexed") || flag("primaryKey"),
                                   target: target)
        })
    }

    /// Refuses a key of `json` (an object of the schema) that is not one of `known`.
    private static func checkKeys(_ json: JSONValue, _ known: Set<String>, _ place: String) throws {
        guard case .object(let entries) = json else { return }
        if let unknown = entries.first(where: { !known.contains($0.key) }) {
            throw ToolError.failure("\(place): unknown key \"\(unknown.key)\" (the keys are \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// The boolean `key` of `json`: false when absent, an error when not a boolean.
    private static func flag(_ json: JSONValue, _ key: String, _ place: String) throws -> Bool {
        switch json[key] {
        case nil: return false
        case .bool(let value)?: return value
        case let other?: throw ToolError.failure("\(place): \"\(key)\" is true or false, not \(other.shown)")
        }
    }

    /// References of exported objects: primary keys, or the position in key order ("@key").
    static func exportLinks(_ txn: DynamicTransaction, _ schema: [String: DynamicClass]) -> LinkCoding {
        var ordinals: [String: [Int64: Int]] = [:]
        return LinkCoding(
            reference: { className, key in
                guard let cls = schema[className] else { throw ToolError.failure("no class '\(className)'") }
                if let primaryKey = cls.primaryKey {
                    return try ValueCoding.scalar(try txn.value(of: key, in: className, property: primaryKey))
                }
                if ordinals[className] == nil {
                    var map: [Int64: Int] = [:]
                    for (index, objectKey) in try txn.objectKeys(of: className).enumerated() { map[objectKey] = index }
                    ordinals[className] = map
                }
                guard let ordinal = ordinals[className]?[key] else { throw ToolError.failure("no object \(key) in '\(className)'") }
                return .number(String(ordinal))
            },
            resolve: { className, _ in throw ToolError.failure("cannot resolve links to '\(className)' while exporting") })
    }

    /// One object as JSON; classes without a primary key get "@key" first.
    static func objectJSON(_ txn: DynamicTransaction, _ key: Int64, _ cls: DynamicClass, _ schema: [String: DynamicClass],
                           _ links: LinkCoding, ordinal: Int?) throws -> JSONValue {
        guard case .object(var entries) = try ValueCoding.encodeObject(try txn.values(of: key, in: cls.name), cls, schema, links) else {
            return .null
        }
        if let ordinal { entries.insert(("@key", .number(String(ordinal))), at: 0) }
        return .object(entries)
    }

    /// Whether every property of `cls` is a scalar (no link, collection, embedded object or mixed
    /// value): its objects are exported and imported by the fast paths.
    static func scalarsOnly(_ cls: DynamicClass) -> Bool {
        cls.properties.allSatisfy { $0.collection == .none && $0.type != .object && $0.type != .mixed }
    }

    /// The `"name":` prefixes of a scalar-only class's properties, for `Rows.export`.
    static func quotedKeys(_ cls: DynamicClass) -> [[UInt8]] {
        cls.properties.map { property in
            var bytes: [UInt8] = []
            JSONValue.quote(property.name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            return bytes
        }
    }

    /// A cell of a table or CSV: strings as they are, other values as their JSON text.
    static func cell(_ json: JSONValue) -> String {
        switch json {
        case .string(let text): text
        case .null: ""
        default: JSONValue.write(json)
        }
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func csvLine(_ fields: [String]) -> String { fields.map(csvField).joined(separator: ",") }
}
