// ImportExportTests.swift — export and import of classes whose properties are all scalars (the
// fast path that reads blocks of values and writes bytes, and reads records token by token):
// every scalar type round-trips byte-identical, and every bad input is an error that names it
// and commits nothing.

import Foundation
import Testing

@Suite("openrealm import and export of scalar classes") struct ImportExportTests {
    static let schema = #"""
        {"format":"openrealm-export","version":1,"schema":[
        {"name":"Plain","properties":[{"name":"name","type":"string"},{"name":"n","type":"int"}]},
        {"name":"Scalars","properties":[{"name":"id","type":"int","primaryKey":true},{"name":"b","type":"bool"},{"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string"},{"name":"os","type":"string","optional":true},{"name":"data","type":"data"},{"name":"date","type":"date"},{"name":"dec","type":"decimal128"},{"name":"oid","type":"objectId"},{"name":"u","type":"uuid"},{"name":"oi","type":"int","optional":true},{"name":"od","type":"double","optional":true},{"name":"ob","type":"bool","optional":true}]}
        ],"objects":{
        """#

    /// A Scalars record with the given values (JSON texts) in place of the defaults.
    static func record(_ id: Int64, _ changes: [String: String] = [:]) -> String {
        let fields: [(String, String)] = [
            ("id", "\(id)"), ("b", "true"), ("f", "0.1"), ("d", "0.25"), ("s", #""s\#(id)""#), ("os", "null"), ("data", #""AAEC/w==""#),
            ("date", #""2024-02-29T23:59:59.123456789Z""#), ("dec", #""-12.500""#), ("oid", #""65a1b2c3d4e5f60718293a4b""#),
            ("u", #""0f8fad5b-d9cb-469f-a165-70867728950e""#), ("oi", "null"), ("od", "null"), ("ob", "null"),
        ]
        return "{" + fields.compactMap { name, value in
            let given = changes[name] ?? value
            return given == "-" ? nil : "\"\(name)\":\(given)"
        }.joined(separator: ",") + (changes["+"] ?? "") + "}"
    }

    static func document(_ scalars: [String], plain: [String] = []) -> String {
        schema + "\n\"Plain\":[\n" + plain.joined(separator: ",\n") + "\n],\n\"Scalars\":[\n" + scalars.joined(separator: ",\n") + "\n]\n}}\n"
    }

    @Test func everyScalarTypeRoundTripsByteIdentical() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let long = String(repeating: "long text, compressed when stored; ", count: 300)
        let scalars = [
            Self.record(-9_223_372_036_854_775_808, ["f": #""NaN""#, "d": #""-Infinity""#, "os": #""\u00e9\ud83d\ude00 ok""#,
                                                   "oi": "-1", "od": "-0.0", "ob": "false", "data": #""""#]),
            Self.record(9_223_372_036_854_775_807, ["f": "3.4028235e+38", "d": "1e-300", "s": #""tab\tquote\"back\\slash\u0001\n/""#,
                                                   "od": "5e-324", "dec": #""1E+40""#, "date": #""1969-12-31T23:59:59.999999999Z""#]),
            Self.record(0, ["f": #""-Infinity""#, "d": "1.7976931348623157e+308", "s": "\"\(long)\"", "oi": "0", "od": "1.0"]),
            // Keys in another order, and "@key" (ignored in a class with a primary key).
            "{\"s\":\"reordered\",\"@key\":9," + Self.record(7, ["s": "-"]).dropFirst(),
            Self.record(8, ["f": "1e10", "d": "123456789012345680000", "os": #""""#, "u": #""0F8FAD5B-D9CB-469F-A165-70867728950E""#]),
        ]
        let plain = [#"{"@key":0,"name":"first","n":1}"#, #"{"name":"no key","n":2}"#, #"{"n":3,"@key":"x","name":"é"}"#]
        try Data(Self.document(scalars, plain: plain).utf8).write(to: directory.appendingPathComponent("source.json"))
        let created = try tool(["import", "a.realm", "source.json"], in: directory)
        #expect(created.status == 0 && created.stdout.contains("8 created, 0 updated"), "\(created.stderr)")
        let first = try tool(["export", "a.realm"], in: directory)
        #expect(first.status == 0, "\(first.stderr)")
        for fragment in [#"{"id":-9223372036854775808,"b":true,"f":"NaN","d":"-Infinity","s":"s-9223372036854775808","os":"é😀 ok","data":"","#,
                         #""oi":-1,"od":-0.0,"ob":false}"#, #""f":3.4028235e+38,"d":1e-300,"s":"tab\tquote\"back\\slash\u0001\n/","#,
                         #""dec":"1E+40","#, #""date":"1969-12-31T23:59:59.999999999Z""#, #""d":1.7976931348623157e+308,"s":"\#(long)""#,
                         #"{"id":7,"b":true,"f":0.1,"d":0.25,"s":"reordered","os":null,"data":"AAEC/w==","date":"2024-02-29T23:59:59.123456789Z","dec":"-12.500","oid":"65a1b2c3d4e5f60718293a4b","u":"0f8fad5b-d9cb-469f-a165-70867728950e","oi":null,"od":null,"ob":null}"#,
                         #""f":1e+10,"d":1.2345678901234568e+20,"s":"s8","os":"","#,
                         // An uppercase UUID is stored and written in lowercase.
                         #""dec":"-12.500","oid":"65a1b2c3d4e5f60718293a4b","u":"0f8fad5b-d9cb-469f-a165-70867728950e","oi":null,"od":null,"ob":null}"#,
                         "\"Plain\":[\n{\"@key\":0,\"name\":\"first\",\"n\":1},\n{\"@key\":1,\"name\":\"no key\",\"n\":2},\n{\"@key\":2,\"name\":\"é\",\"n\":3}\n]"] {
            #expect(first.stdout.contains(fragment), "\(fragment)")
        }
        // Key order: the smallest id first (the keys follow creation order).
        try Data(first.stdout.utf8).write(to: directory.appendingPathComponent("e1.json"))
        #expect(try tool(["import", "b.realm", "e1.json"], in: directory).status == 0)
        let second = try tool(["export", "b.realm"], in: directory)
        #expect(second.stdout == first.stdout)
        // Again into the same file: updates by primary key; objects without one are created.
        let again = try tool(["import", "b.realm", "e1.json"], in: directory)
        #expect(again.stdout.contains("3 created, 5 updated"), "\(again.stdout)")
        // From standard input, and with "objects" before "schema".
        let text = first.stdout
        let objects = text[text.range(of: "\"objects\":")!.lowerBound...].dropLast(2)
        let reordered = "{" + objects + ",\"schema\":" + text[text.range(of: "[")!.lowerBound..<text.range(of: ",\"objects\":")!.lowerBound] + "}\n"
        try Data(reordered.utf8).write(to: directory.appendingPathComponent("reordered.json"))
        let process = try tool(["import", "c.realm", "reordered.json"], in: directory)
        #expect(process.status == 0, "\(process.stderr)")
        #expect(try tool(["export", "c.realm"], in: directory).stdout == first.stdout)
    }

    /// Many objects (several leaves, blocks of reads, buffered creation): the same bytes back.
    @Test func manyObjectsRoundTrip() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Doubles of 1 to 17 digits, with and without exponents: the fast decimal conversion
        // and strtod must both give the double whose shortest text the export writes back.
        let scalars = (0..<5000).map {
            Self.record(Int64($0) * 3 + 1, ["d": "\(Double($0) / 7)", "oi": $0 % 2 == 0 ? "null" : "\($0)",
                                           "od": "\([Double($0) * 1e-7, Double($0) * 1.5e15, Double($0) / 1024, -Double($0) * 0.1][$0 % 4])"])
        }
        let plain = (0..<3000).map { #"{"@key":\#($0),"name":"p\#($0)","n":\#($0 * $0)}"# }
        try Data(Self.document(scalars, plain: plain).utf8).write(to: directory.appendingPathComponent("many.json"))
        let created = try tool(["import", "m.realm", "many.json"], in: directory)
        #expect(created.status == 0 && created.stdout.contains("8000 created"), "\(created.stderr)")
        let first = try tool(["export", "m.realm"], in: directory)
        // The source is written as the export writes: the same bytes come back.
        #expect(first.stdout == Self.document(scalars, plain: plain))
        try Data(first.stdout.utf8).write(to: directory.appendingPathComponent("e1.json"))
        #expect(try tool(["import", "n.realm", "e1.json"], in: directory).status == 0)
        #expect(try tool(["export", "n.realm"], in: directory).stdout == first.stdout)
        #expect(first.stdout.contains(#"{"@key":2999,"name":"p2999","n":8994001}"#))
        #expect(first.stdout.contains("{\"id\":14998,\"b\":true,\"f\":0.1,\"d\":\(Double(4999) / 7),"))
    }

    @Test func badInputsAreErrorsThatCommitNothing() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = Self.document((1...3).map { Self.record(Int64($0)) }, plain: [#"{"@key":0,"name":"a","n":1}"#])
        try Data(good.utf8).write(to: directory.appendingPathComponent("good.json"))
        #expect(try tool(["import", "t.realm", "good.json"], in: directory).status == 0)
        let before = try tool(["export", "t.realm"], in: directory).stdout

        func refused(_ text: String, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            try refused(Data(text.utf8), fragments, sourceLocation: sourceLocation)
        }
        func refused(_ data: Data, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            try data.write(to: directory.appendingPathComponent("bad.json"))
            let run = try tool(["import", "t.realm", "bad.json"], in: directory)
            #expect(run.status == 1, "\(String(decoding: data.suffix(80), as: UTF8.self))", sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(run.stderr.contains(fragment), "\(run.stderr)", sourceLocation: sourceLocation)
            }
            #expect(try tool(["export", "t.realm"], in: directory).stdout == before, sourceLocation: sourceLocation)
        }
        // New objects first (ids 10...3009), then the bad record: nothing of it is kept.
        func bad(_ changes: [String: String]) -> String {
            Self.document((10..<3010).map { Self.record(Int64($0)) } + [Self.record(5000, changes)])
        }
        let named = "record 3001 of 'Scalars' (id 5000): "
        try refused(bad(["id": #""seven""#]), ["record 3001 of 'Scalars'", #"'id' (int) cannot be "seven""#])
        try refused(bad(["oi": "1.5"]), [named + "property 'oi': 'oi' (int) cannot be 1.5"])
        try refused(bad(["oi": "9223372036854775808"]), [named, "'oi' (int) cannot be 9223372036854775808"])
        try refused(bad(["b": "1"]), [named, "'b' (bool) cannot be 1"])
        try refused(bad(["s": "5"]), [named, "'s' (string) cannot be 5"])
        try refused(bad(["d": #""abc""#]), [named, #"'d' (double) cannot be "abc""#])
        try refused(bad(["f": "[1]"]), [named, "'f' (float) cannot be [1]"])
        try refused(bad(["date": #""2024-13-01T00:00:00Z""#]), [named, "'date' (date) cannot be"])
        try refused(bad(["oid": #""xyz""#]), [named, "not an object id"])
        try refused(bad(["b": "-"]), [named + "property 'b' is missing"])
        try refused(bad(["id": "-"]), ["record 3001 of 'Scalars': its primary key 'id' is missing"])
        try refused(bad(["+": #","zz":1"#]), [named + "no property 'zz' in class 'Scalars'"])
        try refused(bad(["+": #","b":false"#]), [named + "property 'b' is given twice"])
        try refused(bad(["s": "null"]), [named, "Scalars.s"])
        // A string that is not UTF-8 (a byte 0xFF in place of the "~").
        let notUTF8 = Data(bad(["s": #""~""#]).utf8.map { $0 == UInt8(ascii: "~") ? 0xFF : $0 })
        try refused(notUTF8, [named, "UTF-8"])
        try refused(bad(["s": #""\ud800""#]), [named, "a lone surrogate"])
        try refused(bad(["s": #""\q""#]), [named, "an invalid escape"])
        try refused(bad(["oi": "01"]), ["invalid JSON at byte", "expected ',' or '}'"])
        try refused(bad(["oi": "-"]) .replacingOccurrences(of: #""ob":null}"#, with: #""ob":null,}"#), ["invalid JSON at byte", "expected a key"])
        try refused(bad(["oi": "1."]), ["invalid JSON at byte", "a digit expected after '.'"])
        try refused(bad(["oi": "tru"]), ["invalid JSON at byte", "unexpected character"])
        try refused(Self.document((10..<3010).map { Self.record(Int64($0)) } + ["5"]), ["record 3001 of 'Scalars': an object of 'Scalars' needs a JSON object, not 5"])
        try refused(good.replacingOccurrences(of: "\"Plain\":[", with: "\"Nope\":["), ["objects of 'Nope': no top-level class of that name in the schema"])
        try refused(good.replacingOccurrences(of: "\"Plain\":[\n" + #"{"@key":0,"name":"a","n":1}"# + "\n]", with: #""Plain":{}"#),
                    ["objects of 'Plain' need an array"])
        try refused(good + "x", ["unexpected text after the JSON value"])
        try refused("[]", ["'bad.json' is not an export"])
        try refused(#"{"schema":[]}"#, ["'bad.json' is not an export"])
        try refused(#"{"format":"openrealm-export"}"#, ["'bad.json' is not an export"])
        // Cut anywhere (in a key, a string, a number at the very end, between records): an
        // error, never a partial import.
        let long = bad([:])
        let bytes = Array(long.utf8)
        for cut in [1, 30, 400, 900, 1500, 1501, 1502, 1503, 1600, bytes.count / 2, bytes.count / 2 + 1, bytes.count - 40, bytes.count - 5, bytes.count - 3] {
            try refused(String(decoding: bytes[..<cut], as: UTF8.self), ["invalid JSON at byte"])
        }
        let endsInNumber = String(decoding: bytes[..<(long.range(of: "\"id\":5000")!.upperBound.utf16Offset(in: long) - 2)], as: UTF8.self)
        try refused(endsInNumber, ["invalid JSON at byte"])
        // A missing input, a directory.
        let missing = try tool(["import", "t.realm", "nothing.json"], in: directory)
        #expect(missing.status == 1 && missing.stderr.contains("cannot read 'nothing.json': No such file or directory"), "\(missing.stderr)")
        let folder = try tool(["import", "t.realm", "."], in: directory)
        #expect(folder.status == 1 && folder.stderr.contains("cannot read '.': Is a directory"), "\(folder.stderr)")
        #expect(try tool(["export", "t.realm"], in: directory).stdout == before)
    }

    /// Two records of one import with the same primary key: the second silently updated the
    /// object the first made. Each is an error naming both records and their lines, in the
    /// scalar path and in the path of classes with links or collections, and nothing is
    /// committed.
    @Test func aPrimaryKeyTwiceInOneImportNamesBothRecords() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Scalars (the lines of records 1 and 3 counted from the text itself).
        let scalars = Self.document([Self.record(1), Self.record(2), Self.record(1, ["s": #""again""#])])
        try Data(scalars.utf8).write(to: directory.appendingPathComponent("twice.json"))
        let lines = scalars.split(separator: "\n", omittingEmptySubsequences: false)
        let first = lines.firstIndex { $0.hasPrefix(#"{"id":1,"#) }! + 1
        let third = lines.lastIndex { $0.hasPrefix(#"{"id":1,"#) }! + 1
        let run = try tool(["import", "t.realm", "twice.json"], in: directory)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("record 3 of 'Scalars' (id 1): line \(third): the same primary key as record 1 of 'Scalars' (line \(first))"),
                "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("t.realm").path))
        // A class with a list (the two-pass path), the file existing: nothing is committed.
        let withList = #"""
            {"format":"openrealm-export","version":1,"schema":[
            {"name":"Tagged","properties":[{"name":"id","type":"string","primaryKey":true},{"name":"tags","type":"string","collection":"list"}]}
            ],"objects":{"Tagged":[
            {"id":"a","tags":["x"]},
            {"id":"b","tags":[]},
            {"id":"a","tags":["y"]}
            ]}}
            """#
        try Data(withList.utf8).write(to: directory.appendingPathComponent("list.json"))
        let good = Self.document([Self.record(7)])
        try Data(good.utf8).write(to: directory.appendingPathComponent("good.json"))
        #expect(try tool(["import", "t.realm", "good.json"], in: directory).status == 0)
        let before = try tool(["export", "t.realm"], in: directory).stdout
        let listRun = try tool(["import", "t.realm", "list.json"], in: directory)
        #expect(listRun.status == 1, "\(listRun.stderr)")
        #expect(listRun.stderr.contains(#"record 3 of 'Tagged' (id "a"): line 6: the same primary key as record 1 of 'Tagged' (line 4)"#),
                "\(listRun.stderr)")
        #expect(try tool(["export", "t.realm"], in: directory).stdout == before)
    }

    /// A header of another format or a newer version, and schema entries with a flag that is
    /// not a boolean or a key the format does not have, were imported as if they were right (a
    /// newer export read as version 1, `"primaryKey":"id"` on a class dropped the primary key
    /// without a word): each is an error naming it, and nothing is committed.
    @Test func headersAndSchemaEntriesAreChecked() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = Self.document((1...3).map { Self.record(Int64($0)) }, plain: [#"{"@key":0,"name":"a","n":1}"#])
        try Data(good.utf8).write(to: directory.appendingPathComponent("good.json"))
        #expect(try tool(["import", "t.realm", "good.json"], in: directory).status == 0)
        let before = try tool(["export", "t.realm"], in: directory).stdout
        func refused(_ text: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try Data(text.utf8).write(to: directory.appendingPathComponent("bad.json"))
            let run = try tool(["import", "t.realm", "bad.json"], in: directory)
            #expect(run.status == 1 && run.stderr.contains(fragment), "\(run.stderr)", sourceLocation: sourceLocation)
            #expect(try tool(["export", "t.realm"], in: directory).stdout == before, sourceLocation: sourceLocation)
        }
        try refused(good.replacingOccurrences(of: #""format":"openrealm-export""#, with: #""format":"sqlite""#),
                    #"'bad.json' is not an export: its "format" is "sqlite", not "openrealm-export""#)
        try refused(good.replacingOccurrences(of: #""version":1"#, with: #""version":2"#),
                    "'bad.json' is an export of version 2: this openrealm reads version 1 (upgrade openrealm)")
        try refused(good.replacingOccurrences(of: #""version":1"#, with: #""version":"1""#),
                    #"'bad.json' is not an export: its "version" is "1", not a number"#)
        try refused(good.replacingOccurrences(of: #""primaryKey":true"#, with: #""primaryKey":"yes""#),
                    #"property 'id' of class 'Scalars': "primaryKey" is true or false, not "yes""#)
        try refused(good.replacingOccurrences(of: #""optional":true"#, with: #""optional":1"#),
                    #"property 'os' of class 'Scalars': "optional" is true or false, not 1"#)
        try refused(good.replacingOccurrences(of: #"{"name":"Plain","#, with: #"{"name":"Plain","primaryKey":"name","#),
                    #"class 'Plain': unknown key "primaryKey""#)
        try refused(good.replacingOccurrences(of: #"{"name":"n","type":"int"}"#, with: #"{"name":"n","type":"int","indexd":true}"#),
                    #"property 'n' of class 'Plain': unknown key "indexd""#)
        // Without "format" and "version" (JSON written by hand): read as version 1.
        let bare = good.replacingOccurrences(of: #""format":"openrealm-export","version":1,"#, with: "")
        try Data(bare.utf8).write(to: directory.appendingPathComponent("bare.json"))
        #expect(try tool(["import", "bare.realm", "bare.json"], in: directory).status == 0)
    }

    /// An import into a FILE that does not exist creates it; one that fails left it behind,
    /// an empty database where there was nothing. It is removed again; an existing file is
    /// kept, unchanged.
    @Test func failedImportLeavesNoNewFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"format":"openrealm-export","version":1,"schema":[{"name":"P","properties":[{"name":"n","type":"int"}]}],"objects":{"P":[{"n":"x"}]}}"#.utf8)
            .write(to: directory.appendingPathComponent("bad.json"))
        try Data(#"{"format":"openrealm-export""#.utf8).write(to: directory.appendingPathComponent("cut.json"))
        for input in ["bad.json", "cut.json"] {
            let run = try tool(["import", "new.realm", input], in: directory)
            #expect(run.status == 1, "\(run.stderr)")
            for name in ["new.realm", "new.realm.lock"] {
                #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path), "\(name) after \(input)")
            }
        }
        let good = Self.document([Self.record(1)])
        try Data(good.utf8).write(to: directory.appendingPathComponent("good.json"))
        #expect(try tool(["import", "old.realm", "good.json"], in: directory).status == 0)
        let before = try tool(["export", "old.realm"], in: directory).stdout
        #expect(try tool(["import", "old.realm", "bad.json"], in: directory).status == 1)
        #expect(try tool(["export", "old.realm"], in: directory).stdout == before)
    }
}
