// MemberwiseQuery.swift — comparing a property with a value compared member by member, as Realm
// Swift compares a `CustomPersistable` whose `PersistedType` is an `EmbeddedObject`:
// `object == %@` holds when every property of the stored embedded object equals the value's
// (`filter("object == %@", wrapper)`, `where { $0.object == wrapper }`), `!=` when one differs;
// through a collection (`ANY list == %@`, `map.@allValues == %@`, `list.object == %@`) one
// element must match all of them (a SUBQUERY), not each property some element; `object IN %@`
// (`Query.in`) with several is `==` with each, ORed; `%@ == object` is `object == %@`, and
// `%@ IN list` is `ANY list == %@` (RLMQueryUtil.mm).

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

/// The values of `value` when it is a non-empty sequence of values compared member by member
/// (the argument of `path IN %@`, `Query.in(_:)`), nil otherwise.
func memberwiseObjects(_ value: Any) -> [ObjectBase]? {
    guard let unwrapped = unwrapOptional(value), !(unwrapped is String), !(unwrapped is Data),
        memberwiseObject(unwrapped) == nil, let sequence = unwrapped as? any Sequence
    else { return nil }
    var objects: [ObjectBase] = []
    for item in sequenceElements(sequence) {
        guard let object = memberwiseObject(item) else { return nil }
        objects.append(object)
    }
    return objects.isEmpty ? nil : objects
}

/// The comparison operator a member-by-member comparison takes.
private enum MemberwiseOperator {
    case equal, notEqual, isIn
}

/// The comparison that ends an engine predicate being written: `[quantifier] path op`.
private struct MemberwiseTail {
    /// Where the comparison (its quantifier, or its key path) starts in the output.
    var cut: Int
    var quantifier: String
    var path: String
    var op: MemberwiseOperator
}

private func isPredicateSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

private func isKeyPathByte(_ byte: UInt8) -> Bool {
    byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: ".")
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
}

/// Reads `[ANY|SOME|ALL|NONE] path op` at the end of `output` (op: `==`, `=`, `!=`, `<>` or
/// `IN`); nil when it does not end with an operator after a key path.
private func memberwiseTail(_ output: [UInt8]) -> MemberwiseTail? {
    var end = output.count
    while end > 0 && isPredicateSpace(output[end - 1]) { end -= 1 }
    var op: MemberwiseOperator
    if end >= 2, output[end - 2] == UInt8(ascii: "!") || output[end - 2] == UInt8(ascii: "<"),
        output[end - 1] == UInt8(ascii: output[end - 2] == UInt8(ascii: "!") ? "=" : ">")
    {
        op = .notEqual
        end -= 2
    } else if end >= 2, output[end - 2] == UInt8(ascii: "="), output[end - 1] == UInt8(ascii: "=") {
        op = .equal
        end -= 2
    } else if end >= 1, output[end - 1] == UInt8(ascii: "="), end < 2 || !"<>=!".utf8.contains(output[end - 2]) {
        op = .equal
        end -= 1
    } else if end >= 3, output[end - 2] | 0x20 == UInt8(ascii: "i"), output[end - 1] | 0x20 == UInt8(ascii: "n"),
        isPredicateSpace(output[end - 3])
    {
        op = .isIn
        end -= 2
    } else {
        return nil
    }
    while end > 0 && isPredicateSpace(output[end - 1]) { end -= 1 }
    var start = end
    while start > 0 && isKeyPathByte(output[start - 1]) { start -= 1 }
    guard start < end, output[start] != UInt8(ascii: "."), !(output[start] >= UInt8(ascii: "0") && output[start] <= UInt8(ascii: "9"))
    else { return nil }
    let path = String(decoding: output[start..<end], as: UTF8.self)
    // A quantifier before the key path.
    var quantifier = "ANY"
    var cut = start
    var before = start
    while before > 0 && isPredicateSpace(output[before - 1]) { before -= 1 }
    var wordStart = before
    while wordStart > 0 && isKeyPathByte(output[wordStart - 1]) { wordStart -= 1 }
    let word = String(decoding: output[wordStart..<before], as: UTF8.self).uppercased()
    if ["ANY", "SOME", "ALL", "NONE"].contains(word) {
        quantifier = word == "SOME" ? "ANY" : word
        cut = wordStart
    }
    return MemberwiseTail(cut: cut, quantifier: quantifier, path: path, op: op)
}

/// Whether `output` ends with a comparison operator after a key path (`path ==`, `path IN`).
func memberwiseEndsWithComparison(_ output: [UInt8]) -> Bool { memberwiseTail(output) != nil }

/// Stops with the message for a value compared member by member in a comparison Realm does
/// not compare that way.
private func memberwiseUnsupported(_ object: ObjectBase, _ predicate: String) -> Never {
    throwRealmException("Unable to parse the format string \"\(predicate)\": a \(type(of: object)) value is compared "
        + "member by member, with '==', '!=' or 'IN' after a key path (like \"object == %@\").")
}

