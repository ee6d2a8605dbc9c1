// main.swift — the openrealm command-line tool: the list of subcommands, `--help`, `--version`,
// and exit codes (0 success, 1 an error with its message on standard error, 2 a usage error).
// Each subcommand lives in its own file.

import Foundation
import OpenRealm

let subcommands: [Subcommand] = [
    demoCommand, infoCommand, schemaCommand, verifyCommand, queryCommand, exportCommand, importCommand, copyCommand,
    compactCommand, encryptCommand, decryptCommand, rekeyCommand,
]

let usage = """
    usage: openrealm <command> [arguments]
           openrealm <command> --help
           openrealm --version

    commands:
    \(table(subcommands.map { [$0.name, $0.summary] }, indent: "  ").joined(separator: "\n"))

    exit status: 0 success, 1 an error (its message on standard error), 2 a usage error.
    """

/// Runs the command `arguments` name and returns the exit status.
func run(_ arguments: [String]) -> Int32 {
    guard let first = arguments.first else {
        printError(usage)
        return 2
    }
    switch first {
    case "--help", "-h", "help":
        print(usage)
        return 0
    case "--version":
        print("openrealm \(StorageEngine.engineVersion)")
        return 0
    default:
        break
    }
    guard let command = subcommands.first(where: { $0.name == first }) else {
        printError("openrealm: unknown command '\(first)'")
        printError(usage)
        return 2
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
        print(command.help)
        return 0
    }
    do {
        try command.run(rest)
        // What `print` wrote sits in stdio's buffer: a full disk or a closed pipe shows only when
        // it is flushed, and a result lost there (info, schema, verify) is an error, not exit 0.
        // (fflush(nil) flushes every stream, standard output among them, and fails if one fails.)
        if fflush(nil) != 0 {
            printError("openrealm \(command.name): cannot write the output: \(String(cString: strerror(errno)))")
            return 1
        }
        return 0
    } catch let error as ToolError where error.isUsage {
        printError("openrealm \(command.name): \(error)")
        printError(command.help)
        return 2
    } catch let error as EngineError where error.code == .fileFormatUpgradeRequired {
        printError("openrealm \(command.name): \(error) (it was written by a newer version of OpenRealm: upgrade openrealm to read it)")
        return 1
    } catch {
        printError("openrealm \(command.name): \(error)")
        return 1
    }
}

let status = run(Array(CommandLine.arguments.dropFirst()))
exit(status)
