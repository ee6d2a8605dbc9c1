// MigrationAuditTests.swift — migrations against Realm Swift's MigrationTests: the class a
// migration's objects report, the order their descriptions list properties in (and the class
// their lists name), the default values of the objects `create` makes, and enums given to a new
// object's properties.

import Foundation
import Testing

import OpenRealm

enum MigAuditMood: Int, PersistableEnum {
    case calm = 1
    case cross = 4
}

enum MigAuditV1 {
    final class MigAuditCrate: Object {
        @Persisted var label: String
        @Persisted var weight: Int
    }

    final class MigAuditTag: Object {
        @Persisted var text: String
    }
}

enum MigAuditV2 {
    final class MigAuditCrate: Object {
        @Persisted var label = "unnamed"
        @Persisted var weight = 12
        @Persisted var mood = MigAuditMood.calm
        @Persisted var opened = Date(timeIntervalSince1970: 5)
        @Persisted var tag: MigAuditTag? = MigAuditTag()
        @Persisted var tags: List<MigAuditTag>
    }

    final class MigAuditTag: Object {
        @Persisted var text = "fresh"
    }
}

/// What a migration block saw, read after it ran.
private final class MigAuditSeen: @unchecked Sendable {
    var texts: [String] = []
}

private func writeVersion0(_ url: URL) throws {
    let v1 = try Realm(configuration: .init(fileURL: url, objectTypes: [MigAuditV1.MigAuditCrate.self, MigAuditV1.MigAuditTag.self]))
    try v1.write { v1.add(MigAuditV1.MigAuditCrate(value: ["label": "a", "weight": 3])) }
}

/// Writes one crate ("a", 3) at schema version 0, then opens the file at version 1 with the
/// V2 models, running `block`; the Realm opened.
private func migrateCrates(_ url: URL, _ block: @escaping MigrationBlock) throws -> Realm {
    try writeVersion0(url)
    let config = Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: block,
                                     objectTypes: [MigAuditV2.MigAuditCrate.self, MigAuditV2.MigAuditTag.self])
    return try Realm(configuration: config)
}

@Suite("Migration audit")
struct MigrationAuditTests {
    @Test("a migration's old and new objects report their class, not DynamicObject, in objectSchema")
    func objectSchemaNamesTheClass() throws {
        try withDirectory { directory in
            let seen = MigAuditSeen()
            _ = try migrateCrates(directory.appendingPathComponent("crates.realm")) { migration, _ in
                migration.enumerateObjects(ofType: "MigAuditCrate") { old, new in
                    for object in [old, new].compactMap({ $0 }) {
                        let schema = object.objectSchema
                        seen.texts.append(schema.className + ":" + schema.properties.map(\.name).joined(separator: ","))
                    }
                }
            }
            #expect(seen.texts == ["MigAuditCrate:label,weight", "MigAuditCrate:label,weight,mood,opened,tag,tags"])
        }
    }

    @Test("a migration object's description lists its properties in its class's order")
    func descriptionInSchemaOrder() throws {
        try withDirectory { directory in
            let seen = MigAuditSeen()
            _ = try migrateCrates(directory.appendingPathComponent("crates.realm")) { migration, _ in
                migration.enumerateObjects(ofType: "MigAuditCrate") { old, new in
                    seen.texts.append(old!.description)
                    let names = new!.description.split(separator: "\n").compactMap { line -> String? in
                        line.hasPrefix("\t") && !line.hasPrefix("\t\t") && line.contains(" = ")
                            ? String(line.dropFirst().prefix { $0 != " " }) : nil
                    }
                    seen.texts.append(names.joined(separator: ","))
                }
            }
            #expect(seen.texts.first == "MigAuditCrate {\n\tlabel = a;\n\tweight = 3;\n}")
            #expect(seen.texts.last == "label,weight,mood,opened,tag,tags")
        }
    }

    @Test("a migration object's list of objects names their class in its description")
    func listDescriptionNamesClass() throws {
        try withDirectory { directory in
            let seen = MigAuditSeen()
            _ = try migrateCrates(directory.appendingPathComponent("crates.realm")) { migration, _ in
                migration.enumerateObjects(ofType: "MigAuditCrate") { _, new in
                    let tags = new!["tags"] as! List<MigrationObject>
                    tags.append(migration.create("MigAuditTag", value: ["text": "t"]))
                    seen.texts.append((new!["tags"] as! List<MigrationObject>).description)
                    seen.texts.append(new!.dynamicList("tags").description)
                }
            }
            #expect(seen.texts.count == 2)
            for text in seen.texts {
                #expect(text.hasPrefix("List<MigAuditTag> <0x"), "\(text)")
                #expect(text.hasSuffix("(\n\t[0] MigAuditTag {\n\t\ttext = t;\n\t}\n)"), "\(text)")
            }
        }
    }

    @Test("create without values gives the model's default values, a default linked object among them")
    func createTakesModelDefaults() throws {
        try withDirectory { directory in
            let realm = try migrateCrates(directory.appendingPathComponent("crates.realm")) { migration, _ in
                migration.create("MigAuditCrate")
                migration.create("MigAuditCrate", value: ["label": "given"])
            }
            let crates = realm.objects(MigAuditV2.MigAuditCrate.self).sorted(byKeyPath: "label")
            #expect(crates.map(\.label) == ["a", "given", "unnamed"])
            let made = try #require(crates.last)
            #expect(made.weight == 12)
            #expect(made.mood == .calm)
            #expect(made.opened == Date(timeIntervalSince1970: 5))
            #expect(made.tag?.text == "fresh")
            #expect(crates[1].weight == 12)
            // Each created crate linked a new tag of its own.
            #expect(realm.objects(MigAuditV2.MigAuditTag.self).count == 2)
        }
    }

    @Test("an enum set on a new object is stored as its raw value")
    func enumStoredAsRawValue() throws {
        try withDirectory { directory in
            let realm = try migrateCrates(directory.appendingPathComponent("crates.realm")) { migration, _ in
                migration.enumerateObjects(ofType: "MigAuditCrate") { _, new in
                    new!["mood"] = MigAuditMood.cross
                }
                migration.create("MigAuditCrate", value: ["label": "b", "mood": MigAuditMood.cross])
            }
            #expect(realm.objects(MigAuditV2.MigAuditCrate.self).map(\.mood) == [.cross, .cross])
        }
    }

    @Test("schemaVersionAtURL of a missing file throws Realm's not-versioned .fail, and creates nothing")
    func schemaVersionOfMissingFile() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("absent.realm")
            do {
                _ = try schemaVersionAtURL(url)
                Issue.record("no error thrown")
            } catch let error as Realm.Error {
                #expect(error.code == .fail)
                #expect(error.localizedDescription.contains("Cannot open an uninitialized realm in read-only mode"))
            }
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }
}
