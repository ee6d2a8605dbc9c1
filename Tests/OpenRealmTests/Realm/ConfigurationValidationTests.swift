// ConfigurationValidationTests.swift — the configurations Realm refuses as programmer errors when
// they are used (RLMRealmConfiguration's setters), with Realm's messages and in Realm's order.

import Foundation
import Testing

import OpenRealm

@Suite("Configuration validation")
struct ConfigurationValidationTests {
    @Test("neither a file nor an in-memory identifier")
    func noLocation() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = Realm.Configuration()
            configuration.fileURL = nil
            _ = try Realm(configuration: configuration)
        }
        expectStop("A Realm Configuration must specify a path or an in-memory identifier.", result)
    }

    @Test("an empty in-memory identifier")
    func emptyIdentifier() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: ""))
        }
        expectStop("In-memory identifier must not be empty", result)
    }

    @Test("a file URL with an empty path")
    func emptyPath() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(fileURL: URL(string: "file:")!))
        }
        expectStop("Realm path must not be empty", result)
    }

    @Test("the schema version Realm reserves")
    func reservedSchemaVersion() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "reserved-version", schemaVersion: UInt64.max))
        }
        expectStop("Cannot set schema version to 18446744073709551615 (RLMNotVersioned)", result)
    }

    @Test("Realm's order: the key before readOnly's conflicts, those before compaction")
    func order() async {
        let key = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "order", encryptionKey: Data(count: 3), readOnly: true,
                                               deleteRealmIfMigrationNeeded: true))
        }
        expectStop("Encryption key must be exactly 64 bytes long", key)
        let delete = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: "/tmp/order.realm"), readOnly: true,
                                               deleteRealmIfMigrationNeeded: true, shouldCompactOnLaunch: { _, _ in false }))
        }
        expectStop("Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.", delete)
    }
}
