// Compact.swift — `openrealm compact FILE`: the file compacted in place, keeping its key.

import Foundation
import OpenRealm

let compactCommand = Subcommand(
    name: "compact",
    summary: "compact a file in place (refused while another process has it open)",
    help: """
        usage: openrealm compact FILE [--key-file PATH]

        Writes a compacted copy of FILE beside it and renames it over FILE (a crash leaves either
        the old or the new file, each whole), keeping its key. Refused, with nothing changed,
        while another process has FILE open. Progress goes to standard error.

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions)
        let path = try parsed.expect(1, "FILE")[0]
        let (file, _) = try openFile(path, parsed, readOnly: false)
        let before = try file.engine.sizeInfo().totalBytes
        let progress = Progress("compact")
        try exclusive(path) { try file.compact { progress.update($0, $1) } }
        let after = try file.engine.sizeInfo().totalBytes
        print("compacted \(path): \(before) -> \(after) bytes")
    })

/// Runs `body`, turning the engine's "open in another handle or process" into the tool's words.
func exclusive<R>(_ path: String, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as EngineError where error.code == .alreadyOpen {
        throw ToolError.failure("'\(path)' is open in another process: nothing was changed (\(error))")
    }
}
