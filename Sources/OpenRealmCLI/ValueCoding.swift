// ValueCoding.swift — values of a file as JSON and as text, and back: the lossless encoding of
// every property type that export, import and query share.
//
// By the property's type: int a number; bool true/false; float and double their shortest
// exact text ("NaN", "Infinity", "-Infinity" as strings); string a string; data base64; date
// "YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ" (UTC, nanoseconds); decimal128 its text; objectId 24 hex
// digits; uuid its canonical text; a link the target's primary key (or, for a class without
// one, the target's "@key"); an embedded object nested; lists and sets arrays; dictionaries
// objects; mixed values {"type": value} ({"int": 5}, {"object": {"class": C, "key": K}}).

import Foundation
import OpenRealm

enum ValueCoding {
    static func encode(_ value: DynamicValue, _ property: DynamicProperty, _ schema: [String: DynamicClass], _ links: LinkCoding) throws -> JSONValue {
        if property.collection != .none {
            let element = DynamicProperty(name: property.name, type: property.type, optional: property.optional, target: property.target)
            switch value {
            case .list(let items): return .array(try items.map { try encode($0, element, schema, links) })
            case .dictionary(let entries): return .object(try entries.map { entry -> (key: String, value: JSONValue) in (entry.key, try encode(entry.value, element, schema, links)) })
            default: throw ToolError.failure("property '\(property.name)': a collection was expected")
            }
        }
        if case .null = value { return .null }
        switch property.type {
        case .mixed: return try encodeMixed(value, schema, links)
        case .object:
            switch value {
            case .link(let className, let key): return try links.reference(className, key)
            case .embedded(let className, let values):
                guard let cls = schema[className] else { throw ToolError.failure("no class '\(className)'") }
                return try encodeObject(values, cls, schema, links)
            default: throw ToolError.failure("property '\(property.name)': a link was expected")
            }
        default: return try scalar(value)
        }
    }

    static func encodeObject(_ values: [DynamicValue], _ cls: DynamicClass, _ schema: [String: DynamicClass], _ links: LinkCoding) throws -> JSONValue {
        .object(try zip(cls.properties, values).map { pair -> (key: String, value: JSONValue) in (pair.0.name, try encode(pair.1, pair.0, schema, links)) })
    }

    static func scalar(_ value: DynamicValue) throws -> JSONValue {
        switch value {
        case .null: return .null
        case .int(let v): return .number(String(v))
        case .bool(let v): return .bool(v)
        case .float(let v): return v.isFinite ? .number(v.description) : .string(v.isNaN ? "NaN" : v < 0 ? "-Infinity" : "Infinity")
        case .double(let v): return v.isFinite ? .number(v.description) : .string(v.isNaN ? "NaN" : v < 0 ? "-Infinity" : "Infinity")
        case .string(let v): return .string(v)
        case .binary(let v): return .string(Data(v).base64EncodedString())
        case .timestamp(let seconds, let nanoseconds): return .string(formatDate(seconds, nanoseconds))
        case .decimal(let v), .objectId(let v), .uuid(let v): return .string(v)
        default: throw ToolError.failure("not a scalar value")
        }
    }

    static func encodeMixed(_ value: DynamicValue, _ schema: [String: DynamicClass], _ links: LinkCoding) throws -> JSONValue {
        let tag: String
        switch value {
        case .null: return .null
        case .int: tag = "int"
        case .bool: tag = "bool"
        case .float: tag = "float"
        case .double: tag = "double"
        case .string: tag = "string"
        case .binary: tag = "data"
        case .timestamp: tag = "date"
        case .decimal: tag = "decimal128"
        case .objectId: tag = "objectId"
        case .uuid: tag = "uuid"
        case .link(let className, let key):
            let reference = try links.reference(className, key)
            let link = JSONValue.make([("class", JSONValue.string(className)), ("key", reference)])
            return JSONValue.make([("object", link)])
        case .embedded: throw ToolError.failure("a mixed value cannot hold an embedded object")
        case .list(let items):
            let list = JSONValue.array(try items.map { try encodeMixed($0, schema, links) })
            return JSONValue.make([("list", list)])
        case .dictionary(let entries):
            let dictionary = JSONValue.object(try entries.map { entry -> (key: String, value: JSONValue) in (entry.key, try encodeMixed(entry.value, schema, links)) })
            return JSONValue.make([("dictionary", dictionary)])
        }
        let inner = try scalar(value)
        return JSONValue.make([(tag, inner)])
    }

