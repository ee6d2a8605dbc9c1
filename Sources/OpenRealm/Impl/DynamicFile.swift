// DynamicFile.swift — a database file opened without model classes: its schema, its objects as
// values, queries by class name. What the `openrealm` tool reads files through.
//
// Owns: reading a file whose schema the program does not know (package access: the tool and
// tests use it; applications use Realm and its model classes).
// Never: Realm instances, model classes, notifications; writes are in DynamicFile+Write.swift.

import CEngine
import Foundation

/// A property type as Realm's schema names it (`int`, `string`, `object`, ...).
package enum DynamicType: String, Sendable, CaseIterable {
    case int, bool, float, double, string, data, date, decimal128, objectId, uuid, mixed, object

    @usableFromInline init?(_ type: ce_type) {
        switch type {
        case CE_TYPE_INT: self = .int
        case CE_TYPE_BOOL: self = .bool
        case CE_TYPE_FLOAT: self = .float
        case CE_TYPE_DOUBLE: self = .double
        case CE_TYPE_STRING: self = .string
        case CE_TYPE_BINARY: self = .data
        case CE_TYPE_TIMESTAMP: self = .date
        case CE_TYPE_DECIMAL128: self = .decimal128
        case CE_TYPE_OBJECT_ID: self = .objectId
        case CE_TYPE_UUID: self = .uuid
        case CE_TYPE_MIXED: self = .mixed
        case CE_TYPE_LINK: self = .object
        default: return nil
        }
    }

    var cType: ce_type {
        switch self {
        case .int: CE_TYPE_INT
        case .bool: CE_TYPE_BOOL
        case .float: CE_TYPE_FLOAT
        case .double: CE_TYPE_DOUBLE
        case .string: CE_TYPE_STRING
        case .data: CE_TYPE_BINARY
        case .date: CE_TYPE_TIMESTAMP
        case .decimal128: CE_TYPE_DECIMAL128
        case .objectId: CE_TYPE_OBJECT_ID
        case .uuid: CE_TYPE_UUID
        case .mixed: CE_TYPE_MIXED
        case .object: CE_TYPE_LINK
        }
    }
}

/// Whether a property holds one value or a collection.
package enum DynamicCollection: String, Sendable {
    case none, list, set, dictionary

    init(_ kind: ce_collection_type) {
        switch kind {
        case CE_COLLECTION_LIST: self = .list
        case CE_COLLECTION_SET: self = .set
        case CE_COLLECTION_DICTIONARY: self = .dictionary
        default: self = .none
        }
    }

    var cValue: ce_collection_type {
        switch self {
        case .none: CE_COLLECTION_NONE
        case .list: CE_COLLECTION_LIST
        case .set: CE_COLLECTION_SET
        case .dictionary: CE_COLLECTION_DICTIONARY
        }
    }
}

/// One stored property of a class in a file (backlinks are not listed: they are `linkingObjects`
/// of the origin's `object` property).
package struct DynamicProperty: Sendable, Equatable {
    package var name: String
    package var type: DynamicType
    package var collection: DynamicCollection
    /// May hold null (for collections: its elements may).
    package var optional: Bool
    package var primaryKey: Bool
    /// Kept in an index (the primary key always is).
    package var indexed: Bool
    /// The class an `object` property links to.
    package var target: String?

    package init(name: String, type: DynamicType, collection: DynamicCollection = .none, optional: Bool = false,
                 primaryKey: Bool = false, indexed: Bool = false, target: String? = nil) {
        self.name = name
        self.type = type
        self.collection = collection
        self.optional = optional
        self.primaryKey = primaryKey
        self.indexed = indexed
        self.target = target
    }

    /// Realm's spelling of the type: `int`, `string?`, `Dog`, `Dog[]`, `int<>`, `double{}`.
    package var typeText: String {
        var base = type == .object ? (target ?? "?") : type.rawValue
        if optional && type != .mixed && !(type == .object && collection == .none) { base += "?" }
        switch collection {
        case .none: return base
        case .list: return base + "[]"
        case .set: return base + "<>"
        case .dictionary: return base + "{}"
        }
    }
}

/// One class (table) of a file.
package struct DynamicClass: Sendable, Equatable {
    package var name: String
    package var embedded: Bool
    /// Stored properties in column order.
    package var properties: [DynamicProperty]

    package init(name: String, embedded: Bool, properties: [DynamicProperty]) {
        self.name = name
        self.embedded = embedded
        self.properties = properties
    }

    /// The primary key property's name, if the class has one.
    package var primaryKey: String? { properties.first { $0.primaryKey }?.name }
}

