// RealmDescription.swift — descriptions of objects and collections in Realm's format: objects as
// `Dog {\n\tname = Rex;\n}`, collections as `List<Dog> <0x…> (\n\t[0] Dog {…}\n)`, values as
// Realm prints them (its NSNumber, NSDate and NSData forms), nesting cut at Realm's depth.

import CEngine
import Foundation

/// Realm's maximum nesting of a description: deeper objects and collections print as
/// `<Maximum depth exceeded>`.
let realmDescriptionMaxDepth = 5

/// An object or a collection, whose description depends on how deep it is nested (Realm's
/// `descriptionWithMaxDepth:`).
protocol RealmDepthDescribable {
    /// The description with `depth` levels left (0: `<Maximum depth exceeded>`).
    func realmDescription(depth: Int) -> String
}

/// `realmTypeName`, a managed collection's DynamicObjects named by the class of their table.
func realmTypeName<T: _CValueConvertible>(_ type: T.Type, dynamicClass: String?) -> String {
    if T._ceLinkTarget == DynamicObject.self, let dynamicClass { return dynamicClass }
    return realmTypeName(type)
}

/// Realm's text for a description cut at the maximum depth.
let maximumDepthExceeded = "<Maximum depth exceeded>"

/// Realm's name of an element type: the class name of objects, else the type's name as Realm's
/// `RLMTypeToString` has it (`int`, `string`, `object id`, `mixed`, ...).
func realmTypeName<T: _CValueConvertible>(_: T.Type) -> String {
    if let target = T._ceLinkTarget { return ObjectSchemaInfo.className(of: target) }
    switch T._ceType {
    case CE_TYPE_INT: return "int"
    case CE_TYPE_BOOL: return "bool"
    case CE_TYPE_FLOAT: return "float"
    case CE_TYPE_DOUBLE: return "double"
    case CE_TYPE_STRING: return "string"
    case CE_TYPE_BINARY: return "data"
    case CE_TYPE_TIMESTAMP: return "date"
    case CE_TYPE_DECIMAL128: return "decimal128"
    case CE_TYPE_OBJECT_ID: return "object id"
    case CE_TYPE_UUID: return "uuid"
    case CE_TYPE_MIXED: return "mixed"
    default: return String(cString: ce_type_name(T._ceType))
    }
}

/// `%p` of an instance: `0x` and the address in lowercase hex.
func realmAddress(_ object: AnyObject?) -> String {
    guard let object else { return "0x0" }
    return "0x" + String(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()), radix: 16)
}

/// A value as Realm describes it inside a collection or an object: numbers as NSNumber prints
/// them (`1`, `0` for false, `12.3`), dates as NSDate (`1970-01-01 00:00:01 +0000`), data as
/// NSData (`<61626364>`), enums by raw value, AnyRealmValue by what it holds; objects and
/// collections one level deeper. nil is `nilText` (`(null)` in objects, `<null>` in
/// collections, as Realm prints nil and NSNull).
func realmValueDescription(_ value: Any, depth: Int, nilText: String) -> String {
    guard let value = unwrapOptional(value) else { return nilText }
    switch value {
    case let nested as RealmDepthDescribable: return nested.realmDescription(depth: depth - 1)
    case let bool as Bool: return bool ? "1" : "0"
    case let double as Double: return numberText(double)
    case let float as Float: return float.isFinite && float == float.rounded() && abs(float) < 1e7 ? String(Int64(float)) : "\(float)"
    case let date as Date: return date.description
    case let data as Data: return "<" + dataHex(data) + ">"
    case let mixed as AnyRealmValue: return mixedDescription(mixed, depth: depth, nilText: nilText)
    case let enumValue as any RawRepresentable: return realmValueDescription(enumValue.rawValue, depth: depth, nilText: nilText)
    default: return "\(value)"
    }
}

/// A double as NSNumber prints it: integral values without a fraction.
private func numberText(_ double: Double) -> String {
    if double.isFinite, double == double.rounded(), abs(double) < 1e15 { return String(Int64(double)) }
    return "\(double)"
}

/// NSData's hex: groups of four bytes separated by spaces.
func dataHex(_ data: Data) -> String {
    var text = ""
    for (index, byte) in data.enumerated() {
        if index > 0 && index % 4 == 0 { text += " " }
        text += String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
    }
    return text
}

