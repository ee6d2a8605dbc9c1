// CopyTests.swift — copy, compact, encrypt, decrypt and rekey run as processes: keys, the data
// kept (exports equal), progress lines, and the refusal while another process has the file.

import Foundation
import OpenRealm
import Testing

@Suite("openrealm copies and keys") struct CopyTests {
    /// A directory with `p.realm`, a plain file imported from the demo's export (`e.json`), and
    /// key files `a.hex` and `b.bin`.
    func prepared() throws -> (URL, String) {
        let directory = try demoDirectory()
        let export = try tool(["export", "d.realm", "--key-file", "k.bin"], in: directory)
        try Data(export.stdout.utf8).write(to: directory.appendingPathComponent("e.json"))
        #expect(try tool(["import", "p.realm", "e.json"], in: directory).status == 0)
        try Data(String(repeating: "a1", count: 64).utf8).write(to: directory.appendingPathComponent("a.hex"))
        try Data((0..<64).map { UInt8($0 * 3) }).write(to: directory.appendingPathComponent("b.bin"))
        return (directory, export.stdout)
    }

    @Test func copies() throws {
        let (directory, export) = try prepared()
        defer { try? FileManager.default.removeItem(at: directory) }
        let kept = try tool(["copy", "d.realm", "c1.realm", "--key-file", "k.bin"], in: directory)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stderr.contains("copy: 100%"), "\(kept.stderr)")
        #expect(try tool(["export", "c1.realm", "--key-file", "k.bin"], in: directory).stdout == export)
        #expect(try tool(["copy", "d.realm", "c2.realm", "--key-file", "k.bin", "--decrypt"], in: directory).status == 0)
        #expect(try tool(["export", "c2.realm"], in: directory).stdout == export)
        #expect(try tool(["copy", "p.realm", "c3.realm", "--new-key", "a.hex"], in: directory).status == 0)
        #expect(try tool(["export", "c3.realm"], in: directory).status == 1)
        #expect(try tool(["export", "c3.realm", "--key-file", "a.hex"], in: directory).stdout == export)
        let exists = try tool(["copy", "p.realm", "c3.realm"], in: directory)
        #expect(exists.status == 1 && exists.stderr.contains("c3.realm"), "\(exists.stderr)")
        #expect(try tool(["copy", "p.realm", "c4.realm", "--new-key", "a.hex", "--decrypt"], in: directory).status == 2)
    }

    @Test func compactEncryptRekeyDecrypt() throws {
        let (directory, export) = try prepared()
        defer { try? FileManager.default.removeItem(at: directory) }
        let compacted = try tool(["compact", "p.realm"], in: directory)
        #expect(compacted.status == 0 && compacted.stdout.hasPrefix("compacted p.realm"), "\(compacted.stderr)")
        #expect(try tool(["encrypt", "p.realm"], in: directory).status == 2)
        let encrypted = try tool(["encrypt", "p.realm", "--new-key", "a.hex"], in: directory)
        #expect(encrypted.status == 0 && encrypted.stderr.contains("encrypt: 100%"), "\(encrypted.stderr)")
        #expect(try tool(["verify", "p.realm"], in: directory).status == 1)
        #expect(try tool(["export", "p.realm", "--key-file", "a.hex"], in: directory).stdout == export)
        let wrong = try tool(["rekey", "p.realm", "--key-file", "b.bin", "--new-key", "a.hex"], in: directory)
        #expect(wrong.status == 1 && wrong.stderr.contains("decryption failed"), "\(wrong.stderr)")
        let rekeyed = try tool(["rekey", "p.realm", "--key-file", "a.hex"], environment: ["OPENREALM_NEW_KEY": String(repeating: "5c", count: 64)], in: directory)
        #expect(rekeyed.status == 0, "\(rekeyed.stderr)")
        #expect(try tool(["export", "p.realm", "--key-file", "a.hex"], in: directory).status == 1)
        let newEnv = ["OPENREALM_KEY": String(repeating: "5c", count: 64)]
        #expect(try tool(["export", "p.realm"], environment: newEnv, in: directory).stdout == export)
        #expect(try tool(["decrypt", "p.realm"], environment: newEnv, in: directory).status == 0)
        #expect(try tool(["verify", "p.realm"], in: directory).stdout == "ok\n")
        #expect(try tool(["export", "p.realm"], in: directory).stdout == export)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        // No copy is left beside the file.
        #expect(names.filter { $0.hasPrefix("p.realm") }.sorted() == ["p.realm", "p.realm.lock"], "\(names)")
    }

    @Test func refusedWhileAnotherProcessHasTheFileOpen() throws {
        let (directory, export) = try prepared()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("p.realm").path
        do {
            let holder = try StorageEngine(path: path)
            for arguments in [["compact", "p.realm"], ["encrypt", "p.realm", "--new-key", "a.hex"]] {
                let refused = try tool(arguments, in: directory)
                #expect(refused.status == 1, "\(arguments)")
                #expect(refused.stderr.contains("is open in another process"), "\(refused.stderr)")
            }
            withExtendedLifetime(holder) {}
        }
        #expect(try tool(["export", "p.realm"], in: directory).stdout == export)
        #expect(try tool(["encrypt", "p.realm", "--new-key", "a.hex"], in: directory).status == 0)
    }
}