/// A value read from (or to be written to) a file, whatever its schema.
package indirect enum DynamicValue: Sendable {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case binary([UInt8])
    /// Seconds and nanoseconds since 1970-01-01 UTC (nanoseconds of the same sign as seconds).
    case timestamp(seconds: Int64, nanoseconds: Int32)
    /// The engine's text of the decimal (it keeps the representation: "1.50").
    case decimal(String)
    /// 24 lowercase hexadecimal digits.
    case objectId(String)
    /// The lowercase canonical form, 8-4-4-4-12.
    case uuid(String)
    /// A top-level object: its class and object key.
    case link(className: String, key: Int64)
    /// An embedded object: its properties' values, in its class's property order.
    case embedded(className: String, values: [DynamicValue])
    /// A list or set property, or a list nested in a mixed value.
    case list([DynamicValue])
    /// A dictionary property or a dictionary nested in a mixed value, in key order.
    case dictionary([(key: String, value: DynamicValue)])
}

/// A database file opened without model classes.
///
///     let file = try DynamicFile(path: "app.realm", encryptionKey: key, readOnly: true)
///     let people = try file.read { txn in try txn.objectKeys(of: "Person").count }
package final class DynamicFile {
    package let engine: StorageEngine

    /// Opens `path` (and its lock file). `create`: create the file if missing. `immutable`: an
    /// immutable snapshot without a lock file (read-only; nobody may write the file meanwhile).
    package init(path: String, encryptionKey: [UInt8]?, readOnly: Bool, create: Bool = false, immutable: Bool = false)
        throws(EngineError)
    {
        engine = try StorageEngine(
            path: path,
            options: .init(readOnly: readOnly || immutable, createIfMissing: create && !readOnly && !immutable,
                           encryptionKey: encryptionKey, immutable: immutable))
    }

    /// Runs `body` in a read transaction of the latest version.
    package func read<R>(_ body: (DynamicTransaction) throws -> R) throws -> R {
        try engine.read { txn in
            let dynamic = DynamicTransaction(txn.handle)
            defer { dynamic.close() }
            return try body(dynamic)
        }
    }

    /// Runs `body` in a write transaction, committed when it returns, rolled back when it throws.
    package func write<R>(_ body: (DynamicTransaction) throws -> R) throws -> R {
        try engine.write { txn in
            let dynamic = DynamicTransaction(txn.handle)
            defer { dynamic.close() }
            return try body(dynamic)
        }
    }
}