private func mixedDescription(_ value: AnyRealmValue, depth: Int, nilText: String) -> String {
    switch value {
    case .none: return nilText
    case .int(let v): return String(v)
    case .bool(let v): return v ? "1" : "0"
    case .float(let v): return realmValueDescription(v, depth: depth, nilText: nilText)
    case .double(let v): return numberText(v)
    case .string(let v): return v
    case .data(let v): return "<" + dataHex(v) + ">"
    case .date(let v): return v.description
    case .object(let v): return v.realmDescription(depth: depth - 1)
    case .objectId(let v): return v.stringValue
    case .decimal128(let v): return v.stringValue
    case .uuid(let v): return v.uuidString
    case .list(let v): return v.realmDescription(depth: depth - 1)
    case .dictionary(let v): return v.realmDescription(depth: depth - 1)
    }
}

/// A collection's description in Realm's form: `header <0x…> (`, then `\t[i] element` lines
/// separated by commas (each element's lines indented once more), at most 100 of them, then `)`.
func realmCollectionDescription<S: Sequence>(_ header: String, address: String, _ elements: S, count: Int,
                                             depth: Int) -> String {
    if depth == 0 { return maximumDepthExceeded }
    let limit = 100
    var entries: [String] = []
    for (index, element) in elements.enumerated() {
        if index == limit { break }
        let text = realmValueDescription(element, depth: depth, nilText: "<null>")
        entries.append("\t[\(index)] " + text.replacingOccurrences(of: "\n", with: "\n\t"))
    }
    var description = "\(header) <\(address)> (\n" + entries.joined(separator: ",\n")
    if count > limit { description += "\n\t... \(count - limit) objects skipped." }
    return description + "\n)"
}

/// A map's description in Realm's form: `Map<string, int> <0x…> (`, then `[key]: value` lines
/// separated by commas, then `)`.
func realmMapDescription<S: Sequence, K, V>(_ header: String, address: String, _ entries: S, count: Int,
                                            depth: Int) -> String where S.Element == (key: K, value: V) {
    if depth == 0 { return maximumDepthExceeded }
    let limit = 100
    var lines: [String] = []
    for (index, entry) in entries.enumerated() {
        if index == limit { break }
        let text = realmValueDescription(entry.value, depth: depth, nilText: "<null>")
        lines.append("[\(entry.key)]: " + text.replacingOccurrences(of: "\n", with: "\n\t"))
    }
    var description = "\(header) <\(address)> (\n" + lines.joined(separator: ",\n")
    if count > limit { description += "\n\t... \(count - limit) objects skipped." }
    return description + "\n)"
}

/// An object's description in Realm's form: `Class {`, a `\tname = value;` line per property
/// (nested lines indented once more; data as `<hex — n total bytes>`, its first 24 bytes), `}`.
func realmObjectDescription(className: String, _ properties: [(name: String, value: Any)], depth: Int) -> String {
    if depth == 0 { return maximumDepthExceeded }
    var description = "\(className) {\n"
    for (name, value) in properties {
        let text: String
        if let data = unwrapOptional(value) as? Data {
            text = "<\(dataHex(data.prefix(24))) — \(data.count) total bytes>"
        } else {
            text = realmValueDescription(value, depth: depth, nilText: "(null)")
        }
        description += "\t\(name) = \(text.replacingOccurrences(of: "\n", with: "\n\t"));\n"
    }
    return description + "}"
}

// MARK: - Conformances

extension ObjectBase: RealmDepthDescribable {}

extension List: RealmDepthDescribable {
    func realmDescription(depth: Int) -> String {
        realmCollectionDescription("List<\(realmTypeName(Element.self, dynamicClass: managed?.linkTargetName ?? _dynamicClassName))>", address: realmAddress(self), self,
                                   count: count, depth: depth)
    }
}

extension MutableSet: RealmDepthDescribable {
    func realmDescription(depth: Int) -> String {
        realmCollectionDescription("MutableSet<\(realmTypeName(Element.self, dynamicClass: managed?.linkTargetName ?? _dynamicClassName))>", address: realmAddress(self), self,
                                   count: count, depth: depth)
    }
}

extension Map: RealmDepthDescribable {
    func realmDescription(depth: Int) -> String {
        realmMapDescription("Map<string, \(realmTypeName(Value.self, dynamicClass: managed?.linkTargetName ?? _dynamicClassName))>", address: realmAddress(self),
                            asKeyValueSequence(), count: count, depth: depth)
    }
}

extension Results: RealmDepthDescribable {
    func realmDescription(depth: Int) -> String {
        let dynamicClass: String? = if case .query(let query) = source { query.typeName } else { nil }
        return realmCollectionDescription("Results<\(realmTypeName(Element.self, dynamicClass: dynamicClass))>", address: realmAddress(core), self,
                                   count: count, depth: depth)
    }
}

extension LinkingObjects: RealmDepthDescribable {
    func realmDescription(depth: Int) -> String {
        realmCollectionDescription("LinkingObjects<\(ObjectSchemaInfo.className(of: Element.self))>",
                                   address: realmAddress(owner), self, count: count, depth: depth)
    }
}
