// CachedRealmOptionsTests.swift — opening a file this thread has open with other read permissions
// is a programmer error, as in Realm's RealmTests.testReadOnly (Realm's cache of a thread's
// Realms refuses it with an exception).

import Foundation
import Testing

import OpenRealm

@Suite("Options of a Realm this thread has open")
struct CachedRealmOptionsTests {
    @Test("readOnly for a file open read-write on this thread stops with Realm's message")
    func readOnlyMismatch() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("cached-\(UUID().uuidString).realm")
            let writer = try Realm(fileURL: url)
            try writer.write { writer.add(Dog(value: ["name": "Rex"])) }
            _ = try Realm(configuration: .init(fileURL: url, readOnly: true))
            withExtendedLifetime(writer) {}
        }
        expectStop("already opened with different read permissions", result)
    }

    @Test("the message names the file as Realm's does")
    func messageNamesTheFile() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // A path of this process: another test program may have left a file of other models
            // at a shared name.
            let url = URL(fileURLWithPath: "/tmp/openrealm-cached-options-\(ProcessInfo.processInfo.processIdentifier).realm")
            _ = try? Realm.deleteFiles(for: .init(fileURL: url))
            let writer = try Realm(fileURL: url)
            _ = try Realm(configuration: .init(fileURL: url, readOnly: true))
            withExtendedLifetime(writer) {}
        }
        expectStop("Realm at path '/tmp/openrealm-cached-options-", result)
        expectStop(".realm' already opened with different read permissions", result)
    }
}
