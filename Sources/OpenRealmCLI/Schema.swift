// Schema.swift — `openrealm schema FILE`: classes, properties, types, primary keys, indexes,
// links and embedded classes.

import Foundation
import OpenRealm

let schemaCommand = Subcommand(
    name: "schema",
    summary: "classes, properties, types, primary keys, indexes and links of a file",
    help: """
        usage: openrealm schema FILE [--key-file PATH]

        Prints every class of the file (embedded ones marked), and each of its properties with
        its type as Realm writes it (int, string?, Dog, Dog[], int<>, double{}, mixed), primary
        key, index and link target. Opens the file read-only.

        \(snapshotHelp)

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions)
        let path = try parsed.expect(1, "FILE")[0]
        let (file, _) = try openFile(path, parsed, readOnly: true)
        let classes = try file.read { txn in try txn.classes() }
        let embedded = Set(classes.filter(\.embedded).map(\.name))
        for (index, cls) in classes.enumerated() {
            if index > 0 { print("") }
            var header = "class \(cls.name)"
            if cls.embedded { header += " (embedded)" }
            if let key = cls.primaryKey { header += " (primary key: \(key))" }
            print(header)
            let rows = cls.properties.map { property -> [String] in
                var notes: [String] = []
                if property.primaryKey { notes.append("primary key") } else if property.indexed { notes.append("indexed") }
                if let target = property.target {
                    notes.append(embedded.contains(target) ? "embedded \(target)" : "link to \(target)")
                }
                return [property.name, property.typeText, notes.joined(separator: ", ")]
            }
            table(rows, indent: "  ").forEach { print($0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)) }
        }
    })
