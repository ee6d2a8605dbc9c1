// GRDBBench.swift — the workload through GRDB (SQLite from Swift), written for speed as a GRDB
// user would: a DatabasePool (GRDB's WAL access), `PRAGMA synchronous = FULL` as the C SQLite
// benchmark, one `write` transaction for W1 with one cached prepared INSERT statement, cached
// prepared statements for the lookups, the count and the sum, and one UPDATE statement for W6.
// The "grdb-records" system runs W1 the record way: a PersistableRecord struct with a
// hand-written `encode(to:)` (GRDB's faster form than Codable), `insert(db)` per object.

import GRDB

struct PersonRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "person"
    var id: Int
    var name: String
    var age: Int
    var score: Double

    init(id: Int, name: String, age: Int, score: Double) {
        self.id = id
        self.name = name
        self.age = age
        self.score = score
    }

    init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        age = row["age"]
        score = row["score"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["age"] = age
        container["score"] = score
    }
}

/// The same pragmas as bench_objects.c's SQLite: WAL (a DatabasePool sets it) and
/// synchronous=FULL; auto-checkpoint left at SQLite's default (1000 pages). A DatabasePool sets
/// synchronous=NORMAL on its writer after `prepareDatabase` runs, so FULL is set on the writer
/// connection (the one that commits) once the pool is open, and checked.
func openGRDB(_ path: String) throws -> DatabasePool {
    let pool = try DatabasePool(path: path, configuration: Configuration())
    try pool.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA synchronous = FULL")
        let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode")
        let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous")
        if mode != "wal" || synchronous != 2 {
            fail("GRDB: journal_mode \(mode ?? "?"), synchronous \(synchronous ?? -1); expected wal and 2 (FULL)")
        }
        try db.execute(sql: """
            CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL)
            """)
    }
    return pool
}

func sqliteVersion() -> String {
    (try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") }) ?? "unknown"
}

/// Empties the WAL into the db and truncates it (untimed), so that the db file alone is the
/// database, as bench_objects.c measures SQLite's file.
private func checkpoint(_ pool: DatabasePool) throws {
    try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
}

func runGRDB(directory: String, _ config: BenchConfig, records: Bool) -> Measurements {
    var m = Measurements()
    let path = directory + "/person.sqlite"
    let wal = path + "-wal"
    let system = records ? "GRDB records" : "GRDB"
    do {
        let pool = try openGRDB(path)

        // W1: one write transaction.
        var t0 = nowNs()
        let t1: UInt64
        if records {
            t1 = try pool.write { db in
                for i in 0..<config.count {
                    try PersonRecord(id: personID(i), name: personName(i), age: personAge(i), score: personScore(i)).insert(db)
                }
                return nowNs()
            }
        } else {
            t1 = try pool.write { db in
                let insert = try db.cachedStatement(sql: "INSERT INTO person (id, name, age, score) VALUES (?, ?, ?, ?)")
                for i in 0..<config.count {
                    try insert.execute(arguments: [personID(i), personName(i), personAge(i), personScore(i)])
                }
                return nowNs()
            }
        }
        m[.w1CommitSeconds] = secondsSince(t1)
        m[.w1Seconds] = secondsSince(t0)
        m[.w1RawMiB] = mebibytes(fileSize(path) + fileSize(wal))
        try checkpoint(pool)
        m[.w1MiB] = mebibytes(fileSize(path) + fileSize(wal))
        try verifyGRDB(pool, config, afterW6: false, system)
        if records || config.w1Only { return m }

        // W2: point lookups in one read transaction.
        t0 = nowNs()
        let checksum: UInt64 = try pool.read { db in
            let select = try db.cachedStatement(sql: "SELECT name FROM person WHERE id = ?")
            var checksum: UInt64 = 0
            for k in 0..<config.lookups {
                guard let name = try String.fetchOne(select, arguments: [lookupID(k, config.count)]) else {
                    fail("GRDB: W2 lookup \(k) found nothing")
                }
                checksum &+= nameHash(name)
            }
            return checksum
        }
        m[.w2Microseconds] = Double(nowNs() - t0) / 1e3 / Double(config.lookups)
        checkW2(system, config, checksum)

        // W3: the count query, no index on age.
        if config.w3 {
            let (times, answer): ([Double], Int) = try pool.read { db in
                let query = try db.cachedStatement(sql: "SELECT count(*) FROM person WHERE age >= 50 AND score < 0.5")
                var times: [Double] = []
                var answer = 0
                for _ in 0..<config.w3Runs {
                    let start = nowNs()
                    answer = try Int.fetchOne(query) ?? -1
                    times.append(Double(nowNs() - start) / 1e6)
                }
                return (times, answer)
            }
            checkW3(system, config, answer)
            m[.w3Milliseconds] = Spread(times).median
        }

        // W4: SELECT sum(score), in one read transaction, the median of the runs.
        let (times, sum): ([Double], Double) = try pool.read { db in
            let select = try db.cachedStatement(sql: "SELECT sum(score) FROM person")
            var times: [Double] = []
            var sum = 0.0
            for _ in 0..<config.w4Runs {
                let start = nowNs()
                sum = try Double.fetchOne(select) ?? .nan
                times.append(Double(nowNs() - start) / 1e6)
            }
            return (times, sum)
        }
        m[.w4Milliseconds] = Spread(times).median
        checkW4(system, config, sum)

        // W6: one UPDATE in one write transaction.
        t0 = nowNs()
        let t6 = try pool.write { db in
            try db.execute(sql: "UPDATE person SET age = age + 1")
            return nowNs()
        }
        m[.w6CommitSeconds] = secondsSince(t6)
        m[.w6Seconds] = secondsSince(t0)
        m[.w6RawMiB] = mebibytes(fileSize(path) + fileSize(wal))
        try checkpoint(pool)
        m[.w6MiB] = mebibytes(fileSize(path) + fileSize(wal))
        try verifyGRDB(pool, config, afterW6: true, system)
    } catch {
        fail("\(system): \(error)")
    }
    return m
}

/// Untimed: the row count, and the first, middle and last rows read back.
private func verifyGRDB(_ pool: DatabasePool, _ config: BenchConfig, afterW6: Bool, _ system: String) throws {
    try pool.read { db in
        let count = try PersonRecord.fetchCount(db)
        if count != config.count { fail("\(system): \(count) rows, expected \(config.count)") }
        for i in probeIndices(config.count) {
            guard let row = try PersonRecord.fetchOne(db, key: personID(i)) else { fail("\(system): row \(i) not found") }
            if row.name != personName(i) || row.age != personAge(i) + (afterW6 ? 1 : 0) || row.score != personScore(i) {
                fail("\(system): row \(i) read back wrong")
            }
        }
    }
}
