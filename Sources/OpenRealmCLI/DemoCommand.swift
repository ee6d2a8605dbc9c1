// DemoCommand.swift — `openrealm demo [FILE]` (the demo itself is Demo.swift).

import Foundation

let demoCommand = Subcommand(
    name: "demo",
    summary: "a small app on the Realm Swift API, written to an encrypted file",
    help: """
        usage: openrealm demo [FILE]

        A small app on the Realm Swift API: writes people with embedded dogs and best-friend links
        to FILE (default: openrealm-demo.realm in the current directory), encrypted with a demo
        key (the 64 bytes of "\(demoKeyPhrase)"); reopens it, queries it, writes a compacted copy
        (FILE without .realm + .compacted.realm) and compacts FILE on launch. The files of a
        previous demo run at those paths are replaced.
        """,
    run: { arguments in
        let parsed = try Arguments(arguments)
        guard parsed.positionals.count <= 1 else { throw ToolError.usage("unexpected argument '\(parsed.positionals[1])'") }
        try Demo(path: parsed.positionals.first ?? "openrealm-demo.realm").run()
    })
