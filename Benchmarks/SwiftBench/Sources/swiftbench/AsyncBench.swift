// AsyncBench.swift — the asynchronous workloads of issue 15 (swiftbench --async), each system on
// a fresh file, interleaved per repetition:
//
// - W5g: 10,000 single-object commits issued as fast as possible, each acknowledged when
//   durable. OpenRealm: from an actor, `beginAsyncWrite { create; commitAsyncWrite(allowGrouping:
//   true) { ack } }` queued back to back; the time runs until the last acknowledgement. SQLite:
//   GRDB's DatabasePool (WAL, synchronous=FULL), one `write` per object, one after another (a
//   commit returns when durable). Each commit creates one Person of W5's (bench_w5.c).
// - Server: 16 concurrent tasks, each doing 1,000 read-modify-write transactions of one shared
//   counter (read it, write it plus one); the final value must be 16,000. OpenRealm: the tasks
//   call an actor that owns the Realm, which does `try await realm.asyncWrite { ... }`. GRDB:
//   `try await pool.write { db in ... }` from each task.

import Foundation
import GRDB
import OpenRealm

final class BenchCounter: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
}

/// The actor of the OpenRealm runs: a Realm isolated to it.
actor AsyncBenchStore {
    var realm: Realm!

    init(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    /// W5g: `count` grouped asynchronous commits of one Person each; seconds until the last
    /// acknowledgement.
    func w5g(_ count: Int) async -> Double {
        let t0 = nowNs()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var acknowledged = 0
            for i in 0..<count {
                realm.beginAsyncWrite { [self] in
                    let person = Person()
                    person.id = personID(i)
                    person.name = personName(i)
                    person.age = personAge(i)
                    person.score = personScore(i)
                    realm.add(person)
                    realm.commitAsyncWrite(allowGrouping: true) { error in
                        if let error { fail("OpenRealm W5g: \(error)") }
                        acknowledged += 1
                        if acknowledged == count { continuation.resume() }
                    }
                }
            }
        }
        return secondsSince(t0)
    }

    /// One read-modify-write of the shared counter.
    func increment() async throws {
        try await realm.asyncWrite {
            let counter = realm.object(ofType: BenchCounter.self, forPrimaryKey: 0)!
            counter.value += 1
        }
    }

    func createCounter() throws {
        try realm.write { realm.create(BenchCounter.self, value: ["id": 0, "value": 0]) }
    }

    func counterValue() -> Int { realm.object(ofType: BenchCounter.self, forPrimaryKey: 0)?.value ?? -1 }

    func personCount() -> Int { realm.objects(Person.self).count }

    func close() { realm = nil }
}

struct AsyncMeasurements {
    var w5gCommitsPerSecond: Double?
    var serverTransactionsPerSecond: Double?
}

func runOpenRealmAsync(directory: String, w5Count: Int, tasks: Int, perTask: Int) async -> AsyncMeasurements {
    var m = AsyncMeasurements()
    do {
        let w5 = Realm.Configuration(fileURL: URL(fileURLWithPath: directory + "/w5g.realm"), objectTypes: [Person.self])
        let store = try await AsyncBenchStore(w5)
        let seconds = await store.w5g(w5Count)
        m.w5gCommitsPerSecond = Double(w5Count) / seconds
        let persons = await store.personCount()
        if persons != w5Count { fail("OpenRealm W5g: \(persons) objects, expected \(w5Count)") }
        await store.close()

        let server = Realm.Configuration(fileURL: URL(fileURLWithPath: directory + "/server.realm"), objectTypes: [BenchCounter.self])
        let counterStore = try await AsyncBenchStore(server)
        try await counterStore.createCounter()
        let t0 = nowNs()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<perTask { try await counterStore.increment() }
                }
            }
            try await group.waitForAll()
        }
        let serverSeconds = secondsSince(t0)
        let value = await counterStore.counterValue()
        if value != tasks * perTask { fail("OpenRealm server: counter \(value), expected \(tasks * perTask)") }
        m.serverTransactionsPerSecond = Double(tasks * perTask) / serverSeconds
        await counterStore.close()
    } catch {
        fail("OpenRealm async: \(error)")
    }
    return m
}

