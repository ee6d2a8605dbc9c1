// Copy.swift — `openrealm copy SRC DST`: a compacted copy (Realm's writeCopy), keeping the
// source's key, with another one, or decrypted.

import Foundation
import OpenRealm

let newKeyHelp = """
    the new key (for the copy or the replaced file), never on the command line:
      --new-key PATH      a file holding the 64-byte key, raw or as 128 hexadecimal digits
      OPENREALM_NEW_KEY   the environment variable, 128 hexadecimal digits
    """

let copyCommand = Subcommand(
    name: "copy",
    summary: "write a compacted copy of a file (writeCopy), with another key or decrypted",
    help: """
        usage: openrealm copy SRC DST [--key-file PATH] [--new-key PATH | --decrypt]

        Writes a compacted copy of the latest version of SRC to DST, which must not exist. The
        copy keeps SRC's key, or is encrypted with the new key, or is plain with --decrypt. DST
        appears only once it is whole. Progress goes to standard error.

        \(snapshotHelp)

        \(keyHelp)

        \(newKeyHelp)
        """,
    run: { arguments in
        let parsed = try Arguments(arguments, valueOptions: keyOptions.union(["--new-key"]), flagOptions: ["--decrypt"])
        let paths = try parsed.expect(2, "SRC and DST")
        let newKey = try givenKey(parsed, option: "--new-key", environment: "OPENREALM_NEW_KEY")
        if newKey != nil && parsed.flags.contains("--decrypt") { throw ToolError.usage("--new-key and --decrypt exclude each other") }
        let (file, key) = try openFile(paths[0], parsed, readOnly: true)
        let target = parsed.flags.contains("--decrypt") ? nil : newKey ?? key
        let progress = Progress("copy")
        try file.writeCopy(to: paths[1], encryptionKey: target) { progress.update($0, $1) }
        print("copied \(paths[0]) to \(paths[1]) (\(target == nil ? "plain" : "encrypted"))")
    })
