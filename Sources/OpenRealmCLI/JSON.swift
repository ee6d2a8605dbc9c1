// JSON.swift — the JSON of export, import and query (JSONValue): a parser that keeps numbers as their text
// (64-bit integers and doubles stay exact) and a writer.

import Foundation

/// A parsed JSON value; objects keep their keys in order.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    /// An object of `pairs`, in order.
    static func make(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(pairs.map { (key: $0.0, value: $0.1) }) }

    subscript(key: String) -> JSONValue? {
        if case .object(let entries) = self { return entries.first { $0.key == key }?.value }
        return nil
    }

    /// A short form for messages.
    var shown: String {
        var text = JSONValue.write(self)
        if text.count > 60 { text = String(text.prefix(57)) + "..." }
        return text
    }

    /// The text of a value, compact.
    static func write(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the UTF-8 text of a value, compact, to `out` (exports write millions of values:
    /// bytes, not String appends).
    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(var n): n.withUTF8 { out.append(contentsOf: $0) }
        case .string(let s): quote(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let entries):
            out.append(UInt8(ascii: "{"))
            for (index, entry) in entries.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                quote(entry.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(entry.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string: `"` and `\` escaped, newline, return and tab as `\n`,
    /// `\r`, `\t`, other control characters as `\u00XX`, everything else as it is (UTF-8).
    static func quote(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                start = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case 0x0a: out.append(UInt8(ascii: "n"))
                case 0x0d: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    let digits = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), digits[Int(byte >> 4)], digits[Int(byte & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Parses a whole JSON text; errors name the byte offset.
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> JSONValue in
            var reader = JSONReader(buffer)
            let value = try reader.value()
            try reader.end()
            return value
        }
    }
}

/// A JSON text read front to back: whole values as JSONValue trees, or, for the millions of
/// records of an import, token by token (strings as their bytes in place, numbers as their
/// text) with no tree and no copy. Errors name the byte offset.
struct JSONReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    /// A reader of `bytes`. A number at the very end is read by `strtod`, which needs a byte
    /// after it that is no part of a number: callers pass text followed by a NUL (or any
    /// whitespace or punctuation) in memory.
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func error(_ text: String) -> ToolError { .failure("invalid JSON at byte \(index): \(text)") }

    @inline(__always) mutating func skipSpace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09 else { return }
            index += 1
        }
    }

    /// The next byte after white space, not consumed (nil at the end).
    @inline(__always) mutating func peek() -> UInt8? {
        skipSpace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Consumes `byte` (after white space), or fails naming `what` was expected.
    @inline(__always) mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end (\(what) expected)") }
        guard bytes[index] == byte else { throw error("\(what) expected") }
        index += 1
    }

    /// After a member or element: true for ',' (another follows), false for `close`.
    @inline(__always) mutating func next(_ close: UInt8) throws -> Bool {
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end") }
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == close { return false }
        index -= 1
        throw error(close == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
    }

    /// Consumes `open` and says whether the object or array is empty (its `close` consumed too).
    @inline(__always) mutating func open(_ open: UInt8, _ close: UInt8, _ what: String) throws -> Bool {
        try expect(open, what)
        skipSpace()
        if index < bytes.count, bytes[index] == close { index += 1; return true }
        return false
    }

    /// Nothing but white space is left.
    mutating func end() throws {
        skipSpace()
        guard index == bytes.count else { throw error("unexpected text after the JSON value") }
    }

    /// A key and its ':'.
    mutating func key() throws -> String {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
        let key = try string()
        try expect(UInt8(ascii: ":"), "':'")
        return key
    }

    /// A string's bytes in place when it has no escape (index past its closing quote), else nil
    /// with the index unmoved (read it with `string()`). The index is at its opening quote.
    @inline(__always) mutating func plainString() -> UnsafeRawBufferPointer? {
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                let start = index + 1
                index = end + 1
                return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            }
            if byte == UInt8(ascii: "\\") { return nil }
            end += 1
        }
        return nil
    }

    /// A number's text (index past it): JSON's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?;
    /// `integer` is false when it has a fraction or an exponent.
    @inline(__always) mutating func number() throws -> (text: UnsafeRawBufferPointer, integer: Bool) {
        let start = index
        var at = index
        @inline(__always) func digit(_ at: Int) -> Bool { at < bytes.count && bytes[at] &- UInt8(ascii: "0") < 10 }
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        guard digit(at) else { throw error("unexpected character") }
        if bytes[at] == UInt8(ascii: "0") { at += 1 } else { while digit(at) { at += 1 } }
        var integer = true
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            integer = false
            guard digit(at) else { index = at; throw error("a digit expected after '.'") }
            while digit(at) { at += 1 }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            integer = false
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digit(at) else { index = at; throw error("a digit expected in the exponent") }
            while digit(at) { at += 1 }
        }
        index = at
        return (UnsafeRawBufferPointer(rebasing: bytes[start..<at]), integer)
    }

    /// The literal `word` (true, false, null) at the index.
    @inline(__always) mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else {
            throw error("unexpected character")
        }
        index += count
    }

    /// A whole value as a tree.
    mutating func value(depth: Int = 0) throws -> JSONValue {
        guard depth < 512 else { throw error("nested too deeply") }
        skipSpace()
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            var entries: [(key: String, value: JSONValue)] = []
            if try open(UInt8(ascii: "{"), UInt8(ascii: "}"), "'{'") { return .object(entries) }
            repeat {
                let key = try key()
                entries.append((key, try value(depth: depth + 1)))
            } while try next(UInt8(ascii: "}"))
            return .object(entries)
        case UInt8(ascii: "["):
            var items: [JSONValue] = []
            if try open(UInt8(ascii: "["), UInt8(ascii: "]"), "'['") { return .array(items) }
            repeat {
                items.append(try value(depth: depth + 1))
            } while try next(UInt8(ascii: "]"))
            return .array(items)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default:
            return .number(String(decoding: try number().text, as: UTF8.self))
        }
    }

    /// A string (the index at its opening quote), escapes decoded, checked to be UTF-8.
    mutating func string() throws -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte != UInt8(ascii: "\\") { out.append(byte); continue }
            guard index < bytes.count else { throw error("unterminated string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("a lone surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("an invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw error("an invalid escape")
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw error("a string that is not UTF-8") }
        return text
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count,
            let code = UInt32(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<index + 4]), as: UTF8.self), radix: 16)
        else {
            throw error("an invalid \\u escape")
        }
        index += 4
        return code
    }
}

/// How links are written and read: references to top-level objects.
struct LinkCoding {
    /// The JSON reference of an object (its primary key or "@key").
    var reference: (String, Int64) throws -> JSONValue
    /// The key of the object a reference names.
    var resolve: (String, JSONValue) throws -> Int64
}