/// A transaction of a `DynamicFile`, valid inside the closure it was given to.
package final class DynamicTransaction {
    let txn: OpaquePointer
    private var valid = true
    private var classCache: [String: (key: ce_table_key, cls: DynamicClass, columns: [ce_column_key])] = [:]

    init(_ txn: OpaquePointer) { self.txn = txn }

    func close() { valid = false }

    func check() throws(EngineError) {
        guard valid else {
            throw EngineError(code: .wrongTransactionState, message: "the transaction of this DynamicTransaction has ended")
        }
    }

    /// The version the transaction reads.
    package var version: UInt64 { ce_txn_version(txn) }

    /// The schema version the application stored (0 in a new file).
    package func schemaVersion() throws(EngineError) -> UInt64 {
        try check()
        var version: UInt64 = 0
        guard ce_schema_version(txn, &version) else { throw EngineError.last() }
        return version
    }

    /// Every class of the file, by name.
    package func classes() throws(EngineError) -> [DynamicClass] {
        try check()
        var count = 0
        guard ce_table_count(txn, &count) else { throw EngineError.last() }
        var result: [DynamicClass] = []
        for key in 0..<count {
            var cName: UnsafePointer<CChar>?
            // Removed tables keep their slot and have no name.
            guard ce_table_name(txn, ce_table_key(key), &cName), let cName else { continue }
            result.append(try describe(ce_table_key(key), name: String(cString: cName)).cls)
        }
        return result.sorted { $0.name < $1.name }
    }

    /// The class named `name`; throws `.invalidArgument` naming it if the file has none.
    package func `class`(named name: String) throws(EngineError) -> DynamicClass {
        try table(name).cls
    }

    /// Whether the file has a class named `name`.
    package func hasClass(_ name: String) throws(EngineError) -> Bool {
        try check()
        var key: ce_table_key = 0
        var found = false
        guard ce_table_find(txn, name, &key, &found) else { throw EngineError.last() }
        return found
    }

    func table(_ name: String) throws(EngineError) -> (key: ce_table_key, cls: DynamicClass, columns: [ce_column_key]) {
        try check()
        if let known = classCache[name] { return known }
        var key: ce_table_key = 0
        var found = false
        guard ce_table_find(txn, name, &key, &found) else { throw EngineError.last() }
        guard found else { throw EngineError(code: .invalidArgument, message: "no class '\(name)' in the file") }
        return try describe(key, name: name)
    }

    func forgetClasses() { classCache.removeAll() }

    private func describe(_ key: ce_table_key, name: String) throws(EngineError) -> (key: ce_table_key, cls: DynamicClass, columns: [ce_column_key]) {
        if let known = classCache[name] { return known }
        var embedded = false
        var count = 0
        guard ce_table_is_embedded(txn, key, &embedded), ce_property_count(txn, key, &count) else { throw EngineError.last() }
        var properties: [DynamicProperty] = []
        var columns: [ce_column_key] = []
        for column in 0..<count {
            var info = ce_property_info()
            // Removed properties keep their slot and cannot be read.
            guard ce_property_get_info(txn, key, ce_column_key(column), &info), !info.backlink,
                let type = DynamicType(info.type)
            else { continue }
            var target: String?
            if info.type == CE_TYPE_LINK {
                var cTarget: UnsafePointer<CChar>?
                guard ce_table_name(txn, info.link_target, &cTarget), let cTarget else { throw EngineError.last() }
                target = String(cString: cTarget)
            }
            properties.append(DynamicProperty(
                name: String(cString: info.name), type: type, collection: DynamicCollection(info.collection),
                optional: info.nullable, primaryKey: info.primary_key, indexed: info.indexed || info.primary_key, target: target))
            columns.append(ce_column_key(column))
        }
        let entry = (key, DynamicClass(name: name, embedded: embedded, properties: properties), columns)
        classCache[name] = entry
        return entry
    }

    /// The number of objects of a class.
    package func objectCount(of className: String) throws(EngineError) -> Int {
        let table = try table(className)
        var count = 0
        guard ce_object_count(txn, table.key, &count) else { throw EngineError.last() }
        return count
    }

    /// The keys of a class's objects, in key order (the order of creation).
    package func objectKeys(of className: String) throws(EngineError) -> [Int64] {
        let table = try table(className)
        var count = 0
        guard ce_object_count(txn, table.key, &count) else { throw EngineError.last() }
        var keys = [Int64](repeating: 0, count: count)
        for index in 0..<count {
            guard ce_object_key_at(txn, table.key, index, &keys[index]) else { throw EngineError.last() }
        }
        return keys
    }

    /// The keys of the objects of `className` that match `predicate` (Realm's predicate language,
    /// `$0`... or `%@` for `arguments`), sorted by `sort` (key path, ascending), at most `limit`.
    package func query(_ className: String, predicate: String?, arguments: [DynamicValue] = [],
                       sort: [(keyPath: String, ascending: Bool)] = [], limit: Int? = nil) throws(EngineError) -> [Int64] {
        let table = try table(className)
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }
        var args: [ce_query_argument] = []
        for argument in arguments {
            var cArgument = ce_query_argument()
            cArgument.kind = CE_QUERY_ARGUMENT_VALUE
            cArgument.value = try cValue(argument, arena)
            args.append(cArgument)
        }
        var query: OpaquePointer?
        let parsed = (predicate ?? "TRUEPREDICATE").withCString { text in
            args.withUnsafeBufferPointer { ce_query_parse(txn, table.key, text, $0.baseAddress, $0.count, &query) }
        }
        guard parsed, let query else { throw EngineError.last() }
        defer { ce_query_free(query) }
        var results: OpaquePointer?
        guard ce_query_find_all(query, &results), let base = results else { throw EngineError.last() }
        defer { ce_results_free(base) }
        var view = base
        var owned: [OpaquePointer] = []
        defer { owned.forEach { ce_results_free($0) } }
        if !sort.isEmpty {
            let paths = sort.map { strdup($0.keyPath) }
            defer { paths.forEach { free($0) } }
            let keys = zip(paths, sort).map { ce_sort_key(key_path: $0.0, ascending: $0.1.ascending) }
            var sorted: OpaquePointer?
            guard keys.withUnsafeBufferPointer({ ce_results_sort(txn, view, $0.baseAddress, $0.count, &sorted) }), let sorted else {
                throw EngineError.last()
            }
            owned.append(sorted)
            view = sorted
        }
        if let limit {
            var limited: OpaquePointer?
            guard ce_results_limit(view, limit, &limited), let limited else { throw EngineError.last() }
            owned.append(limited)
            view = limited
        }
        var count = 0
        guard ce_results_count(view, txn, &count) else { throw EngineError.last() }
        var keys = [Int64](repeating: 0, count: count)
        if count > 0 {
            var filled = 0
            guard ce_results_get_range(view, txn, 0, count, &keys, &filled) else { throw EngineError.last() }
            keys.removeSubrange(filled...)
        }
        return keys
    }

    /// The values of one object's properties, in its class's property order. Links to top-level
    /// objects are `.link`, embedded objects are read whole (`.embedded`).
    package func values(of key: Int64, in className: String) throws(EngineError) -> [DynamicValue] {
        let table = try table(className)
        var values: [DynamicValue] = []
        values.reserveCapacity(table.columns.count)
        for (index, column) in table.columns.enumerated() {
            values.append(try value(table.key, key, column, table.cls.properties[index]))
        }
        return values
    }

    /// One property's value of one object.
    package func value(of key: Int64, in className: String, property name: String) throws(EngineError) -> DynamicValue {
        let table = try table(className)
        guard let index = table.cls.properties.firstIndex(where: { $0.name == name }) else {
            throw EngineError(code: .invalidArgument, message: "no property '\(name)' in class '\(className)'")
        }
        return try value(table.key, key, table.columns[index], table.cls.properties[index])
    }

    private func value(_ table: ce_table_key, _ key: Int64, _ column: ce_column_key, _ property: DynamicProperty) throws(EngineError) -> DynamicValue {
        if property.collection != .none {
            var collection: OpaquePointer?
            guard ce_collection_open(txn, table, key, column, &collection), let collection else { throw EngineError.last() }
            defer { ce_collection_close(collection) }
            return try read(collection, property.collection)
        }
        var raw = ce_value()
        guard ce_object_get(txn, table, key, column, &raw) else { throw EngineError.last() }
        if raw.type == CE_TYPE_LIST || raw.type == CE_TYPE_DICTIONARY {
            var collection: OpaquePointer?
            guard ce_collection_open_mixed(txn, table, key, column, &collection), let collection else { throw EngineError.last() }
            defer { ce_collection_close(collection) }
            return try read(collection, raw.type == CE_TYPE_LIST ? .list : .dictionary)
        }
        return try dynamicValue(raw)
    }

    private func read(_ collection: OpaquePointer, _ kind: DynamicCollection) throws(EngineError) -> DynamicValue {
        var count = 0
        guard ce_collection_size(collection, &count) else { throw EngineError.last() }
        func element(_ index: Int) throws(EngineError) -> DynamicValue {
            var raw = ce_value()
            guard ce_collection_get(collection, index, &raw) else { throw EngineError.last() }
            guard raw.type == CE_TYPE_LIST || raw.type == CE_TYPE_DICTIONARY else { return try dynamicValue(raw) }
            var at = ce_value()
            var keyText: [CChar] = []
            if kind == .dictionary {
                guard ce_dictionary_key_at(collection, index, &at) else { throw EngineError.last() }
                keyText = Array(at.stringValue.utf8CString)
            } else {
                at = .int(Int64(index))
            }
            var nested: OpaquePointer?
            let opened = keyText.withUnsafeBufferPointer { buffer in
                if kind == .dictionary {
                    at.string.data = buffer.baseAddress
                    at.string.size = buffer.count - 1
                }
                return ce_collection_open_nested(collection, &at, &nested)
            }
            guard opened, let nested else { throw EngineError.last() }
            defer { ce_collection_close(nested) }
            return try read(nested, raw.type == CE_TYPE_LIST ? .list : .dictionary)
        }
        if kind == .dictionary {
            var entries: [(key: String, value: DynamicValue)] = []
            for index in 0..<count {
                var keyValue = ce_value()
                guard ce_dictionary_key_at(collection, index, &keyValue) else { throw EngineError.last() }
                let key = keyValue.stringValue
                entries.append((key, try element(index)))
            }
            return .dictionary(entries)
        }
        var elements: [DynamicValue] = []
        elements.reserveCapacity(count)
        for index in 0..<count { elements.append(try element(index)) }
        return .list(elements)
    }

    func dynamicValue(_ raw: ce_value) throws(EngineError) -> DynamicValue {
        switch raw.type {
        case CE_TYPE_NULL: return .null
        case CE_TYPE_INT: return .int(raw.integer)
        case CE_TYPE_BOOL: return .bool(raw.boolean)
        case CE_TYPE_FLOAT: return .float(raw.float_value)
        case CE_TYPE_DOUBLE: return .double(raw.double_value)
        case CE_TYPE_STRING: return .string(raw.stringValue)
        case CE_TYPE_BINARY:
            guard raw.binary.size > 0, let data = raw.binary.data else { return .binary([]) }
            return .binary(Array(UnsafeBufferPointer(start: data, count: raw.binary.size)))
        case CE_TYPE_TIMESTAMP: return .timestamp(seconds: raw.timestamp.seconds, nanoseconds: raw.timestamp.nanoseconds)
        case CE_TYPE_DECIMAL128:
            var buffer = [CChar](repeating: 0, count: 64)
            let length = ce_decimal128_to_string(raw.decimal, &buffer, buffer.count)
            return .decimal(String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        case CE_TYPE_OBJECT_ID:
            return .objectId(withUnsafeBytes(of: raw.object_id.bytes) { hex($0) })
        case CE_TYPE_UUID:
            let text = withUnsafeBytes(of: raw.uuid.bytes) { hex($0) }
            let chars = Array(text)
            return .uuid(String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16]) + "-"
                + String(chars[16..<20]) + "-" + String(chars[20..<32]))
        case CE_TYPE_LINK:
            var cName: UnsafePointer<CChar>?
            guard ce_table_name(txn, raw.link.table, &cName), let cName else { throw EngineError.last() }
            let name = String(cString: cName)
            if try table(name).cls.embedded {
                return .embedded(className: name, values: try values(of: raw.link.key, in: name))
            }
            return .link(className: name, key: raw.link.key)
        default:
            throw EngineError(code: .fail, message: "a value of type '\(String(cString: ce_type_name(raw.type)))' cannot be read here")
        }
    }

    /// The engine value of a scalar `value` (strings and binaries copied into `arena`).
    func cValue(_ value: DynamicValue, _ arena: _CArena) throws(EngineError) -> ce_value {
        var raw = ce_value()
        switch value {
        case .null: break
        case .int(let v): raw = .int(v)
        case .bool(let v): raw.type = CE_TYPE_BOOL; raw.boolean = v
        case .float(let v): raw.type = CE_TYPE_FLOAT; raw.float_value = v
        case .double(let v): raw.type = CE_TYPE_DOUBLE; raw.double_value = v
        case .string(let v): raw = arena.string(v)
        case .binary(let v):
            raw.type = CE_TYPE_BINARY
            v.withUnsafeBytes { bytes in
                raw.binary.data = arena.copy(bytes)?.assumingMemoryBound(to: UInt8.self)
                raw.binary.size = bytes.count
            }
        case .timestamp(let seconds, let nanoseconds):
            raw.type = CE_TYPE_TIMESTAMP
            raw.timestamp = ce_timestamp(seconds: seconds, nanoseconds: nanoseconds)
        case .decimal(let text):
            raw.type = CE_TYPE_DECIMAL128
            guard ce_decimal128_from_string(text, &raw.decimal) else {
                throw EngineError(code: .invalidArgument, message: "'\(text)' is not a decimal128")
            }
        case .objectId(let text):
            guard let bytes = unhex(text), bytes.count == 12 else {
                throw EngineError(code: .invalidArgument, message: "'\(text)' is not an object id (24 hexadecimal digits)")
            }
            raw.type = CE_TYPE_OBJECT_ID
            withUnsafeMutableBytes(of: &raw.object_id.bytes) { $0.copyBytes(from: bytes) }
        case .uuid(let text):
            guard text.utf8.count == 36, let bytes = unhex(text.replacingOccurrences(of: "-", with: "")), bytes.count == 16 else {
                throw EngineError(code: .invalidArgument, message: "'\(text)' is not a UUID")
            }
            raw.type = CE_TYPE_UUID
            withUnsafeMutableBytes(of: &raw.uuid.bytes) { $0.copyBytes(from: bytes) }
        case .link(let className, let key):
            raw = .link(try table(className).key, key)
        case .embedded, .list, .dictionary:
            throw EngineError(code: .invalidArgument, message: "a collection or embedded object is not a single value")
        }
        return raw
    }
}

private func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}

private func unhex(_ text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    func digit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    var bytes: [UInt8] = []
    var index = 0
    while index < utf8.count {
        guard let high = digit(utf8[index]), let low = digit(utf8[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
        index += 2
    }
    return bytes
}
