// ConfigurationDescriptionTests.swift — Realm.Configuration's description in Realm's form (its
// RLMRealmConfiguration description, with the class renamed).

import Foundation
import Testing

import OpenRealm

@Suite("Configuration description")
struct ConfigurationDescriptionTests {
    @Test("a file configuration: every setting on its own line, nil as (null), flags as 0 and 1")
    func fileConfiguration() {
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/described.realm"), schemaVersion: 3,
                                                deleteRealmIfMigrationNeeded: true)
        #expect(configuration.description == """
            Realm.Configuration {
            \tfileURL = file:///tmp/described.realm;
            \tinMemoryIdentifier = (null);
            \tencryptionKey = (null);
            \treadOnly = 0;
            \tschemaVersion = 3;
            \tmigrationBlock = (null);
            \tdeleteRealmIfMigrationNeeded = 1;
            \tshouldCompactOnLaunch = (null);
            \tdynamic = 0;
            \tcustomSchema = (null);
            }
            """)
    }

    @Test("in memory, with objectTypes: no fileURL, the classes' schema indented")
    func inMemoryWithTypes() {
        let configuration = Realm.Configuration(inMemoryIdentifier: "described", readOnly: false, objectTypes: [Dog.self])
        let description = configuration.description
        #expect(description.hasPrefix("Realm.Configuration {\n\tfileURL = (null);\n\tinMemoryIdentifier = described;\n"))
        #expect(description.contains("\tcustomSchema = Schema {\n\t\t"))
        #expect(description.contains("\n\t\tDog {\n\t\t\tname {\n"))
        #expect(description.hasSuffix("\t\t}\n\t};\n}"))
    }
}
