// Decrypt.swift — `openrealm decrypt FILE`: an encrypted file made plain in place.

import Foundation
import OpenRealm

let decryptCommand = Subcommand(
    name: "decrypt",
    summary: "decrypt an encrypted file in place",
    help: """
        usage: openrealm decrypt FILE [--key-file PATH]

        Replaces the encrypted FILE by a plain copy: the copy is written beside it, verified
        and renamed over FILE. Refused, with nothing changed, while another process has FILE
        open. Progress goes to standard error.

        \(keyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions)
        let path = try parsed.expect(1, "FILE")[0]
        let (file, key) = try openFile(path, parsed, readOnly: false)
        guard key != nil else { throw ToolError.failure("'\(path)' is not encrypted") }
        try replaceThroughCopy(file, path, newKey: nil, label: "decrypt")
        print("decrypted \(path)")
    })
