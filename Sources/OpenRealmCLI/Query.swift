// Query.swift — `openrealm query FILE CLASS [PREDICATE [ARGS...]]`: objects that match a
// predicate, sorted and limited, as a table, JSON or CSV.

import Foundation
import OpenRealm

let queryCommand = Subcommand(
    name: "query",
    summary: "objects of a class that match a predicate, as a table, JSON or CSV",
    help: """
        usage: openrealm query FILE CLASS [PREDICATE [ARGS...]] [--sort KEY[:desc][,KEY...]]
                               [--limit N] [--format table|json|csv] [--key-file PATH]

        Runs PREDICATE (Realm's predicate language, as Results.filter takes it:
        "age >= $0 AND name BEGINSWITH[c] $1"; default: every object) on CLASS and prints the
        matching objects. ARGS fill $0, $1, ... (or %@): an integer, a decimal number, true,
        false or null is taken as that value, anything else as a string. --sort orders by one
        or more key paths (ascending, or descending with :desc); --limit keeps the first N.
        Values are written as `openrealm export` writes them; links as the target's primary key.

        \(snapshotHelp)

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions.union(["--sort", "--limit", "--format"]))
        guard parsed.positionals.count >= 2 else { throw ToolError.usage(parsed.positionals.isEmpty ? "missing FILE and CLASS" : "missing CLASS") }
        let path = parsed.positionals[0]
        let className = parsed.positionals[1]
        let predicate = parsed.positionals.count > 2 ? parsed.positionals[2] : nil
        let queryArguments = parsed.positionals.dropFirst(3).map(argumentValue)
        let format = parsed.values["--format"] ?? "table"
        guard ["table", "json", "csv"].contains(format) else { throw ToolError.usage("--format is table, json or csv, not '\(format)'") }
        var limit: Int?
        if let text = parsed.values["--limit"] {
            guard let value = Int(text), value >= 0 else { throw ToolError.usage("--limit needs a number, not '\(text)'") }
            limit = value
        }
        var sort: [(keyPath: String, ascending: Bool)] = []
        if let text = parsed.values["--sort"] {
            // Every part names a key: an empty value or an empty part (",age", "age,,name") is
            // a mistake to report, not a key to skip.
            guard !text.isEmpty else { throw ToolError.usage("--sort needs KEY[:desc][,KEY...], not an empty value") }
            for (position, part) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
                guard !part.isEmpty else {
                    throw ToolError.usage("--sort '\(text)' has an empty key at position \(position + 1) (keys are separated by one comma)")
                }
                let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
                guard pieces.count <= 2, !pieces[0].isEmpty, pieces.count == 1 || ["asc", "desc"].contains(pieces[1]) else {
                    throw ToolError.usage("--sort takes KEY or KEY:desc, not '\(part)'")
                }
                sort.append((String(pieces[0]), pieces.count == 1 || pieces[1] == "asc"))
            }
        }
        let (file, _) = try openFile(path, parsed, readOnly: true)
        let out = Output()
        try file.read { txn in
            let schema = Dictionary(uniqueKeysWithValues: try txn.classes().map { ($0.name, $0) })
            guard let cls = schema[className] else { throw ToolError.failure("no class '\(className)' in the file") }
            let keys = try txn.query(className, predicate: predicate, arguments: queryArguments, sort: sort, limit: limit)
            let links = Records.exportLinks(txn, schema)
            let objects = try keys.map { key in try Records.objectJSON(txn, key, cls, schema, links, ordinal: nil) }
            switch format {
            case "json":
                try out.line("[")
                try out.append(objects.map { JSONValue.write($0) }.joined(separator: ",\n"))
                try out.line(objects.isEmpty ? "]" : "\n]")
            case "csv":
                try out.line(Records.csvLine(cls.properties.map(\.name)))
                for object in objects {
                    guard case .object(let entries) = object else { continue }
                    try out.line(Records.csvLine(entries.map { Records.cell($0.value) }))
                }
            default:
                let rows = objects.map { object -> [String] in
                    guard case .object(let entries) = object else { return [] }
                    return entries.map { Records.cell($0.value).replacingOccurrences(of: "\n", with: "\\n") }
                }
                for line in table([cls.properties.map(\.name)] + rows) {
                    try out.line(line.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
                }
                try out.line("(\(objects.count) object\(objects.count == 1 ? "" : "s"))")
            }
            try out.flush()
        }
    })

/// A query argument from the command line: an integer, a decimal number, a boolean, null, or
/// else a string.
func argumentValue(_ text: String) -> DynamicValue {
    if let value = Int64(text) { return .int(value) }
    if let value = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), value.isFinite { return .double(value) }
    switch text {
    case "true": return .bool(true)
    case "false": return .bool(false)
    case "null": return .null
    default: return .string(text)
    }
}
