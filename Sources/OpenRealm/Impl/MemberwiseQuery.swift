// MemberwiseQuery.swift — comparing a property with a value compared member by member, as Realm
// Swift compares a `CustomPersistable` whose `PersistedType` is an `EmbeddedObject`:
// `object == %@` holds when every property of the stored embedded object equals the value's
// (`filter("object == %@", wrapper)`, `where { $0.object == wrapper }`), `!=` when one differs;
// through a collection (`ANY list == %@`, `map.@allValues == %@`, `list.object == %@`) one
// element must match all of them (a SUBQUERY), not each property some element.

import CEngine
import Foundation

/// The unmanaged embedded object a query value is compared with member by member: the persisted
/// value of a `CustomPersistable` mapped to an embedded object (nil for any other value).
func memberwiseObject(_ value: Any) -> ObjectBase? {
    guard let custom = unwrapOptional(value) as? any _CustomPersistable,
        let object = unwrapOptional(custom._rlmPersistableValue) as? ObjectBase, object is EmbeddedObject
    else { return nil }
    return object
}

/// Rewrites the comparison that ends `output` (an engine predicate being written: `path ==` or
/// `path !=`, after an optional ANY, SOME, ALL or NONE) into the member-by-member comparison with
/// `object`, its member values appended to `values`, each placeholder `$<offset + index>`.
/// `schema` is the class the predicate's key paths start at; `predicate` names the predicate in
/// messages.
func memberwiseRewrite(_ output: inout [UInt8], with object: ObjectBase, values: inout [Any], offset: Int,
                       schema: ObjectSchemaInfo, predicate: String) {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    func isPathByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: ".")
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
    func unsupported() -> Never {
        throwRealmException("Unable to parse the format string \"\(predicate)\": a \(type(of: object)) value is compared "
            + "member by member, with '==' or '!=' after a key path (like \"object == %@\").")
    }
    var end = output.count
    while end > 0 && isSpace(output[end - 1]) { end -= 1 }
    // The operator: == = != <>.
    var negated = false
    if end >= 2, output[end - 2] == UInt8(ascii: "!") || output[end - 2] == UInt8(ascii: "<"),
        output[end - 1] == UInt8(ascii: output[end - 2] == UInt8(ascii: "!") ? "=" : ">")
    {
        negated = true
        end -= 2
    } else if end >= 2, output[end - 2] == UInt8(ascii: "="), output[end - 1] == UInt8(ascii: "=") {
        end -= 2
    } else if end >= 1, output[end - 1] == UInt8(ascii: "="), end < 2 || !"<>=!".utf8.contains(output[end - 2]) {
        end -= 1
    } else {
        unsupported()
    }
    while end > 0 && isSpace(output[end - 1]) { end -= 1 }
    var start = end
    while start > 0 && isPathByte(output[start - 1]) { start -= 1 }
    guard start < end, output[start] != UInt8(ascii: "."), !(output[start] >= UInt8(ascii: "0") && output[start] <= UInt8(ascii: "9"))
    else { unsupported() }
    let path = String(decoding: output[start..<end], as: UTF8.self)
    // A quantifier before the key path.
    var quantifier = "ANY"
    var cut = start
    var before = start
    while before > 0 && isSpace(output[before - 1]) { before -= 1 }
    var wordStart = before
    while wordStart > 0 && isPathByte(output[wordStart - 1]) { wordStart -= 1 }
    let word = String(decoding: output[wordStart..<before], as: UTF8.self).uppercased()
    if ["ANY", "SOME", "ALL", "NONE"].contains(word) {
        quantifier = word == "SOME" ? "ANY" : word
        cut = wordStart
    }
    var expansion = MemberwiseExpansion(values: values, offset: offset)
    let text = expansion.compare(path.split(separator: ".").map(String.init), schema, object, negated: negated,
                                 quantifier: quantifier)
    output.removeSubrange(cut...)
    output += Array(text.utf8)
    values = expansion.values
}

/// The text of a member-by-member comparison and the values its placeholders name.
private struct MemberwiseExpansion {
    var values: [Any]
    let offset: Int
    private var variables = 0

    init(values: [Any], offset: Int) {
        self.values = values
        self.offset = offset
    }

    /// `path` compared with `object`: through its first collection of objects as a SUBQUERY
    /// (nested for the next one), then member by member. `quantifier` applies to the first
    /// collection (ANY: one element matches, ALL: all do, NONE: none does).
    mutating func compare(_ path: [String], _ schema: ObjectSchemaInfo, _ object: ObjectBase, negated: Bool,
                          quantifier: String) -> String {
        var info: ObjectSchemaInfo? = schema
        for index in path.indices {
            guard let current = info else { break }
            if path[index].hasPrefix("$") { continue }  // a SUBQUERY variable: an element of `schema`
            guard let property = current.indexByName[path[index]].map({ current.properties[$0] }) else { break }
            info = property.shape.linkTarget.map(ObjectSchemaInfo.of)
            guard property.shape.collection != CE_COLLECTION_NONE || property.shape.isLinkingObjects else { continue }
            variables += 1
            let variable = "$memberwise\(variables)"
            var rest = Array(path[(index + 1)...])
            if rest.first == "@allValues" { rest.removeFirst() }
            let matching = quantifier == "ALL" ? !negated : negated
            let inner = compare([variable] + rest, info ?? current, object, negated: matching, quantifier: "ANY")
            let count = "SUBQUERY(\(path[...index].joined(separator: ".")), \(variable), \(inner)).@count"
            return quantifier == "ANY" ? "\(count) > 0" : "\(count) == 0"
        }
        let members = conjunction(path.joined(separator: "."), object)
        return negated ? "NOT \(members)" : members
    }

    /// Each stored property of the embedded `object` at `path` equal to the object's value
    /// (nested embedded objects member by member), joined with AND.
    private mutating func conjunction(_ path: String, _ object: ObjectBase) -> String {
        let info = ObjectSchemaInfo.of(type(of: object))
        var terms: [String] = []
        for property in info.properties where property.isStored {
            let shape = property.shape
            if shape.collection != CE_COLLECTION_NONE {
                throwRealmException("Unsupported property '\(info.className).\(property.name)' for memberwise equality query: "
                    + "equality on collections is not implemented.")
            }
            let value = object[property.name]
            if let target = shape.linkTarget {
                guard target is EmbeddedObject.Type else {
                    throwRealmException("Unsupported property '\(info.className).\(property.name)' for memberwise equality query: "
                        + "object links are not implemented.")
                }
                if let nested = value.flatMap({ unwrapOptional($0) }) as? ObjectBase {
                    terms.append(conjunction("\(path).\(property.name)", nested))
                } else {
                    terms.append("\(path).\(property.name) == nil")
                }
                continue
            }
            terms.append("\(path).\(property.name) == $\(offset + values.count)")
            values.append(value ?? NSNull())
        }
        return terms.isEmpty ? "TRUEPREDICATE" : "(\(terms.joined(separator: " AND ")))"
    }
}
