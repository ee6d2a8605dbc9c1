// Info.swift — `openrealm info FILE`: sizes, versions, classes with their object counts.

import Foundation
import OpenRealm

let infoCommand = Subcommand(
    name: "info",
    summary: "sizes, versions and classes with object counts of a file",
    help: """
        usage: openrealm info FILE [--key-file PATH]

        Prints the file's path, whether it is encrypted, the engine version, the latest version,
        the schema version, sizes (on disk, logical, used, free), nodes, active versions, and
        every class with its number of objects. Opens the file read-only.

        \(snapshotHelp)

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions)
        let path = try parsed.expect(1, "FILE")[0]
        let (file, key) = try openFile(path, parsed, readOnly: true)
        let stats = try file.engine.verify()
        let (schemaVersion, classes) = try file.read { txn in
            (try txn.schemaVersion(), try txn.classes().map { ($0, try txn.objectCount(of: $0.name)) })
        }
        let lines = [
            ["file:", absolutePath(file.engine.path)],
            ["encrypted:", key == nil ? "no" : "yes"],
            ["engine:", StorageEngine.engineVersion],
            ["version:", "\(stats.version)"],
            ["schema version:", "\(schemaVersion)"],
            ["file size:", "\(stats.fileSize) bytes"],
            ["logical size:", "\(stats.logicalSize) bytes"],
            ["used:", "\(stats.usedBytes) bytes"],
            ["free:", "\(stats.freeBytes) bytes in \(stats.freeExtentCount) extents"],
            ["nodes:", "\(stats.nodeCount)"],
            ["active versions:", "\(stats.activeVersions)"],
        ]
        lines.forEach { print($0.joined(separator: " ")) }
        print("classes: \(classes.count)")
        table(classes.map { cls, count in
            [cls.name, "\(count) object\(count == 1 ? "" : "s")", cls.embedded ? "(embedded)" : ""]
        }, indent: "  ").forEach { print($0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)) }
    })
