// ToolTests.swift — the `openrealm` tool run as a process: help and exit codes, keys from a
// key file and from OPENREALM_KEY, a wrong key, export -> import -> export byte-identical.

import Foundation
import Testing

/// The built tool: next to the test bundle in the products directory.
let toolURL: URL = {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = exe.deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent("openrealm")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return exe.deletingLastPathComponent().appendingPathComponent("openrealm")
}()

struct Run {
    let status: Int32
    let stdout: String
    let stderr: String
}

func tool(_ arguments: [String], environment: [String: String] = [:], in directory: URL,
          executable: URL = toolURL, prefix: [String] = []) throws -> Run {
    let process = Process()
    process.executableURL = executable
    process.arguments = prefix + arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "OPENREALM_KEY")
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
               stderr: String(decoding: errData, as: UTF8.self))
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

let demoKey = "OpenRealm demo key: never hard-code a real key in an app!!!!!!!!"
let demoKeyHex = Array(demoKey.utf8).map { String(format: "%02x", $0) }.joined()

/// A directory with the demo's encrypted file `d.realm` and its raw key in `k.bin`.
func demoDirectory() throws -> URL {
    let directory = try temporaryDirectory()
    let demo = try tool(["demo", "d.realm"], in: directory)
    #expect(demo.status == 0, "\(demo.stderr)")
    try Data(demoKey.utf8).write(to: directory.appendingPathComponent("k.bin"))
    return directory
}