    // MARK: Decoding

    static func decode(_ json: JSONValue, _ property: DynamicProperty, _ schema: [String: DynamicClass], _ links: LinkCoding) throws -> DynamicValue {
        if property.collection != .none {
            let element = DynamicProperty(name: property.name, type: property.type, optional: property.optional, target: property.target)
            switch (property.collection, json) {
            case (.dictionary, .object(let entries)):
                return .dictionary(try entries.map { entry -> (key: String, value: DynamicValue) in (entry.key, try decode(entry.value, element, schema, links)) })
            case (.list, .array(let items)), (.set, .array(let items)):
                return .list(try items.map { try decode($0, element, schema, links) })
            default:
                throw ToolError.failure("'\(property.name)' (\(property.typeText)) needs \(property.collection == .dictionary ? "an object" : "an array"), not \(json.shown)")
            }
        }
        if case .null = json { return .null }
        switch property.type {
        case .mixed: return try decodeMixed(json, schema, links)
        case .object:
            guard let target = property.target, let cls = schema[target] else { throw ToolError.failure("no class for '\(property.name)'") }
            if cls.embedded {
                guard case .object = json else { throw ToolError.failure("'\(property.name)' needs an object, not \(json.shown)") }
                return .embedded(className: target, values: try decodeObject(json, cls, schema, links))
            }
            return .link(className: target, key: try links.resolve(target, json))
        default:
            return try decodeScalar(json, property.type, property.name)
        }
    }

    static func decodeObject(_ json: JSONValue, _ cls: DynamicClass, _ schema: [String: DynamicClass], _ links: LinkCoding) throws -> [DynamicValue] {
        guard case .object(let entries) = json else { throw ToolError.failure("an object of '\(cls.name)' needs a JSON object, not \(json.shown)") }
        // A scan, not a Set: classes have few properties, and imports decode millions of objects.
        if let unknown = entries.first(where: { entry in entry.key != "@key" && !cls.properties.contains { $0.name == entry.key } }) {
            throw ToolError.failure("no property '\(unknown.key)' in class '\(cls.name)'")
        }
        return try cls.properties.map { property -> DynamicValue in
            guard let given = json[property.name] else {
                throw ToolError.failure("property '\(property.name)' is missing")
            }
            do {
                return try decode(given, property, schema, links)
            } catch let error as ToolError where !error.description.hasPrefix("property '") {
                throw ToolError.failure("property '\(property.name)': \(error)")
            }
        }
    }

    static func decodeScalar(_ json: JSONValue, _ type: DynamicType, _ name: String) throws -> DynamicValue {
        func fail() -> ToolError { .failure("'\(name)' (\(type.rawValue)) cannot be \(json.shown)") }
        var text: String?
        var flag: Bool?
        switch json {
        case .string(let value): text = value
        case .number(let value): text = value
        case .bool(let value): flag = value
        default: break
        }
        let isNumber: Bool
        if case .number = json { isNumber = true } else { isNumber = false }
        switch type {
        case DynamicType.int:
            guard isNumber, let text, let v = Int64(text) else { throw fail() }
            return .int(v)
        case DynamicType.bool:
            guard let flag else { throw fail() }
            return .bool(flag)
        case DynamicType.float:
            guard let text, let v = Float(text) ?? Float(text.replacingOccurrences(of: "Infinity", with: "inf")) else { throw fail() }
            return .float(v)
        case DynamicType.double:
            guard let text, let v = Double(text) ?? Double(text.replacingOccurrences(of: "Infinity", with: "inf")) else { throw fail() }
            return .double(v)
        case DynamicType.string:
            guard !isNumber, let text else { throw fail() }
            return .string(text)
        case DynamicType.data:
            guard !isNumber, let text, let data = Data(base64Encoded: text) else { throw fail() }
            return .binary([UInt8](data))
        case DynamicType.date:
            guard !isNumber, let text, let (seconds, nanoseconds) = parseDate(text) else { throw fail() }
            return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
        case DynamicType.decimal128:
            guard let text else { throw fail() }
            return .decimal(text)
        case DynamicType.objectId:
            guard !isNumber, let text else { throw fail() }
            return .objectId(text)
        case DynamicType.uuid:
            guard !isNumber, let text else { throw fail() }
            return .uuid(text.lowercased())
        default: throw fail()
        }
    }

