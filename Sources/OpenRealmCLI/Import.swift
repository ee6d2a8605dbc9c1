// Import.swift — `openrealm import FILE JSON`: the objects of an export, created or updated by
// primary key, all in one write transaction (a bad record: nothing is committed).

import Foundation
import OpenRealm

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

let importCommand = Subcommand(
    name: "import",
    summary: "create or update objects from an export's JSON, all or nothing",
    help: """
        usage: openrealm import FILE JSON [--key-file PATH]

        Reads JSON in the form `openrealm export` writes ("-" for standard input) and, in one
        write transaction, adds the classes and properties of its schema that FILE lacks (FILE
        is created if missing: encrypted when a key is given), then creates each object, or
        updates the object with the same primary key (a primary key given by two records of the
        JSON is an error naming both). Objects of classes without a primary key
        are always created; links to them use their "@key" within the JSON. A record that does
        not fit (a wrong type, a missing property, a link to nothing) or JSON that is not
        well-formed is an error naming it, and nothing of the import is committed. Imports of
        \(Importing.progressThreshold / 1024) KB of JSON or more report progress on standard error.

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions)
        let paths = try parsed.expect(2, "FILE and JSON")
        let input = try InputText(paths[1])
        // A FILE the import creates is removed again when the import fails: nothing of a failed
        // import stays, not even an empty database.
        var status = stat()
        let existed = lstat(paths[0], &status) == 0
        let counts: (created: Int, updated: Int)
        do {
            counts = try importFile(paths[0], parsed, input, name: paths[1])
        } catch {
            if !existed { _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: paths[0]))) }
            throw error
        }
        print("imported into \(paths[0]): \(counts.created) created, \(counts.updated) updated")
    })

/// Opens (or creates) `path` and imports `input` in one write transaction; the file is closed
/// when this returns.
private func importFile(_ path: String, _ arguments: Arguments, _ input: InputText, name: String) throws -> (created: Int, updated: Int) {
    let (file, _) = try openFile(path, arguments, readOnly: false, create: true)
    return try file.write { txn in
        var importing = Importing(txn, input, name: name)
        return try importing.run()
    }
}

/// A whole file (or standard input) in memory, followed by a NUL byte (see `JSONReader`).
/// Read, never mapped: a file another process truncates during the import then reads as
/// truncated JSON (an error naming the record) instead of killing the tool with SIGBUS.
final class InputText {
    let bytes: UnsafeRawBufferPointer
    private let storage: UnsafeMutableRawPointer

    init(_ path: String) throws {
        let descriptor = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ToolError.failure("cannot read '\(path)': \(String(cString: strerror(errno)))") }
        defer { if descriptor != 0 { close(descriptor) } }
        var status = stat()
        var capacity = 1 << 20
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
            capacity = Int(status.st_size) + 1
        }
        guard var storage = malloc(capacity) else {
            throw ToolError.failure("cannot read '\(path)': out of memory")
        }
        var count = 0
        while true {
            if count + 1 >= capacity {
                capacity *= 2
                guard let grown = realloc(storage, capacity) else {
                    free(storage)
                    throw ToolError.failure("cannot read '\(path)': out of memory")
                }
                storage = grown
            }
            let got = read(descriptor, storage + count, capacity - 1 - count)
            if got < 0 && errno == EINTR { continue }
            if got < 0 {
                let reason = String(cString: strerror(errno))
                free(storage)
                throw ToolError.failure("cannot read '\(path)': \(reason)")
            }
            if got == 0 { break }
            count += got
        }
        storage.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
        self.storage = storage
        bytes = UnsafeRawBufferPointer(start: storage, count: count)
    }

    deinit { free(storage) }
}

/// One import in its write transaction: the top level of the JSON read front to back; the
/// schema first (objects given before it are read after it); the records of classes whose
/// properties are all scalars created as they are read (`Rows.Importer`), the others in two
/// passes (every object exists before links to it are set).
struct Importing {
    /// Inputs of this many bytes or more show progress.
    static let progressThreshold = 256 * 1024

    private let txn: DynamicTransaction
    private let input: InputText
    private let name: String
    private let progress: Progress?
    private var schema: [String: DynamicClass] = [:]
    private var ordinals = Ordinals()
    private var pending: [(cls: DynamicClass, key: Int64, record: JSONValue, name: String)] = []
    private var created = 0
    private var updated = 0
    /// The objects of classes with a primary key this import has created or updated, by class,
    /// with the record (index) and its offset in the input: a second record with the same
    /// primary key is an error naming both, not an update of the first.
    private var recordsByKey: [String: [Int64: (index: Int, at: Int)]] = [:]

    /// The objects of classes without a primary key by their "@key" in the JSON (its text).
    final class Ordinals { var keys: [String: [String: Int64]] = [:] }

    init(_ txn: DynamicTransaction, _ input: InputText, name: String) {
        self.txn = txn
        self.input = input
        self.name = name
        progress = input.bytes.count >= Importing.progressThreshold ? Progress("import") : nil
    }

    private func notAnExport() -> ToolError { .failure("'\(name)' is not an export: it needs \"schema\" and \"objects\"") }

    mutating func run() throws -> (created: Int, updated: Int) {
        var reader = JSONReader(input.bytes)
        var schemaRead = false
        var objectsAt: Int?
        var objectsRead = false
        reader.skipSpace()
        guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "{") else { throw notAnExport() }
        if !(try reader.open(UInt8(ascii: "{"), UInt8(ascii: "}"), "'{'")) {
            repeat {
                let key = try reader.key()
                switch key {
                case "schema":
                    guard !schemaRead, case .array(let classes) = try reader.value(depth: 1) else { throw notAnExport() }
                    try txn.addMissing(try classes.map(Records.schema))
                    schema = Dictionary(uniqueKeysWithValues: try txn.classes().map { ($0.name, $0) })
                    schemaRead = true
                case "objects":
                    guard objectsAt == nil, !objectsRead else { throw notAnExport() }
                    if schemaRead {
                        try objects(&reader)
                        objectsRead = true
                    } else {
                        reader.skipSpace()
                        objectsAt = reader.index
                        _ = try reader.value(depth: 1)
                    }
                case "format":
                    let format = try reader.value(depth: 1)
                    guard case .string("openrealm-export") = format else {
                        throw ToolError.failure("'\(name)' is not an export: its \"format\" is \(format.shown), not \"openrealm-export\"")
                    }
                case "version":
                    let version = try reader.value(depth: 1)
                    guard case .number(let text) = version else {
                        throw ToolError.failure("'\(name)' is not an export: its \"version\" is \(version.shown), not a number")
                    }
                    guard text == "1" else {
                        throw ToolError.failure("'\(name)' is an export of version \(text): this openrealm reads version 1 (upgrade openrealm)")
                    }
                default:
                    _ = try reader.value(depth: 1)
                }
            } while try reader.next(UInt8(ascii: "}"))
        }
        try reader.end()
        guard schemaRead, objectsRead || objectsAt != nil else { throw notAnExport() }
        if let objectsAt {
            var again = JSONReader(input.bytes)
            again.index = objectsAt
            try objects(&again)
        }
        try setPending()
        progress?.update(UInt64(input.bytes.count), UInt64(input.bytes.count))
        return (created, updated)
    }

    /// How links are resolved: by the target's primary key, or by its "@key" in this import.
    private func links() -> LinkCoding {
        let txn = txn
        let schema = schema
        let ordinals = ordinals
        return LinkCoding(
            reference: { className, _ in throw ToolError.failure("cannot write references to '\(className)' while importing") },
            resolve: { className, reference in
                guard let cls = schema[className] else { throw ToolError.failure("no class '\(className)'") }
                if let primaryKey = cls.primaryKey, let property = cls.properties.first(where: { $0.primaryKey }) {
                    let value = try ValueCoding.decodeScalar(reference, property.type, primaryKey)
                    guard let key = try txn.find(className, primaryKey: value) else {
                        throw ToolError.failure("a link to '\(className)' with \(primaryKey) \(reference.shown): there is none")
                    }
                    return key
                }
                guard let key = ordinals.keys[className]?[JSONValue.write(reference)] else {
                    throw ToolError.failure("a link to '\(className)' with @key \(reference.shown): there is none in the import")
                }
                return key
            })
    }

    /// The value of "objects" (the reader before its '{'): each class's array of records.
    private mutating func objects(_ reader: inout JSONReader) throws {
        let links = links()
        reader.skipSpace()
        guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "{") else { throw notAnExport() }
        if try reader.open(UInt8(ascii: "{"), UInt8(ascii: "}"), "'{'") { return }
        repeat {
            let className = try reader.key()
            guard let cls = schema[className], !cls.embedded else {
                throw ToolError.failure("objects of '\(className)': no top-level class of that name in the schema")
            }
            reader.skipSpace()
            guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "[") else {
                throw ToolError.failure("objects of '\(className)' need an array")
            }
            let importer = Records.scalarsOnly(cls) ? try Rows.Importer(cls, txn, schema, links) : nil
            var index = 0
            if !(try reader.open(UInt8(ascii: "["), UInt8(ascii: "]"), "'['")) {
                repeat {
                    if let importer {
                        try record(&reader, importer, index)
                    } else {
                        try record(&reader, cls, index)
                    }
                    index += 1
                    if index & 1023 == 0 { progress?.update(UInt64(reader.index), UInt64(reader.bytes.count)) }
                } while try reader.next(UInt8(ascii: "]"))
            }
        } while try reader.next(UInt8(ascii: "}"))
    }

    /// The line (from 1) of a byte offset of the input.
    private func line(at offset: Int) -> Int {
        var line = 1
        for byte in input.bytes[..<min(offset, input.bytes.count)] where byte == UInt8(ascii: "\n") { line += 1 }
        return line
    }

    /// Notes that record `index` (at `offset`) made or updated object `key` of `cls`; an error if
    /// an earlier record of this import did, with the same primary key.
    private mutating func noteRecord(_ cls: DynamicClass, _ key: Int64, _ index: Int, at offset: Int) throws {
        guard cls.primaryKey != nil else { return }
        if let first = recordsByKey[cls.name]?[key] {
            throw ToolError.failure(
                "line \(line(at: offset)): the same primary key as record \(first.index + 1) of '\(cls.name)' (line "
                    + "\(line(at: first.at))): an object appears once in an import")
        }
        recordsByKey[cls.name, default: [:]][key] = (index, offset)
    }

    /// A record of a class whose properties are all scalars: its object created or updated.
    private mutating func record(_ reader: inout JSONReader, _ importer: Rows.Importer, _ index: Int) throws {
        reader.skipSpace()
        let offset = reader.index
        do {
            let result = try importer.record(&reader)
            try noteRecord(importer.cls, result.key, index, at: offset)
            if result.created { created += 1 } else { updated += 1 }
            if importer.cls.primaryKey == nil, let reference = result.reference {
                ordinals.keys[importer.cls.name, default: [:]][JSONValue.write(reference)] = result.key
            }
        } catch {
            var name = "record \(index + 1) of '\(importer.cls.name)'"
            if let primaryKey = importer.cls.primaryKey, let at = importer.primaryKeyAt {
                var again = JSONReader(input.bytes)
                again.index = at
                if let given = try? again.value(depth: 1) { name += " (\(primaryKey) \(given.shown))" }
            } else if let at = importer.referenceAt {
                var again = JSONReader(input.bytes)
                again.index = at
                if let given = try? again.value(depth: 1) { name += " (@key \(given.shown))" }
            }
            throw ToolError.failure("\(name): \(error)")
        }
    }

    /// A record of a class with links, collections, embedded objects or mixed values: its
    /// object found or created now, its values set once every object exists (`setPending`).
    private mutating func record(_ reader: inout JSONReader, _ cls: DynamicClass, _ index: Int) throws {
        reader.skipSpace()
        let offset = reader.index
        let record = try reader.value(depth: 2)
        var name = "record \(index + 1) of '\(cls.name)'"
        do {
            let key: Int64
            if let primaryKey = cls.primaryKey, let property = cls.properties.first(where: { $0.primaryKey }) {
                guard let given = record[primaryKey] else { throw ToolError.failure("its primary key '\(primaryKey)' is missing") }
                name += " (\(primaryKey) \(given.shown))"
                let value = try ValueCoding.decodeScalar(given, property.type, primaryKey)
                if let existing = try txn.find(cls.name, primaryKey: value) {
                    key = existing
                    try noteRecord(cls, key, index, at: offset)
                    updated += 1
                } else {
                    key = try txn.create(cls.name, primaryKey: value)
                    try noteRecord(cls, key, index, at: offset)
                    created += 1
                }
            } else {
                if let reference = record["@key"] { name += " (@key \(reference.shown))" }
                key = try txn.create(cls.name, primaryKey: nil)
                created += 1
            }
            pending.append((cls, key, record, name))
            if cls.primaryKey == nil, let reference = record["@key"] {
                ordinals.keys[cls.name, default: [:]][JSONValue.write(reference)] = key
            }
        } catch {
            throw ToolError.failure("\(name): \(error)")
        }
    }

    /// The values of the objects `record(_:_:_:)` created or found.
    private func setPending() throws {
        let links = links()
        for (cls, key, record, name) in pending {
            do {
                let values = try ValueCoding.decodeObject(record, cls, schema, links)
                for (property, value) in zip(cls.properties, values) where !property.primaryKey {
                    do {
                        try txn.set(value, of: key, in: cls.name, property: property.name)
                    } catch {
                        throw ToolError.failure("property '\(property.name)': \(error)")
                    }
                }
            } catch {
                throw ToolError.failure("\(name): \(error)")
            }
        }
    }
}