@Suite("openrealm tool") struct ToolTests {
    @Test func versionHelpAndUsageErrors() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = try tool(["--version"], in: directory)
        #expect(version.status == 0 && version.stdout.hasPrefix("openrealm "))
        #expect(try tool([], in: directory).status == 2)
        let unknown = try tool(["frobnicate"], in: directory)
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown command 'frobnicate'"))
        for command in ["demo", "info", "schema", "verify", "query", "export", "import", "copy", "compact", "encrypt", "decrypt", "rekey"] {
            let help = try tool([command, "--help"], in: directory)
            #expect(help.status == 0 && help.stdout.contains("usage: openrealm \(command)"), "\(command)")
        }
        #expect(try tool(["info"], in: directory).status == 2)
        #expect(try tool(["info", "a", "b"], in: directory).status == 2)
        #expect(try tool(["info", "x.realm", "--bogus"], in: directory).status == 2)
        #expect(try tool(["query", "x.realm", "P", "--limit", "many"], in: directory).status == 2)
        #expect(try tool(["export", "x.realm", "--format", "xml"], in: directory).status == 2)
        let missing = try tool(["info", "missing.realm"], in: directory)
        #expect(missing.status == 1 && missing.stderr.contains("missing.realm"))
    }

    @Test func encryptedFileWithKeyFileEnvironmentAndWrongKey() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let noKey = try tool(["info", "d.realm"], in: directory)
        #expect(noKey.status == 1 && noKey.stderr.contains("encrypted") && noKey.stderr.contains("--key-file PATH or OPENREALM_KEY"), "\(noKey.stderr)")
        let withFile = try tool(["info", "d.realm", "--key-file", "k.bin"], in: directory)
        #expect(withFile.status == 0, "\(withFile.stderr)")
        #expect(withFile.stdout.contains("encrypted: yes"))
        #expect(withFile.stdout.contains("Person  6 objects"))
        #expect(withFile.stdout.contains("Dog     8 objects  (embedded)"))
        try Data(demoKeyHex.utf8 + [10]).write(to: directory.appendingPathComponent("k.hex"))
        #expect(try tool(["verify", "d.realm", "--key-file", "k.hex"], in: directory).stdout == "ok\n")
        let schema = try tool(["schema", "d.realm"], environment: ["OPENREALM_KEY": demoKeyHex], in: directory)
        #expect(schema.status == 0, "\(schema.stderr)")
        #expect(schema.stdout.contains("class Person (primary key: id)"))
        #expect(schema.stdout.contains("dogs        Dog[]   embedded Dog"))
        #expect(schema.stdout.contains("bestFriend  Person  link to Person"))
        let wrong = String(repeating: "ab", count: 64)
        let wrongKey = try tool(["verify", "d.realm"], environment: ["OPENREALM_KEY": wrong], in: directory)
        #expect(wrongKey.status == 1 && wrongKey.stderr.contains("decryption failed"), "\(wrongKey.stderr)")
        let badKey = try tool(["info", "d.realm"], environment: ["OPENREALM_KEY": "abc"], in: directory)
        #expect(badKey.status == 1 && badKey.stderr.contains("128 hexadecimal digits"))
        let directoryKey = try tool(["info", "d.realm", "--key-file", "."], in: directory)
        #expect(directoryKey.status == 1 && directoryKey.stderr.contains("cannot read the key file '.': it is a directory"), "\(directoryKey.stderr)")
        let missingKey = try tool(["info", "d.realm", "--key-file", "none.bin"], in: directory)
        #expect(missingKey.status == 1 && missingKey.stderr.contains("cannot read the key file 'none.bin': No such file or directory"), "\(missingKey.stderr)")
    }

    /// 128 characters that are not hexadecimal: the message says so (not "found 128 bytes", which
    /// reads as the wrong length); encrypting an encrypted file points to rekey. Nothing changes.
    @Test func notHexadecimalKeyAndEncryptingAnEncryptedFile() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("d.realm")
        let before = try Data(contentsOf: path)
        try Data(String(repeating: "zz", count: 64).utf8).write(to: directory.appendingPathComponent("z.hex"))
        let notHex = try tool(["info", "d.realm", "--key-file", "z.hex"], in: directory)
        #expect(notHex.status == 1 && notHex.stderr == "openrealm info: key file 'z.hex': a key is 64 bytes, or 128 hexadecimal digits "
            + "(found 128 characters, not all hexadecimal digits)\n", "\(notHex.stderr)")
        let encrypt = try tool(["encrypt", "d.realm", "--new-key", "k.bin"], in: directory)
        #expect(encrypt.status == 1 && encrypt.stderr == "openrealm encrypt: 'd.realm' is already encrypted: use rekey\n", "\(encrypt.stderr)")
        #expect(try Data(contentsOf: path) == before)
    }

    @Test func query() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let env = ["OPENREALM_KEY": demoKeyHex]
        let table = try tool(["query", "d.realm", "Person", "age > $0", "30", "--sort", "age:desc"], environment: env, in: directory)
        #expect(table.status == 0, "\(table.stderr)")
        let names = table.stdout.split(separator: "\n").dropFirst().prefix(4).map { $0.split(separator: " ")[1] }
        #expect(names == ["Frank", "Carol", "Erin", "Alice"])
        #expect(table.stdout.hasSuffix("(4 objects)\n"))
        let json = try tool(["query", "d.realm", "Person", "name == $0", "Bob", "--format", "json"], environment: env, in: directory)
        #expect(json.stdout == "[\n{\"id\":2,\"name\":\"Bob\",\"age\":29,\"dogs\":[{\"name\":\"Fido\",\"age\":2}],\"bestFriend\":1}\n]\n")
        let csv = try tool(["query", "d.realm", "Person", "--sort", "id", "--limit", "1", "--format", "csv"], environment: env, in: directory)
        #expect(csv.stdout == "id,name,age,dogs,bestFriend\n1,Alice,34,\"[{\"\"name\"\":\"\"Rex\"\",\"\"age\"\":3},{\"\"name\"\":\"\"Rusty\"\",\"\"age\"\":7}]\",3\n")
        let bad = try tool(["query", "d.realm", "Person", "agee > 3"], environment: env, in: directory)
        #expect(bad.status == 1 && bad.stderr.contains("agee"), "\(bad.stderr)")
    }

    /// `--sort ""` ordered nothing, and empty parts ("age,", ",age", "age,,name") were skipped
    /// without a word: each is a usage error (exit 2) that says what is wrong.
    @Test func sortWithEmptyPartsIsAUsageError() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let env = ["OPENREALM_KEY": demoKeyHex]
        let empty = try tool(["query", "d.realm", "Person", "--sort", ""], environment: env, in: directory)
        #expect(empty.status == 2 && empty.stderr.contains("--sort needs KEY[:desc][,KEY...], not an empty value"), "\(empty.stderr)")
        for (spec, position) in [("age,", 2), (",age", 1), ("age,,name", 2), (",", 1)] {
            let run = try tool(["query", "d.realm", "Person", "--sort", spec], environment: env, in: directory)
            #expect(run.status == 2 && run.stderr.contains("--sort '\(spec)' has an empty key at position \(position)"),
                    "\(spec): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(spec): \(run.stdout)")
        }
        let noKey = try tool(["query", "d.realm", "Person", "--sort", "age,:desc"], environment: env, in: directory)
        #expect(noKey.status == 2 && noKey.stderr.contains("--sort takes KEY or KEY:desc, not ':desc'"), "\(noKey.stderr)")
        let good = try tool(["query", "d.realm", "Person", "--sort", "age:desc,name", "--limit", "1"], environment: env, in: directory)
        #expect(good.status == 0 && good.stdout.contains("Frank"), "\(good.stderr)")
    }

    @Test func demoExportImportExportIsByteIdentical() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let env = ["OPENREALM_KEY": demoKeyHex]
        let first = try tool(["export", "d.realm"], environment: env, in: directory)
        #expect(first.status == 0, "\(first.stderr)")
        try Data(first.stdout.utf8).write(to: directory.appendingPathComponent("e1.json"))
        let imported = try tool(["import", "copy.realm", "e1.json"], in: directory)
        #expect(imported.status == 0 && imported.stdout.contains("6 created"), "\(imported.stderr)")
        let second = try tool(["export", "copy.realm"], in: directory)
        #expect(second.stdout == first.stdout)
        // Importing again updates by primary key.
        let again = try tool(["import", "copy.realm", "e1.json"], in: directory)
        #expect(again.stdout.contains("0 created, 6 updated"))
        #expect(try tool(["export", "copy.realm"], in: directory).stdout == first.stdout)
    }

    @Test func everyTypeRoundTripsAndBadRecordsCommitNothing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = #"""
            {"format":"openrealm-export","version":1,"schema":[
            {"name":"Address","embedded":true,"properties":[{"name":"city","type":"string"},{"name":"tags","type":"string","collection":"list"}]},
            {"name":"Note","properties":[{"name":"text","type":"string"},{"name":"next","type":"object","optional":true,"target":"Note"}]},
            {"name":"All","properties":[{"name":"id","type":"objectId","primaryKey":true},{"name":"i","type":"int","indexed":true},{"name":"b","type":"bool"},{"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string","optional":true},{"name":"data","type":"data"},{"name":"date","type":"date"},{"name":"dec","type":"decimal128"},{"name":"oid","type":"objectId","optional":true},{"name":"u","type":"uuid"},{"name":"m","type":"mixed"},{"name":"home","type":"object","optional":true,"target":"Address"},{"name":"addresses","type":"object","collection":"list","target":"Address"},{"name":"note","type":"object","optional":true,"target":"Note"},{"name":"notes","type":"object","collection":"set","target":"Note"},{"name":"ints","type":"int","collection":"list","optional":true},{"name":"doubles","type":"double","collection":"set"},{"name":"scores","type":"mixed","collection":"dictionary"},{"name":"peer","type":"object","optional":true,"target":"All"}]}
            ],"objects":{
            "All":[
            {"id":"65a1b2c3d4e5f60718293a4b","i":-9223372036854775808,"b":true,"f":0.1,"d":1e-300,"s":"tab\tquote\"é😀","data":"AAEC/w==","date":"2024-02-29T23:59:59.123456789Z","dec":"-12.500","oid":null,"u":"0f8fad5b-d9cb-469f-a165-70867728950e","m":{"list":[{"int":1},{"decimal128":"1E+40"},{"dictionary":{"k":{"date":"1969-12-31T23:59:59.999999999Z"}}},{"object":{"class":"Note","key":1}}]},"home":{"city":"Oslo","tags":["a","b"]},"addresses":[{"city":"Rome","tags":[]}],"note":0,"notes":[0,1],"ints":[3,null,-1],"doubles":["-Infinity",2.5,"NaN"],"scores":{"a":{"float":1.5},"b":null,"c":{"data":""}},"peer":"65a1b2c3d4e5f60718293a4c"},
            {"id":"65a1b2c3d4e5f60718293a4c","i":9223372036854775807,"b":false,"f":"Infinity","d":-0.0,"s":null,"data":"","date":"0001-01-01T00:00:00.000000000Z","dec":"NaN","oid":"000000000000000000000000","u":"00000000-0000-0000-0000-000000000000","m":null,"home":null,"addresses":[],"note":null,"notes":[],"ints":[],"doubles":[],"scores":{},"peer":"65a1b2c3d4e5f60718293a4b"}
            ],
            "Note":[
            {"@key":0,"text":"first","next":1},
            {"@key":1,"text":"second","next":null}
            ]
            }}
            """#
        try Data(source.utf8).write(to: directory.appendingPathComponent("source.json"))
        let keyHex = String(repeating: "0123456789abcdef", count: 8)
        try Data(keyHex.utf8).write(to: directory.appendingPathComponent("key.hex"))
        let created = try tool(["import", "all.realm", "source.json", "--key-file", "key.hex"], in: directory)
        #expect(created.status == 0, "\(created.stderr)")
        let first = try tool(["export", "all.realm", "--key-file", "key.hex"], in: directory)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains(#""date":"2024-02-29T23:59:59.123456789Z""#))
        #expect(first.stdout.contains(#""dec":"-12.500""#))
        #expect(first.stdout.contains(#""i":-9223372036854775808"#))
        #expect(first.stdout.contains(#"{"date":"1969-12-31T23:59:59.999999999Z"}"#))
        try Data(first.stdout.utf8).write(to: directory.appendingPathComponent("e1.json"))
        #expect(try tool(["import", "plain.realm", "e1.json"], in: directory).status == 0)
        let info = try tool(["info", "all.realm", "--key-file", "key.hex"], in: directory)
        #expect(info.stdout.contains("encrypted: yes"))
        #expect(info.stdout.hasSuffix("classes: 3\n  Address  2 objects  (embedded)\n  All      2 objects\n  Note     2 objects\n"), "\(info.stdout)")
        let schema = try tool(["schema", "plain.realm"], in: directory).stdout
        for line in ["class Address (embedded)", "class All (primary key: id)", "  id         objectId    primary key",
                     "  i          int         indexed", "  s          string?", "  m          mixed",
                     "  home       Address     embedded Address", "  addresses  Address[]   embedded Address",
                     "  notes      Note<>      link to Note", "  ints       int?[]", "  doubles    double<>", "  scores     mixed{}"] {
            #expect(schema.contains(line + "\n"), "\(line)")
        }
        let csv = try tool(["export", "plain.realm", "--class", "Note", "--format", "csv"], in: directory)
        #expect(csv.stdout == "@key,text,next\n0,first,1\n1,second,\n")
        let second = try tool(["export", "plain.realm"], in: directory)
        #expect(second.stdout == first.stdout)

        // A bad record: an error naming it, and nothing of the import committed.
        let bad = first.stdout.replacingOccurrences(of: #""i":9223372036854775807"#, with: #""i":"seven""#)
            .replacingOccurrences(of: #""text":"first""#, with: #""text":"changed""#)
        try Data(bad.utf8).write(to: directory.appendingPathComponent("bad.json"))
        let refused = try tool(["import", "plain.realm", "bad.json"], in: directory)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("'All' (id \"65a1b2c3d4e5f60718293a4c\")"), "\(refused.stderr)")
        #expect(refused.stderr.contains("property 'i'"), "\(refused.stderr)")
        #expect(try tool(["export", "plain.realm"], in: directory).stdout == first.stdout)
    }
}

@Suite("openrealm key prompt") struct PromptTests {
    /// On a terminal (a pseudo-terminal of script(1)), the key is asked for and not echoed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func promptsForTheKeyWithoutEcho() throws {
        let directory = try demoDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", "'\(toolURL.path)' verify d.realm", "/dev/null"]
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "OPENREALM_KEY")
        process.environment = env
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var seen = Data()
        let deadline = Date().addingTimeInterval(30)
        while !String(decoding: seen, as: UTF8.self).contains("128 hexadecimal digits): "), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        #expect(String(decoding: seen, as: UTF8.self).contains("key of 'd.realm'"))
        input.fileHandleForWriting.write(Data((demoKeyHex + "\n").utf8))
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        let text = String(decoding: seen, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("ok"))
        #expect(!text.contains(demoKeyHex.prefix(16)), "the key was echoed: \(text)")
    }
}
