// Rekey.swift — `openrealm rekey FILE`: an encrypted file given a new key in place.

import Foundation
import OpenRealm

let rekeyCommand = Subcommand(
    name: "rekey",
    summary: "change the key of an encrypted file in place",
    help: """
        usage: openrealm rekey FILE [--key-file PATH] --new-key PATH

        Replaces the encrypted FILE by a copy encrypted with the new key: the copy is written
        beside it, verified with the new key and renamed over FILE. Refused, with nothing
        changed, while another process has FILE open. Progress goes to standard error.

        \(keyHelp)

        \(newKeyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions.union(["--new-key"]))
        let path = try parsed.expect(1, "FILE")[0]
        guard let newKey = try givenKey(parsed, option: "--new-key", environment: "OPENREALM_NEW_KEY") else {
            throw ToolError.usage("rekey needs the new key: --new-key PATH or OPENREALM_NEW_KEY")
        }
        let (file, key) = try openFile(path, parsed, readOnly: false)
        guard key != nil else { throw ToolError.failure("'\(path)' is not encrypted: use encrypt") }
        try replaceThroughCopy(file, path, newKey: newKey, label: "rekey")
        print("rekeyed \(path)")
    })