@Suite("openrealm progress") struct ProgressTests {
    /// Exports of 10,000 objects or more and imports of 256 KB of JSON or more report progress
    /// on standard error (plain lines when it is not a terminal); smaller ones print none. A verify reports the bytes it
    /// checked.
    @Test func largeExportAndImportReportProgress() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var text = #"{"format":"openrealm-export","version":1,"schema":["# + "\n"
            + #"{"name":"Item","properties":[{"name":"id","type":"int","primaryKey":true},{"name":"name","type":"string"}]}"#
            + "\n],\"objects\":{\n\"Item\":[\n"
        text += (0..<12_000).map { #"{"id":\#($0),"name":"item \#($0)"}"# }.joined(separator: ",\n")
        text += "\n]\n}}\n"
        try Data(text.utf8).write(to: directory.appendingPathComponent("items.json"))
        let imported = try tool(["import", "items.realm", "items.json"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        // Imports count bytes of JSON (the number of objects is known only at the end).
        #expect(imported.stderr.range(of: #"import: 100% ([0-9.]+ KB) of \1, [0-9.]+ [KMG]?B/s, "#, options: .regularExpression) != nil,
                "\(imported.stderr)")
        let exported = try tool(["export", "items.realm"], in: directory)
        #expect(exported.stdout == text)
        #expect(exported.stderr.contains("export: 100% 12000 objects of 12000 objects"), "\(exported.stderr)")
        let verified = try tool(["verify", "items.realm"], in: directory)
        #expect(verified.stdout == "ok\n")
        #expect(verified.stderr.range(of: #"^verify: 100% [0-9.]+ KB of [0-9.]+ KB, "#, options: .regularExpression) != nil,
                "\(verified.stderr)")
        let csv = try tool(["export", "items.realm", "--class", "Item", "--format", "csv"], in: directory)
        #expect(csv.stdout.hasPrefix("id,name\n0,item 0\n1,item 1\n"))
        let small = try tool(["query", "items.realm", "Item", "id < 3"], in: directory)
        #expect(small.status == 0 && small.stderr.isEmpty)
    }

    /// On a terminal (a pseudo-terminal of script(1)), progress is a bar redrawn in place: a
    /// carriage return and an erase-line before each redraw, the percent, the count, the rate,
    /// and a full bar and a newline at the end; for a verify, bytes.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func barOnATerminal() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var text = #"{"format":"openrealm-export","version":1,"schema":["# + "\n"
            + #"{"name":"Item","properties":[{"name":"id","type":"int","primaryKey":true},{"name":"name","type":"string"}]}"#
            + "\n],\"objects\":{\n\"Item\":[\n"
        text += (0..<12_000).map { #"{"id":\#($0),"name":"item \#($0)"}"# }.joined(separator: ",\n")
        text += "\n]\n}}\n"
        try Data(text.utf8).write(to: directory.appendingPathComponent("items.json"))
        for command in ["'\(toolURL.path)' import items.realm items.json", "'\(toolURL.path)' export items.realm > out.json"] {
            let run = try tool(["-q", "-e", "-c", command, "/dev/null"], in: directory,
                               executable: URL(fileURLWithPath: "/usr/bin/script"))
            #expect(run.status == 0, "\(run.stdout)")
            let verb = command.contains(" import ") ? "import" : "export"
            #expect(run.stdout.hasPrefix("\r\u{1B}[K["), "\(run.stdout.prefix(80))")
            if verb == "export" {
                #expect(run.stdout.contains("\r\u{1B}[K[" + String(repeating: "#", count: 20) + "] export: 100% 12000 objects of 12000 objects, "),
                        "\(run.stdout.suffix(200))")
                #expect(run.stdout.contains(" objects/s, "), "\(run.stdout.suffix(200))")
            } else {
                #expect(run.stdout.range(of: #"\r\x{1B}\[K\[#{20}\] import: 100% ([0-9.]+ KB) of \1, [0-9.]+ [KMG]?B/s, "#,
                                         options: .regularExpression) != nil, "\(run.stdout.suffix(200))")
            }
        }
        #expect(try String(contentsOf: directory.appendingPathComponent("out.json"), encoding: .utf8) == text)
        let verify = try tool(["-q", "-e", "-c", "'\(toolURL.path)' verify items.realm", "/dev/null"], in: directory,
                              executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(verify.stdout.hasPrefix("\r\u{1B}[K["), "\(verify.stdout.prefix(80))")
        #expect(verify.stdout.range(of: #"\r\x{1B}\[K\[#{20}\] verify: 100% ([0-9.]+ KB) of \1, [0-9.]+ [KMG]?B/s, "#,
                                    options: .regularExpression) != nil, "\(verify.stdout.suffix(200))")
        #expect(verify.stdout.hasSuffix("ok\r\n"), "\(verify.stdout.suffix(200))")
    }
}
