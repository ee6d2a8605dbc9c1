// Import.swift — `openrealm import FILE JSON`: the objects of an export, created or updated by
// primary key, all in one write transaction (a bad record: nothing is committed).

import Foundation
import OpenRealm

let importCommand = Subcommand(
    name: "import",
    summary: "create or update objects from an export's JSON, all or nothing",
    help: """
        usage: openrealm import FILE JSON [--key-file PATH]

        Reads JSON in the form `openrealm export` writes ("-" for standard input) and, in one
        write transaction, adds the classes and properties of its schema that FILE lacks (FILE
        is created if missing: encrypted when a key is given), then creates each object, or
        updates the object with the same primary key. Objects of classes without a primary key
        are always created; links to them use their "@key" within the JSON. A record that does
        not fit (a wrong type, a missing property, a link to nothing) is an error naming it,
        and nothing of the import is committed. Imports of 10,000 objects or more report
        progress on standard error.

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions)
        let paths = try parsed.expect(2, "FILE and JSON")
        let data: Data
        if paths[1] == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let handle = FileHandle(forReadingAtPath: paths[1]) else {
                throw ToolError.failure("cannot read '\(paths[1])': \(String(cString: strerror(errno)))")
            }
            data = handle.readDataToEndOfFile()
        }
        let json = try JSONValue.parse([UInt8](data))
        guard case .array(let schemaJSON)? = json["schema"], case .object(let objects)? = json["objects"] else {
            throw ToolError.failure("'\(paths[1])' is not an export: it needs \"schema\" and \"objects\"")
        }
        let imported = try schemaJSON.map(Records.schema)
        let (file, _) = try openFile(paths[0], parsed, readOnly: false, create: true)
        let counts = try file.write { txn -> (created: Int, updated: Int) in
            try txn.addMissing(imported)
            let schema = Dictionary(uniqueKeysWithValues: try txn.classes().map { ($0.name, $0) })
            // Pass 1: every object exists (links may point forward); the objects of classes with
            // only scalar properties get their values too, in one call. Pass 2: the other
            // objects' values.
            var ordinals: [String: [String: Int64]] = [:]
            var pending: [(cls: DynamicClass, key: Int64, record: JSONValue, name: String)] = []
            var created = 0
            var updated = 0
            let links = LinkCoding(
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
                    guard let key = ordinals[className]?[JSONValue.write(reference)] else {
                        throw ToolError.failure("a link to '\(className)' with @key \(reference.shown): there is none in the import")
                    }
                    return key
                })
            let total = objects.reduce(0) { count, entry in
                if case .array(let list) = entry.value { count + list.count } else { count }
            }
            let progress = total >= Progress.objectThreshold ? Progress("import", unit: .objects) : nil
            var done = 0
            for (className, records) in objects {
                guard let cls = schema[className], !cls.embedded else {
                    throw ToolError.failure("objects of '\(className)': no top-level class of that name in the schema")
                }
                guard case .array(let list) = records else { throw ToolError.failure("objects of '\(className)' need an array") }
                let scalarsOnly = Records.scalarsOnly(cls)
                for (index, record) in list.enumerated() {
                    var name = "record \(index + 1) of '\(className)'"
                    do {
                        let key: Int64
                        let primaryKeyValue: DynamicValue?
                        if let primaryKey = cls.primaryKey, let property = cls.properties.first(where: { $0.primaryKey }) {
                            guard let given = record[primaryKey] else { throw ToolError.failure("its primary key '\(primaryKey)' is missing") }
                            name += " (\(primaryKey) \(given.shown))"
                            primaryKeyValue = try ValueCoding.decodeScalar(given, property.type, primaryKey)
                        } else {
                            primaryKeyValue = nil
                            if let reference = record["@key"] { name += " (@key \(reference.shown))" }
                        }
                        if scalarsOnly {
                            let values = try ValueCoding.decodeObject(record, cls, schema, links)
                            let result = try txn.createOrUpdate(className, values: values)
                            key = result.key
                            if result.created { created += 1 } else { updated += 1 }
                            done += 1
                            progress?.update(UInt64(done), UInt64(total))
                        } else {
                            if let primaryKeyValue, let existing = try txn.find(className, primaryKey: primaryKeyValue) {
                                key = existing
                                updated += 1
                            } else {
                                key = try txn.create(className, primaryKey: primaryKeyValue)
                                created += 1
                            }
                            pending.append((cls, key, record, name))
                        }
                        if cls.primaryKey == nil, let reference = record["@key"] {
                            ordinals[className, default: [:]][JSONValue.write(reference)] = key
                        }
                    } catch {
                        throw ToolError.failure("\(name): \(error)")
                    }
                }
            }
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
                done += 1
                progress?.update(UInt64(done), UInt64(total))
            }
            progress?.update(UInt64(total), UInt64(total))
            return (created, updated)
        }
        print("imported into \(paths[0]): \(counts.created) created, \(counts.updated) updated")
    })
