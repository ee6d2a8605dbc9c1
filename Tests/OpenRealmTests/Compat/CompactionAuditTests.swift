// CompactionAuditTests.swift — shouldCompactOnLaunch against Realm Swift's CompactionTests
// (suite CompactOnLaunchAuditTests): the block gets the file's total and used bytes, and
// compacting by its answer shrinks the file and keeps every object, their order, primary keys
// and links.

import Foundation
import Testing

import OpenRealm

/// A text object, many of them holding the same long text.
final class CompactionAuditText: Object {
    @Persisted var text: String
}

/// An object with a primary key and links, to check what a compaction keeps.
final class CompactionAuditOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var texts: List<CompactionAuditText>
}

/// Records the arguments of each call of the block.
private final class CompactionCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [(total: Int, used: Int)] = []
    func record(_ total: Int, _ used: Int) { lock.withLock { calls.append((total, used)) } }
    var all: [(total: Int, used: Int)] { lock.withLock { calls } }
}

private func byteCount(_ url: URL) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
}

private let compactionTypes: [ObjectBase.Type] = [CompactionAuditText.self, CompactionAuditOwner.self]

/// A closed file with "A", `count` copies of one long text, and "B"; then the copies deleted
/// when `sparse`. An owner (id 7) links "A" and "B".
private func writeFile(in directory: URL, count: Int = 1000, sparse: Bool) throws -> URL {
    let url = directory.appendingPathComponent("compaction.realm")
    do {
        let realm = try Realm(configuration: .init(fileURL: url, objectTypes: compactionTypes))
        let filler = String(repeating: UUID().uuidString, count: sparse ? 20 : 1)
        try realm.write {
            let a = realm.create(CompactionAuditText.self, value: ["A"])
            for _ in 0..<count { realm.create(CompactionAuditText.self, value: [filler]) }
            let b = realm.create(CompactionAuditText.self, value: ["B"])
            realm.create(CompactionAuditOwner.self, value: ["id": 7, "texts": [a, b]])
        }
        if sparse {
            try realm.write { realm.delete(realm.objects(CompactionAuditText.self).filter("text == %@", filler)) }
        }
    }
    waitUntilClosedEverywhere(url)
    return url
}

/// Realm's rule in its CompactionTests: compact a file over 500 KB less than 20 % used.
@Sendable private func realmsRule(_ total: Int, _ used: Int) -> Bool {
    total > 500 * 1024 && Double(used) / Double(total) < 0.2
}

@Suite("shouldCompactOnLaunch as Realm (CompactionTests)")
struct CompactOnLaunchAuditTests {
    @Test("a new file of 1,002 objects: over 50,000 bytes used of a larger file; Realm's rule compacts it")
    func realmsScenario() throws {
        try withDirectory { directory in
            let url = try writeFile(in: directory, sparse: false)
            let before = try byteCount(url)
            let calls = CompactionCalls()
            let realm = try Realm(configuration: .init(fileURL: url, shouldCompactOnLaunch: { total, used in
                calls.record(total, used)
                return realmsRule(total, used)
            }, objectTypes: compactionTypes))
            let call = try #require(calls.all.first)
            #expect(calls.all.count == 1)
            #expect(call.total == before)
            #expect(call.used < call.total && call.used > 50_000)
            #expect(try byteCount(url) < before)
            let texts = realm.objects(CompactionAuditText.self)
            #expect(texts.count == 1002 && texts.first?.text == "A" && texts.last?.text == "B")
        }
    }

    @Test("compacting a file whose objects were mostly deleted keeps the rest, primary keys and links")
    func compactsSparseFile() throws {
        try withDirectory { directory in
            let url = try writeFile(in: directory, sparse: true)
            let before = try byteCount(url)
            let realm = try Realm(configuration: .init(fileURL: url, shouldCompactOnLaunch: realmsRule,
                                                       objectTypes: compactionTypes))
            #expect(try byteCount(url) < before)
            #expect(realm.objects(CompactionAuditText.self).map(\.text) == ["A", "B"])
            let owner = try #require(realm.object(ofType: CompactionAuditOwner.self, forPrimaryKey: 7))
            #expect(owner.texts.map(\.text) == ["A", "B"])
            #expect(realm.objects(CompactionAuditOwner.self).filter("ANY texts.text == 'B'").count == 1)
        }
    }

    @Test("a block that answers no leaves every byte of the file as it was")
    func declinedLeavesFile() throws {
        try withDirectory { directory in
            let url = try writeFile(in: directory, sparse: true)
            let before = try Data(contentsOf: url)
            let calls = CompactionCalls()
            let realm = try Realm(configuration: .init(fileURL: url, shouldCompactOnLaunch: { total, used in
                calls.record(total, used)
                return false
            }, objectTypes: compactionTypes))
            #expect(calls.all.count == 1 && calls.all.first?.total == before.count)
            #expect(try Data(contentsOf: url) == before)
            #expect(realm.objects(CompactionAuditText.self).count == 2)
        }
    }

    @Test("a compacted file opens again with its new size and takes writes")
    func compactedFileReopens() throws {
        try withDirectory { directory in
            let url = try writeFile(in: directory, sparse: true)
            do {
                let realm = try Realm(configuration: .init(fileURL: url, shouldCompactOnLaunch: { _, _ in true },
                                                           objectTypes: compactionTypes))
                try realm.write { realm.create(CompactionAuditText.self, value: ["C"]) }
            }
            waitUntilClosedEverywhere(url)
            let after = try byteCount(url)
            let calls = CompactionCalls()
            let realm = try Realm(configuration: .init(fileURL: url, shouldCompactOnLaunch: { total, used in
                calls.record(total, used)
                return false
            }, objectTypes: compactionTypes))
            #expect(calls.all.first?.total == after)
            #expect(realm.objects(CompactionAuditText.self).map(\.text) == ["A", "B", "C"])
        }
    }
}
