// Rows.swift — the objects of classes whose properties are all scalars, straight between the
// file and JSON bytes: the export writes them from blocks of values read leaf by leaf, the
// import reads each record token by token into a row of values, with no JSON tree and no
// DynamicValue for ints, doubles, floats, bools, strings and nulls. Byte for byte what
// ValueCoding writes and reads for those values; every other value goes through ValueCoding.

import Foundation
import OpenRealm

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum Rows {
    /// Objects read per call (a few leaves).
    static let blockSize = 1024

    /// Writes the objects of `cls` (every property a scalar, see `Records.scalarsOnly`) in key
    /// order as JSON objects separated by ",\n"; `progress` gets the count written so far.
    static func export(_ txn: DynamicTransaction, _ cls: DynamicClass, to out: Output, progress: (Int) -> Void) throws {
        // The `"name":` of each property, one after another: keyOffsets[c]..<keyOffsets[c + 1].
        let quoted = Records.quotedKeys(cls)
        let keyBytes = quoted.flatMap { $0 }
        let keyOffsets = quoted.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        let columns = quoted.count
        let block = DynamicRowBlock(capacity: blockSize, columns: columns)
        let ordinals = cls.primaryKey == nil
        var scratch: [UInt8] = []
        var first = 0
        try keyBytes.withUnsafeBytes { (keys: UnsafeRawBufferPointer) throws -> Void in
            while true {
                let read = try txn.readRows(of: cls.name, from: first, into: block)
                if read == 0 { break }
                for row in 0..<read {
                    if first + row > 0 { try out.append(static: ",\n") }
                    try out.append(byte: UInt8(ascii: "{"))
                    if ordinals {
                        try out.append(static: "\"@key\":")
                        try out.appendInt(Int64(first + row))
                        if columns > 0 { try out.append(byte: UInt8(ascii: ",")) }
                    }
                    for column in 0..<columns {
                        if column > 0 { try out.append(byte: UInt8(ascii: ",")) }
                        try out.append(UnsafeRawBufferPointer(rebasing: keys[keyOffsets[column]..<keyOffsets[column + 1]]))
                        try write(block, row, column, to: out, &scratch)
                    }
                    try out.append(byte: UInt8(ascii: "}"))
                }
                first += read
                progress(first)
            }
        }
    }

    private static func write(_ block: DynamicRowBlock, _ row: Int, _ column: Int, to out: Output, _ scratch: inout [UInt8]) throws {
        switch block.type(row, column) {
        case nil:
            try out.append(static: "null")
            return
        case .int?:
            try out.appendInt(block.int(row, column))
            return
        case .bool?:
            try out.append(static: block.bool(row, column) ? "true" : "false")
            return
        case .double?:
            let value = block.double(row, column)
            if value.isFinite { return try out.append(value.description) }
        case .float?:
            let value = block.float(row, column)
            if value.isFinite { return try out.append(value.description) }
        case .string?:
            let bytes = block.bytes(row, column)
            if !bytes.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
                try out.append(byte: UInt8(ascii: "\""))
                try out.append(bytes)
                return try out.append(byte: UInt8(ascii: "\""))
            }
        default:
            break
        }
        // Escapes, non-finite numbers and the other types: as ValueCoding writes them.
        scratch.removeAll(keepingCapacity: true)
        JSONValue.write(try ValueCoding.scalar(try block.value(row, column)), into: &scratch)
        try out.append(scratch)
    }

    /// Reads records of one class whose properties are all scalars and creates or updates
    /// their objects, one record at a time.
    final class Importer {
        let cls: DynamicClass
        /// The properties' names (UTF-8), `names[i]` of `nameCounts[i]` bytes.
        private let names: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>>
        private let nameCounts: UnsafeMutablePointer<Int>
        private let count: Int
        private let row: DynamicRow
        private let txn: DynamicTransaction
        private let schema: [String: DynamicClass]
        private let links: LinkCoding
        private let primaryKey: Int?
        /// Which properties the record being read gave.
        private let seen: UnsafeMutablePointer<Bool>
        /// Where the last record's primary key value starts (for naming the record in errors).
        @exclusivity(unchecked) private(set) var primaryKeyAt: Int?
        /// Where the last record's "@key" value starts, once read.
        @exclusivity(unchecked) private(set) var referenceAt: Int?
        private static let atKey = -2

        init(_ cls: DynamicClass, _ txn: DynamicTransaction, _ schema: [String: DynamicClass], _ links: LinkCoding) throws {
            self.cls = cls
            count = cls.properties.count
            names = .allocate(capacity: Swift.max(count, 1))
            nameCounts = .allocate(capacity: Swift.max(count, 1))
            for (index, property) in cls.properties.enumerated() {
                let utf8 = Array(property.name.utf8)
                names[index] = .allocate(capacity: Swift.max(utf8.count, 1))
                names[index].initialize(from: utf8, count: utf8.count)
                nameCounts[index] = utf8.count
            }
            seen = .allocate(capacity: Swift.max(count, 1))
            seen.initialize(repeating: false, count: Swift.max(count, 1))
            row = try txn.row(for: cls.name)
            self.txn = txn
            self.schema = schema
            self.links = links
            primaryKey = cls.properties.firstIndex { $0.primaryKey }
        }

        deinit {
            for index in 0..<count { names[index].deallocate() }
            names.deallocate()
            nameCounts.deallocate()
            seen.deallocate()
        }

        /// Reads one record (the reader before its '{') and creates its object, or updates the
        /// object with its primary key: the object's key, whether it was created, and the
        /// record's "@key" if it has one.
        func record(_ reader: inout JSONReader) throws -> (key: Int64, created: Bool, reference: JSONValue?) {
            row.clear()
            seen.update(repeating: false, count: count)
            primaryKeyAt = nil
            referenceAt = nil
            var reference: JSONValue?
            reader.skipSpace()
            guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "{") else {
                let given = try reader.value(depth: 1)
                throw ToolError.failure("an object of '\(cls.name)' needs a JSON object, not \(given.shown)")
            }
            if !(try reader.open(UInt8(ascii: "{"), UInt8(ascii: "}"), "'{'")) {
                var position = 0
                repeat {
                    let property = try key(&reader, guess: position)
                    position += 1
                    if property == Importer.atKey {
                        reader.skipSpace()
                        referenceAt = reader.index
                        reference = try reader.value(depth: 1)
                        position -= 1
                        continue
                    }
                    if seen[property] { throw ToolError.failure("property '\(cls.properties[property].name)' is given twice") }
                    seen[property] = true
                    if property == primaryKey {
                        reader.skipSpace()
                        primaryKeyAt = reader.index
                    }
                    do {
                        try value(&reader, property)
                    } catch let error as ToolError where !error.description.hasPrefix("property '") && !error.description.hasPrefix("invalid JSON") {
                        throw ToolError.failure("property '\(cls.properties[property].name)': \(error)")
                    }
                } while try reader.next(UInt8(ascii: "}"))
            }
            if let primaryKey, !seen[primaryKey] {
                throw ToolError.failure("its primary key '\(cls.properties[primaryKey].name)' is missing")
            }
            if let missing = (0..<count).first(where: { !seen[$0] }) {
                throw ToolError.failure("property '\(cls.properties[missing].name)' is missing")
            }
            let result = try txn.createOrUpdate(row)
            return (result.key, result.created, reference)
        }

        /// A key and its ':': the index of its property, or `atKey`.
        private func key(_ reader: inout JSONReader, guess: Int) throws -> Int {
            reader.skipSpace()
            guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"") else {
                throw reader.error("expected a key")
            }
            let found: Int?
            if let raw = reader.plainString() {
                found = property(named: raw, guess: guess)
                if found == nil, raw.elementsEqual("@key".utf8) {
                    try reader.expect(UInt8(ascii: ":"), "':'")
                    return Importer.atKey
                }
                if found == nil { throw ToolError.failure("no property '\(String(decoding: raw, as: UTF8.self))' in class '\(cls.name)'") }
            } else {
                let text = try reader.string()
                if text == "@key" {
                    try reader.expect(UInt8(ascii: ":"), "':'")
                    return Importer.atKey
                }
                found = Array(text.utf8).withUnsafeBytes { property(named: $0, guess: guess) }
                if found == nil { throw ToolError.failure("no property '\(text)' in class '\(cls.name)'") }
            }
            try reader.expect(UInt8(ascii: ":"), "':'")
            return found!
        }

        @inline(__always) private func property(named raw: UnsafeRawBufferPointer, guess: Int) -> Int? {
            @inline(__always) func matches(_ index: Int) -> Bool {
                guard nameCounts[index] == raw.count else { return false }
                let name = names[index]
                for at in 0..<raw.count where name[at] != raw[at] { return false }
                return true
            }
            if guess < count, matches(guess) { return guess }
            return (0..<count).first { matches($0) }
        }

        /// Reads the value of property `index` into the row.
        private func value(_ reader: inout JSONReader, _ index: Int) throws {
            let property = cls.properties[index]
            reader.skipSpace()
            guard reader.index < reader.bytes.count else { throw reader.error("unexpected end") }
            let first = reader.bytes[reader.index]
            let start = reader.index
            let isNumber = first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") < 10
            switch property.type {
            case .int where isNumber:
                let (text, integer) = try reader.number()
                if integer, let value = Rows.int64(text) { return row.setInt(index, value) }
            case .double where isNumber:
                let (text, _) = try reader.number()
                if let value = Rows.exactDouble(text) { return row.setDouble(index, value) }
                var end: UnsafeMutablePointer<CChar>?
                let value = strtod(text.baseAddress!.assumingMemoryBound(to: CChar.self), &end)
                if UnsafeRawPointer(end) == text.baseAddress! + text.count { return row.setDouble(index, value) }
            case .float where isNumber:
                let (text, _) = try reader.number()
                var end: UnsafeMutablePointer<CChar>?
                let value = strtof(text.baseAddress!.assumingMemoryBound(to: CChar.self), &end)
                if UnsafeRawPointer(end) == text.baseAddress! + text.count { return row.setFloat(index, value) }
            case .string where first == UInt8(ascii: "\""):
                if let raw = reader.plainString() { return row.setString(index, raw) }
            case .bool where first == UInt8(ascii: "t"):
                try reader.literal("true")
                return row.setBool(index, true)
            case .bool where first == UInt8(ascii: "f"):
                try reader.literal("false")
                return row.setBool(index, false)
            default:
                if first == UInt8(ascii: "n") {
                    try reader.literal("null")
                    return row.setNull(index)
                }
            }
            // Any other value: as ValueCoding reads the records of other classes.
            reader.index = start
            let json = try reader.value(depth: 1)
            try row.set(index, try ValueCoding.decode(json, property, schema, links))
        }
    }

    /// Powers of ten a Double holds exactly.
    private static let exactPowers: [Double] = (0...22).map { power in (0..<power).reduce(1.0) { value, _ in value * 10 } }

    /// The double a number's text (JSON's grammar) denotes, when one operation gives it
    /// correctly rounded (Clinger's fast path: at most 2^53 as an integer of its digits, times
    /// or divided by a power of ten up to 10^22, both exact); nil otherwise (then strtod).
    @inline(__always) static func exactDouble(_ text: UnsafeRawBufferPointer) -> Double? {
        var at = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { at = 1 }
        var digits: UInt64 = 0
        var significant = 0
        var scale = 0  // the value is digits * 10^scale
        var fraction = false
        while at < text.count {
            let byte = text[at]
            if byte == UInt8(ascii: ".") { fraction = true; at += 1; continue }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if digits != 0 || digit != 0 { significant += 1 }
            guard significant <= 19 else { return nil }
            digits = digits * 10 + UInt64(digit)
            if fraction { scale -= 1 }
            at += 1
        }
        if at < text.count {  // an exponent: [eE][+-]?digits
            at += 1
            var exponentNegative = false
            if text[at] == UInt8(ascii: "+") || text[at] == UInt8(ascii: "-") { exponentNegative = text[at] == UInt8(ascii: "-"); at += 1 }
            var exponent = 0
            while at < text.count {
                exponent = exponent * 10 + Int(text[at] &- UInt8(ascii: "0"))
                guard exponent <= 400 else { return nil }
                at += 1
            }
            scale += exponentNegative ? -exponent : exponent
        }
        guard digits <= 1 << 53, scale >= -22, scale <= 22 else { return nil }
        let magnitude = scale < 0 ? Double(digits) / exactPowers[-scale] : Double(digits) * exactPowers[scale]
        return negative ? -magnitude : magnitude
    }

    /// The integer a number's text (JSON's grammar, no fraction or exponent) denotes, nil past
    /// Int64's range.
    @inline(__always) static func int64(_ text: UnsafeRawBufferPointer) -> Int64? {
        var at = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { at = 1 }
        guard text.count - at <= 19 else { return nil }
        var magnitude: UInt64 = 0
        while at < text.count {
            magnitude = magnitude &* 10 &+ UInt64(text[at] &- UInt8(ascii: "0"))
            at += 1
        }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}