    static func decodeMixed(_ json: JSONValue, _ schema: [String: DynamicClass], _ links: LinkCoding) throws -> DynamicValue {
        if case .null = json { return .null }
        guard case .object(let entries) = json, entries.count == 1, let first = entries.first else {
            throw ToolError.failure("a mixed value is null or {\"type\": value}, not \(json.shown)")
        }
        let tag = first.key
        let inner = first.value
        switch tag {
        case "object":
            guard case .string(let className)? = inner["class"], let key = inner["key"] else {
                throw ToolError.failure("a mixed link is {\"object\": {\"class\": C, \"key\": K}}, not \(json.shown)")
            }
            return .link(className: className, key: try links.resolve(className, key))
        case "list":
            guard case .array(let items) = inner else { throw ToolError.failure("a mixed list needs an array") }
            return .list(try items.map { try decodeMixed($0, schema, links) })
        case "dictionary":
            guard case .object(let items) = inner else { throw ToolError.failure("a mixed dictionary needs an object") }
            return .dictionary(try items.map { entry -> (key: String, value: DynamicValue) in (entry.key, try decodeMixed(entry.value, schema, links)) })
        default:
            guard let type = DynamicType(rawValue: tag), type != .mixed, type != .object else {
                throw ToolError.failure("unknown mixed type '\(tag)'")
            }
            return try decodeScalar(inner, type, "mixed")
        }
    }

    // MARK: Dates

    /// "YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ" in UTC (days from the civil calendar, proleptic Gregorian).
    static func formatDate(_ seconds: Int64, _ nanoseconds: Int32) -> String {
        var s = seconds
        var n = Int64(nanoseconds)
        if n < 0 { s -= 1; n += 1_000_000_000 }
        var days = s / 86_400
        var rest = s % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let yearText = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
        return "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3600, 2)):\(pad(rest / 60 % 60, 2)):\(pad(rest % 60, 2)).\(pad(n, 9))Z"
    }

    static func parseDate(_ text: String) -> (Int64, Int32)? {
        var chars = Substring(text)
        var negativeYear = false
        if chars.first == "-" { negativeYear = true; chars = chars.dropFirst() }
        let parts = chars.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasSuffix("Z") else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let timeAndFraction = parts[1].dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard date.count == 3, let y = Int64(date[0]), let m = Int64(date[1]), let d = Int64(date[2]),
            (1...12).contains(m), (1...31).contains(d), (1...2).contains(timeAndFraction.count)
        else { return nil }
        let time = timeAndFraction[0].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, let hh = Int64(time[0]), let mm = Int64(time[1]), let ss = Int64(time[2]),
            (0..<24).contains(hh), (0..<60).contains(mm), (0..<61).contains(ss)
        else { return nil }
        var nanos: Int64 = 0
        if timeAndFraction.count == 2 {
            let fraction = timeAndFraction[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy(\.isASCII), let f = Int64(fraction) else { return nil }
            nanos = f * Int64(pow(10, Double(9 - fraction.count)))
        }
        let year = negativeYear ? -y : y
        // days_from_civil
        let yy = m <= 2 ? year - 1 : year
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        var seconds = days * 86_400 + hh * 3600 + mm * 60 + ss
        // The engine keeps nanoseconds of the sign of the seconds.
        if seconds < 0 && nanos > 0 { seconds += 1; nanos -= 1_000_000_000 }
        return (seconds, Int32(nanos))
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
