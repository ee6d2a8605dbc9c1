// Export.swift — `openrealm export FILE [--class C] [--format json|csv]`: objects as lossless
// JSON (with the schema, so that `import` can recreate the file) or as CSV.

import Foundation
import OpenRealm

let exportCommand = Subcommand(
    name: "export",
    summary: "write the objects of a file as JSON (lossless, importable) or CSV",
    help: """
        usage: openrealm export FILE [--class CLASS] [--format json|csv] [--key-file PATH]

        Writes to standard output every object of every top-level class (or of CLASS) in key
        order. JSON (the default) holds the schema and the objects, one per line, and `openrealm
        import` reads it back exactly:
          {"format":"openrealm-export","version":1,"schema":[...],"objects":{"Person":[{...},...]}}
        Values by type: int a number; bool; float and double their shortest exact text ("NaN",
        "Infinity" and "-Infinity" as strings); string; data base64; date
        "YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ" (UTC, nanoseconds); decimal128, objectId and uuid their
        text; a link the target's primary key, or for a class without one the target's "@key"
        (its position in key order, written first in each of its objects); embedded objects
        nested; lists and sets arrays; dictionaries objects; mixed values {"type": value}, e.g.
        {"int": 5}, {"object": {"class": "Person", "key": 1}}, {"list": [...]}.
        CSV needs --class: a header of property names, then one line per object (collections,
        embedded objects and mixed values as their JSON). Exports of 10,000 objects or more
        report progress on standard error.

        \(snapshotHelp)

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions.union(["--class", "--format"]))
        let path = try parsed.expect(1, "FILE")[0]
        let format = parsed.values["--format"] ?? "json"
        guard format == "json" || format == "csv" else { throw ToolError.usage("--format is json or csv, not '\(format)'") }
        if format == "csv" && parsed.values["--class"] == nil { throw ToolError.usage("--format csv needs --class") }
        let (file, _) = try openFile(path, parsed, readOnly: true)
        let out = Output()
        try file.read { txn in
            let classes = try txn.classes()
            let schema = Dictionary(uniqueKeysWithValues: classes.map { ($0.name, $0) })
            var exported = classes.filter { !$0.embedded }
            if let only = parsed.values["--class"] {
                guard let cls = schema[only] else { throw ToolError.failure("no class '\(only)' in the file") }
                guard !cls.embedded else { throw ToolError.failure("'\(only)' is embedded: its objects are exported inside their parents") }
                exported = [cls]
            }
            let links = Records.exportLinks(txn, schema)
            if format == "csv" {
                let cls = exported[0]
                let ordinals = cls.primaryKey == nil
                try out.line(Records.csvLine((ordinals ? ["@key"] : []) + cls.properties.map(\.name)))
                for (index, key) in try txn.objectKeys(of: cls.name).enumerated() {
                    guard case .object(let entries) = try Records.objectJSON(txn, key, cls, schema, links, ordinal: ordinals ? index : nil) else { continue }
                    try out.line(Records.csvLine(entries.map { Records.cell($0.value) }))
                }
                try out.flush()
                return
            }
            let total = try exported.reduce(0) { $0 + (try txn.objectCount(of: $1.name)) }
            let progress = total >= Progress.objectThreshold ? Progress("export", unit: .objects) : nil
            var done = 0
            try out.line("{\"format\":\"openrealm-export\",\"version\":1,\"schema\":[")
            try out.append(classes.map { JSONValue.write(Records.schemaJSON($0)) }.joined(separator: ",\n"))
            try out.line("\n],\"objects\":{")
            for (classIndex, cls) in exported.enumerated() {
                try out.append(classIndex > 0 ? ",\n" : "")
                try out.appendJSON(.string(cls.name))
                try out.line(":[")
                if Records.scalarsOnly(cls) {
                    // Straight from blocks of values to bytes.
                    let before = done
                    try Rows.export(txn, cls, to: out) { written in
                        done = before + written
                        progress?.update(UInt64(done), UInt64(total))
                    }
                } else {
                    for (index, key) in try txn.objectKeys(of: cls.name).enumerated() {
                        if index > 0 { try out.append(",\n") }
                        try out.appendJSON(try Records.objectJSON(txn, key, cls, schema, links, ordinal: cls.primaryKey == nil ? index : nil))
                        done += 1
                        progress?.update(UInt64(done), UInt64(total))
                    }
                }
                try out.append("\n]")
            }
            try out.line("\n}}")
            if total == 0 || done < total { progress?.update(UInt64(total), UInt64(total)) }
            try out.flush()
        }
    })