func runGRDBAsync(directory: String, w5Count: Int, tasks: Int, perTask: Int) async -> AsyncMeasurements {
    var m = AsyncMeasurements()
    do {
        let pool = try openGRDB(directory + "/w5g.sqlite")
        let t0 = nowNs()
        for i in 0..<w5Count {
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO person (id, name, age, score) VALUES (?, ?, ?, ?)",
                               arguments: [personID(i), personName(i), personAge(i), personScore(i)])
            }
        }
        m.w5gCommitsPerSecond = Double(w5Count) / secondsSince(t0)
        let persons = try await pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM person") ?? 0 }
        if persons != w5Count { fail("GRDB W5: \(persons) rows, expected \(w5Count)") }

        let server = try openGRDB(directory + "/server.sqlite")
        try await server.write { db in
            try db.execute(sql: "CREATE TABLE counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO counter (id, value) VALUES (0, 0)")
        }
        let t1 = nowNs()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<perTask {
                        try await server.write { db in
                            let value = try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE id = 0") ?? 0
                            try db.execute(sql: "UPDATE counter SET value = ? WHERE id = 0", arguments: [value + 1])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let serverSeconds = secondsSince(t1)
        let value = try await server.read { try Int.fetchOne($0, sql: "SELECT value FROM counter WHERE id = 0") ?? -1 }
        if value != tasks * perTask { fail("GRDB server: counter \(value), expected \(tasks * perTask)") }
        m.serverTransactionsPerSecond = Double(tasks * perTask) / serverSeconds
    } catch {
        fail("GRDB async: \(error)")
    }
    return m
}

/// swiftbench --async: the two workloads, `reps` repetitions, OpenRealm and GRDB interleaved.
func runAsyncBench(reps: Int, runDirectory: String, keep: Bool, w5Count: Int = 10_000, tasks: Int = 16, perTask: Int = 1_000) async {
    print("Asynchronous workloads (issue 15): W5g \(w5Count) grouped async commits each acknowledged when durable;")
    print("    server: \(tasks) concurrent tasks x \(perTask) read-modify-write transactions of one counter")
    print("    \(reps) repetitions, systems interleaved in each, each on a fresh file\n")
    print("rep  system     W5g commits/s   server txn/s")
    var ours: [AsyncMeasurements] = []
    var peers: [AsyncMeasurements] = []
    for rep in 1...reps {
        for system in ["openrealm", "grdb"] {
            let directory = runDirectory + "/async-rep\(rep)-\(system)"
            guard mkdir(directory, 0o755) == 0 else { fail("cannot create \(directory)") }
            let m = system == "openrealm"
                ? await runOpenRealmAsync(directory: directory, w5Count: w5Count, tasks: tasks, perTask: perTask)
                : await runGRDBAsync(directory: directory, w5Count: w5Count, tasks: tasks, perTask: perTask)
            if !keep { removeTree(directory) }
            if system == "openrealm" { ours.append(m) } else { peers.append(m) }
            print(String(format: "%-4d %-10@ %14.0f %14.0f", rep, system as NSString,
                         m.w5gCommitsPerSecond ?? 0, m.serverTransactionsPerSecond ?? 0))
            fflush(nil)
        }
    }
    let w5Ours = Spread(ours.compactMap(\.w5gCommitsPerSecond)), w5Peer = Spread(peers.compactMap(\.w5gCommitsPerSecond))
    let serverOurs = Spread(ours.compactMap(\.serverTransactionsPerSecond))
    let serverPeer = Spread(peers.compactMap(\.serverTransactionsPerSecond))
    print("\nMedians [min-max]:")
    print(String(format: "  W5g     OpenRealm %.0f [%.0f-%.0f] commits/s, SQLite WAL FULL (GRDB) %.0f [%.0f-%.0f]: %.2fx (target >= 5x)",
                 w5Ours.median, w5Ours.min, w5Ours.max, w5Peer.median, w5Peer.min, w5Peer.max, w5Ours.median / w5Peer.median))
    print(String(format: "  server  OpenRealm %.0f [%.0f-%.0f] txn/s, GRDB DatabasePool %.0f [%.0f-%.0f]: %.2fx (target >= 2x)",
                 serverOurs.median, serverOurs.min, serverOurs.max, serverPeer.median, serverPeer.min, serverPeer.max,
                 serverOurs.median / serverPeer.median))
}
