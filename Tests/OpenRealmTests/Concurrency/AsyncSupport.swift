// AsyncSupport.swift — what the concurrency tests share: a counter model, an actor that owns an
// actor-isolated Realm, and fresh configurations.

import Foundation
import OpenRealm

final class AsyncCounter: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
}

final class LogEntry: Object {
    @Persisted var order: Int
    @Persisted var text: String
}

/// A fresh in-memory configuration of the concurrency tests' classes.
func asyncTestConfiguration(_ name: String = UUID().uuidString) -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "async-\(name)", objectTypes: [AsyncCounter.self, LogEntry.self])
}

/// A fresh on-disk configuration (a file in the temporary directory; removed by `removeFiles`).
func asyncTestFileConfiguration(_ name: String = UUID().uuidString) -> Realm.Configuration {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-async-\(name).realm")
    return Realm.Configuration(fileURL: url, objectTypes: [AsyncCounter.self, LogEntry.self])
}

/// Removes the file of an on-disk test configuration and its lock file.
func removeFiles(_ configuration: Realm.Configuration) {
    guard let url = configuration.fileURL else { return }
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.removeItem(atPath: url.path + ".lock")
}

/// An actor with a Realm isolated to it.
actor RealmStore {
    var realm: Realm!

    init(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    /// Adds one to counter 0 (created at 0 if missing) in an asyncWrite; returns the new value.
    @discardableResult
    func increment() async throws -> Int {
        try await realm.asyncWrite {
            let counter = realm.object(ofType: AsyncCounter.self, forPrimaryKey: 0) ?? realm.create(AsyncCounter.self, value: ["id": 0])
            counter.value += 1
            return counter.value
        }
    }

    /// The value of counter 0 (0 if missing).
    func counterValue() -> Int {
        realm.object(ofType: AsyncCounter.self, forPrimaryKey: 0)?.value ?? 0
    }

    /// The `text` of the log entries, in `order`.
    func log() -> [String] {
        realm.objects(LogEntry.self).sorted(byKeyPath: "order").map(\.text)
    }

    /// Runs `body` isolated to the actor.
    func run<T: Sendable>(_ body: @Sendable (isolated RealmStore) throws -> T) rethrows -> T {
        try body(self)
    }

    func close() { realm = nil }
}

extension RealmStore {
    /// Waits until the Realm has no asynchronous write work left.
    func drain() async throws {
        while realm.isPerformingAsynchronousWriteOperations {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}

/// Polls `condition` (every millisecond, up to 10 s); whether it became true.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<10_000 {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return false
}
