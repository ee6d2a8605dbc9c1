// DocsActorTests.swift — what Realm Swift's guide ("Use Realm with Actors", "Swift Concurrency",
// "Write Transactions": writeAsync) and API reference (Realm(actor:), asyncWrite, writeAsync,
// beginAsyncWrite, commitAsyncWrite, cancelAsyncWrite, isPerformingAsynchronousWriteOperations)
// say of Realms isolated to actors.

import Foundation
import Testing

import OpenRealm

/// An actor owning a Realm isolated to it, as the guide's "Define a Custom Realm Actor".
private actor Kennel {
    var realm: Realm!

    init(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func addPet(_ name: String, age: Int) async throws -> Int {
        try await realm.asyncWrite {
            realm.create(DocsPet.self, value: ["name": name, "age": age])
            return realm.objects(DocsPet.self).count
        }
    }

    func names() -> [String] { realm.objects(DocsPet.self).sorted(byKeyPath: "name").map(\.name) }

    /// Runs `body` isolated to the actor.
    func run<T: Sendable>(_ body: @Sendable (isolated Kennel) async throws -> T) async rethrows -> T {
        try await body(self)
    }
}

private func kennelConfiguration() -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "docs-actor-\(UUID().uuidString)", objectTypes: docsTypes)
}

@Suite("Realm's documentation: actor-isolated Realms and asynchronous writes")
struct DocsActorTests {
    // "Write to an Actor-Isolated Realm": asyncWrite runs the block in a write transaction and
    // returns its value once committed.
    @Test("asyncWrite commits and returns the block's value")
    func asyncWriteReturns() async throws {
        let kennel = try await Kennel(kennelConfiguration())
        #expect(try await kennel.addPet("Rex", age: 2) == 1)
        #expect(try await kennel.addPet("Ace", age: 5) == 2)
        #expect(await kennel.names() == ["Ace", "Rex"])
    }

    // An error thrown by the block cancels the transaction and is rethrown.
    @Test("an error thrown in asyncWrite cancels the transaction and is rethrown")
    func asyncWriteThrows() async throws {
        struct Refused: Error {}
        let kennel = try await Kennel(kennelConfiguration())
        let outcome = await kennel.run { kennel -> String in
            do {
                try await kennel.realm.asyncWrite {
                    kennel.realm.create(DocsPet.self, value: ["name": "Ghost"])
                    throw Refused()
                }
                return "committed"
            } catch is Refused {
                return "\(kennel.realm.isInWriteTransaction) \(kennel.realm.objects(DocsPet.self).count)"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == "false 0")
    }

    // Writes of another thread show in an actor-isolated Realm (it refreshes itself).
    @Test("an actor-isolated Realm sees another thread's commit")
    func seesOtherThreads() async throws {
        let configuration = kennelConfiguration()
        let kennel = try await Kennel(configuration)
        try onOtherThread {
            let other = try Realm(configuration: configuration)
            try other.write { other.create(DocsPet.self, value: ["name": "Far"]) }
        }
        let sawIt = await eventually { await kennel.names() == ["Far"] }
        #expect(sawIt)
    }

    // writeAsync: the block runs in a transaction; onComplete is called after the commit.
    // isPerformingAsynchronousWriteOperations is true until then.
    @Test("writeAsync commits, then calls onComplete; pending work is reported until then")
    func writeAsyncCompletes() async throws {
        let kennel = try await Kennel(kennelConfiguration())
        let result = await kennel.run { kennel -> [String] in
            let realm = kennel.realm!
            var log: [String] = []
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                realm.writeAsync({
                    realm.create(DocsPet.self, value: ["name": "Async"])
                }, onComplete: { error in
                    log.append("complete \(error == nil) \(realm.objects(DocsPet.self).count)")
                    continuation.resume()
                })
                log.append("pending \(realm.isPerformingAsynchronousWriteOperations)")
            }
            log.append("idle \(!realm.isPerformingAsynchronousWriteOperations)")
            return log
        }
        #expect(result == ["pending true", "complete true 1", "idle true"])
    }

    // cancelAsyncWrite of a begin whose block has not run cancels the transaction entirely;
    // of a commit, only its callback (the commit happens).
    @Test("cancelAsyncWrite cancels a queued begin entirely and a commit's callback only")
    func cancelAsyncWrite() async throws {
        let kennel = try await Kennel(kennelConfiguration())
        let result = await kennel.run { kennel -> [String] in
            let realm = kennel.realm!
            var log: [String] = []
            let cancelled = realm.beginAsyncWrite {
                log.append("cancelled block ran")
                realm.create(DocsPet.self, value: ["name": "Never"])
                realm.commitAsyncWrite()
            }
            try? realm.cancelAsyncWrite(cancelled)
            realm.beginWrite()
            realm.create(DocsPet.self, value: ["name": "Kept"])
            let commit = realm.commitAsyncWrite { _ in log.append("commit callback ran") }
            try? realm.cancelAsyncWrite(commit)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                realm.writeAsync({ realm.create(DocsPet.self, value: ["name": "Last"]) },
                                 onComplete: { _ in continuation.resume() })
            }
            log.append(realm.objects(DocsPet.self).sorted(byKeyPath: "name").map(\.name).joined(separator: ","))
            return log
        }
        #expect(result == ["Kept,Last"])
    }

    // beginAsyncWrite blocks run in the order of the calls, each in its own transaction.
    @Test("beginAsyncWrite blocks run in order")
    func asyncWritesInOrder() async throws {
        let kennel = try await Kennel(kennelConfiguration())
        let names = await kennel.run { kennel -> [String] in
            let realm = kennel.realm!
            for i in 0..<3 {
                realm.beginAsyncWrite {
                    let count = realm.objects(DocsPet.self).count
                    realm.create(DocsPet.self, value: ["name": "w\(i)-\(count)"])
                    realm.commitAsyncWrite()
                }
            }
            while realm.isPerformingAsynchronousWriteOperations { try? await Task.sleep(nanoseconds: 1_000_000) }
            return realm.objects(DocsPet.self).map(\.name)
        }
        #expect(names == ["w0-0", "w1-1", "w2-2"])
    }

    // "Observe Notifications on a Different Actor": observe(on:) calls the block isolated to the
    // actor given, first with .initial.
    @Test("observe(on: actor) delivers on that actor, initial then updates")
    func observeOnActor() async throws {
        let configuration = kennelConfiguration()
        let kennel = try await Kennel(configuration)
        let seenChanges = Changes<String>()
        let token = await kennel.run { kennel in
            await kennel.realm.objects(DocsPet.self).observe(on: kennel) { _, change in
                switch change {
                case .initial(let pets): seenChanges.append("initial \(pets.count)")
                case .update(let pets, _, let insertions, _): seenChanges.append("update \(pets.count) \(insertions)")
                case .error: seenChanges.append("error")
                }
            }
        }
        defer { token.invalidate() }
        #expect(await eventually { seenChanges.take() == ["initial 0"] })
        _ = try await kennel.addPet("Seen", age: 1)
        #expect(await eventually { seenChanges.take() == ["update 1 [0]"] })
    }
}