/// Rewrites the comparison that ends `output` (an engine predicate being written: `path ==` or
/// `path !=`, after an optional ANY, SOME, ALL or NONE) into the member-by-member comparison with
/// `object`, its member values appended to `values`, each placeholder `$<offset + index>`.
/// `schema` is the class the predicate's key paths start at; `predicate` names the predicate in
/// messages.
func memberwiseRewrite(_ output: inout [UInt8], with object: ObjectBase, values: inout [Any], offset: Int,
                       schema: ObjectSchemaInfo, predicate: String) {
    guard let tail = memberwiseTail(output), tail.op != .isIn else { memberwiseUnsupported(object, predicate) }
    var expansion = MemberwiseExpansion(values: values, offset: offset)
    let text = expansion.compare(tail.path.split(separator: ".").map(String.init), schema, object,
                                 negated: tail.op == .notEqual, quantifier: tail.quantifier)
    output.removeSubrange(tail.cut...)
    output += Array(text.utf8)
    values = expansion.values
}

/// Rewrites `path IN` (after an optional ANY, SOME or NONE) that ends `output` into the
/// member-by-member comparisons with each of `objects`, joined with OR: Realm Swift turns
/// `key.path IN collection` into `==` with each item, ORed together (RLMQueryUtil.mm,
/// QueryBuilder::apply_value_expression and process_or_group), and compares each item member by
/// member (add_link_constraint). NONE is NOT ANY, as NSPredicate reads it; ALL is refused.
func memberwiseInRewrite(_ output: inout [UInt8], with objects: [ObjectBase], values: inout [Any], offset: Int,
                         schema: ObjectSchemaInfo, predicate: String) {
    guard let tail = memberwiseTail(output), tail.op == .isIn, tail.quantifier != "ALL" else {
        memberwiseUnsupported(objects[0], predicate)
    }
    var expansion = MemberwiseExpansion(values: values, offset: offset)
    let path = tail.path.split(separator: ".").map(String.init)
    let terms = objects.map { expansion.compare(path, schema, $0, negated: false, quantifier: "ANY") }
    let text = "(\(terms.joined(separator: " OR ")))"
    output.removeSubrange(tail.cut...)
    output += Array((tail.quantifier == "NONE" ? "NOT \(text)" : text).utf8)
    values = expansion.values
}

/// The comparison a value compared member by member starts (`%@ == path`, `%@ != path`,
/// `%@ IN path`), read from `bytes` at `start` (after the value): its operator (`==`, `!=` or
/// `IN`), its key path as written and where the key path ends; nil when no such comparison
/// follows. Realm Swift puts the value on the right (RLMQueryUtil.mm's
/// invert_comparison_operator) and reads `value IN collection` as `ANY collection == value`.
func memberwiseReversed(_ bytes: [UInt8], from start: Int) -> (op: String, path: String, end: Int)? {
    var at = start
    while at < bytes.count && isPredicateSpace(bytes[at]) { at += 1 }
    var op: String
    func byte(_ offset: Int) -> UInt8? { at + offset < bytes.count ? bytes[at + offset] : nil }
    if byte(0) == UInt8(ascii: "="), byte(1) == UInt8(ascii: "=") {
        op = "=="
        at += 2
    } else if byte(0) == UInt8(ascii: "!"), byte(1) == UInt8(ascii: "=") {
        op = "!="
        at += 2
    } else if byte(0) == UInt8(ascii: "<"), byte(1) == UInt8(ascii: ">") {
        op = "!="
        at += 2
    } else if byte(0) == UInt8(ascii: "="), byte(1) != UInt8(ascii: "<"), byte(1) != UInt8(ascii: ">") {
        op = "=="
        at += 1
    } else if let first = byte(0), let second = byte(1), first | 0x20 == UInt8(ascii: "i"), second | 0x20 == UInt8(ascii: "n"),
        let after = byte(2), isPredicateSpace(after)
    {
        op = "IN"
        at += 2
    } else {
        return nil
    }
    while at < bytes.count && isPredicateSpace(bytes[at]) { at += 1 }
    let pathStart = at
    while at < bytes.count && isKeyPathByte(bytes[at]) { at += 1 }
    guard at > pathStart, bytes[pathStart] != UInt8(ascii: "."),
        !(bytes[pathStart] >= UInt8(ascii: "0") && bytes[pathStart] <= UInt8(ascii: "9"))
    else { return nil }
    let path = String(decoding: bytes[pathStart..<at], as: UTF8.self)
    return (op, path, at)
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

    /// Each stored property of the embedded `object` at `path` equal to the object's value,
    /// joined with AND; a collection or a link among them stops with Realm's message.
    private mutating func conjunction(_ path: String, _ object: ObjectBase) -> String {
        let info = ObjectSchemaInfo.of(type(of: object))
        var terms: [String] = []
        for property in info.properties where property.isStored {
            let shape = property.shape
            if shape.collection != CE_COLLECTION_NONE {
                throwRealmException("Unsupported property '\(info.className).\(property.name)' for memberwise equality query: "
                    + "equality on collections is not implemented.")
            }
            // Realm Swift refuses every link here, to an embedded object too
            // (RLMQueryUtil.mm, add_memberwise_equality_constraint: propertyTypeIsLink).
            if shape.linkTarget != nil {
                throwRealmException("Unsupported property '\(info.className).\(property.name)' for memberwise equality query: "
                    + "object links are not implemented.")
            }
            let value = object[property.name]
            terms.append("\(path).\(property.name) == $\(offset + values.count)")
            values.append(value ?? NSNull())
        }
        return terms.isEmpty ? "TRUEPREDICATE" : "(\(terms.joined(separator: " AND ")))"
    }
}
