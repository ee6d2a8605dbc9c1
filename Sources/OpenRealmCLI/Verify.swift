// Verify.swift — `openrealm verify FILE`: the file's integrity.

import Foundation
import OpenRealm

let verifyCommand = Subcommand(
    name: "verify",
    summary: "check the integrity of a file",
    help: """
        usage: openrealm verify FILE [--key-file PATH]

        Proves the latest version of the file sound (every reachable node and free range checked,
        nothing overlapping, nothing leaked): prints "ok" (exit 0), or the problem (exit 1).
        Opens the file read-only. Progress goes to standard error.

        \(snapshotHelp)

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions)
        let path = try parsed.expect(1, "FILE")[0]
        let (file, _) = try openFile(path, parsed, readOnly: true)
        let progress = Progress("verify")
        try file.verify { progress.update($0, $1) }
        print("ok")
    })
