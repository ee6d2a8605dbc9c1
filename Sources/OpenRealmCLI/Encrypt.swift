// Encrypt.swift — `openrealm encrypt FILE`: a plain file encrypted in place with a new key.

import Foundation
import OpenRealm

let encryptCommand = Subcommand(
    name: "encrypt",
    summary: "encrypt a plain file in place with a new key",
    help: """
        usage: openrealm encrypt FILE --new-key PATH

        Replaces the plain FILE by an encrypted copy: the copy is written beside it, verified
        with the new key and renamed over FILE. Refused, with nothing changed, while another
        process has FILE open (FILE is compacted first: that step needs the only handle).
        Progress goes to standard error.

        \(newKeyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: ["--new-key"])
        let path = try parsed.expect(1, "FILE")[0]
        guard let newKey = try givenKey(parsed, option: "--new-key", environment: "OPENREALM_NEW_KEY") else {
            throw ToolError.usage("encrypt needs the new key: --new-key PATH or OPENREALM_NEW_KEY")
        }
        try refuseEmptyFile(path)
        let file: DynamicFile
        do {
            file = try DynamicFile(path: path, encryptionKey: nil, readOnly: false)
        } catch let error as EngineError where error.code == .invalidDatabase
                    && error.message.contains("is encrypted and no encryption key was given") {
            throw ToolError.failure("'\(path)' is already encrypted: use rekey")
        }
        try replaceThroughCopy(file, path, newKey: newKey, label: "encrypt")
        print("encrypted \(path)")
    })
