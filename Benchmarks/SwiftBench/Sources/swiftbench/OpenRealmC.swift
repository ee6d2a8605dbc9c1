// OpenRealmC.swift — the same workload through OpenRealm's C API (cengine.h), called from Swift
// with bench_objects.c's loops: W1 is ce_object_create_with_values per object, W2
// ce_object_find_primary_key + ce_object_get, W4 ce_table_sum, W6 ce_object_key_at +
// ce_object_get + ce_object_set. It gives the "Swift API / C API" ratio within one run.

import CEngine

private func check(_ ok: Bool, _ what: String) {
    if ok { return }
    let code = ce_last_error_code()
    fail("OpenRealm C API: \(what) failed: [\(code.rawValue) \(String(cString: ce_error_name(code)))] \(String(cString: ce_last_error_message()))")
}

private struct CSchema {
    var table: ce_table_key = 0
    var id: ce_column_key = 0, name: ce_column_key = 0, age: ce_column_key = 0, score: ce_column_key = 0
    var columnCount = 0
}

private func createSchema(_ db: OpaquePointer) -> CSchema {
    var s = CSchema()
    var txn: OpaquePointer?
    check(ce_txn_begin_write(db, &txn), "begin write (schema)")
    check(ce_table_add(txn, "Person", &s.table), "ce_table_add")
    func add(_ name: String, _ type: ce_type, primaryKey: Bool = false) -> ce_column_key {
        var column: ce_column_key = 0
        name.withCString { cName in
            var info = ce_property_info()
            info.name = cName
            info.type = type
            info.primary_key = primaryKey
            check(ce_property_add(txn, s.table, &info, &column), "ce_property_add \(name)")
        }
        return column
    }
    s.id = add("id", CE_TYPE_INT, primaryKey: true)
    s.name = add("name", CE_TYPE_STRING)
    s.age = add("age", CE_TYPE_INT)
    s.score = add("score", CE_TYPE_DOUBLE)
    check(ce_property_count(txn, s.table, &s.columnCount), "ce_property_count")
    if s.columnCount != 4 || [s.id, s.name, s.age, s.score].contains(where: { $0 >= 4 }) {
        fail("OpenRealm C API: expected 4 column slots numbered 0-3")
    }
    check(ce_txn_commit(txn), "commit (schema)")
    return s
}

func runOpenRealmC(directory: String, _ config: BenchConfig) -> Measurements {
    var m = Measurements()
    let path = directory + "/person.realm"
    var options = ce_db_options()
    ce_db_options_init(&options)  // full durability
    var openedDB: OpaquePointer?
    check(ce_db_open(path, &options, &openedDB), "ce_db_open")
    let db = openedDB!
    let s = createSchema(db)
    let nameBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
    defer { nameBuffer.deallocate() }
    let names = UnsafeRawPointer(nameBuffer).assumingMemoryBound(to: CChar.self)

    // W1
    var t0 = nowNs()
    var txn: OpaquePointer?
    check(ce_txn_begin_write(db, &txn), "W1 ce_txn_begin_write")
    var values = [ce_value](repeating: ce_value(), count: 4)
    values.withUnsafeMutableBufferPointer { v in
        for i in 0..<config.count {
            let length = formatName(i, nameBuffer)
            v[Int(s.id)].type = CE_TYPE_INT
            v[Int(s.id)].integer = Int64(personID(i))
            v[Int(s.name)].type = CE_TYPE_STRING
            v[Int(s.name)].string.data = names
            v[Int(s.name)].string.size = length
            v[Int(s.age)].type = CE_TYPE_INT
            v[Int(s.age)].integer = Int64(personAge(i))
            v[Int(s.score)].type = CE_TYPE_DOUBLE
            v[Int(s.score)].double_value = personScore(i)
            var object: ce_object_key = 0
            check(ce_object_create_with_values(txn, s.table, v.baseAddress, s.columnCount, &object),
                  "W1 ce_object_create_with_values")
        }
    }
    var t1 = nowNs()
    check(ce_txn_commit(txn), "W1 ce_txn_commit")
    m[.w1CommitSeconds] = secondsSince(t1)
    m[.w1Seconds] = secondsSince(t0)
    m[.w1MiB] = mebibytes(fileSize(path))
    verify(db, s, config, afterW6: false)
    if config.w1Only {
        check(ce_db_close(db), "ce_db_close")
        return m
    }

    // W2
    var checksum: UInt64 = 0
    t0 = nowNs()
    check(ce_txn_begin_read(db, &txn), "W2 ce_txn_begin_read")
    for k in 0..<config.lookups {
        var key = ce_value()
        key.type = CE_TYPE_INT
        key.integer = Int64(lookupID(k, config.count))
        var object: ce_object_key = 0
        var found = false
        check(ce_object_find_primary_key(txn, s.table, &key, &object, &found), "W2 ce_object_find_primary_key")
        var name = ce_value()
        check(found && ce_object_get(txn, s.table, object, s.name, &name), "W2 ce_object_get name")
        checksum &+= nameHash(UnsafeRawPointer(name.string.data), name.string.size)
    }
    ce_txn_end(txn)
    m[.w2Microseconds] = Double(nowNs() - t0) / 1e3 / Double(config.lookups)
    checkW2("OpenRealm C API", config, checksum)

    // W4
    var times: [Double] = []
    var sum = 0.0
    check(ce_txn_begin_read(db, &txn), "W4 ce_txn_begin_read")
    for _ in 0..<config.w4Runs {
        let start = nowNs()
        var total = ce_value()
        check(ce_table_sum(txn, s.table, s.score, &total, nil), "W4 ce_table_sum")
        sum = total.double_value
        times.append(Double(nowNs() - start) / 1e6)
    }
    ce_txn_end(txn)
    m[.w4Milliseconds] = Spread(times).median
    checkW4("OpenRealm C API", config, sum)

    // W6
    t0 = nowNs()
    check(ce_txn_begin_write(db, &txn), "W6 ce_txn_begin_write")
    var count = 0
    check(ce_object_count(txn, s.table, &count), "W6 ce_object_count")
    for i in 0..<count {
        var object: ce_object_key = 0
        var age = ce_value()
        check(ce_object_key_at(txn, s.table, i, &object) && ce_object_get(txn, s.table, object, s.age, &age),
              "W6 ce_object_key_at + ce_object_get age")
        age.integer += 1
        check(ce_object_set(txn, s.table, object, s.age, &age), "W6 ce_object_set age")
    }
    t1 = nowNs()
    check(ce_txn_commit(txn), "W6 ce_txn_commit")
    m[.w6CommitSeconds] = secondsSince(t1)
    m[.w6Seconds] = secondsSince(t0)
    m[.w6MiB] = mebibytes(fileSize(path))
    verify(db, s, config, afterW6: true)
    check(ce_db_close(db), "ce_db_close")
    return m
}

/// Untimed: the object count, and the first, middle and last objects read back.
private func verify(_ db: OpaquePointer, _ s: CSchema, _ config: BenchConfig, afterW6: Bool) {
    var txn: OpaquePointer?
    check(ce_txn_begin_read(db, &txn), "begin read (verification)")
    defer { ce_txn_end(txn) }
    var count = 0
    check(ce_object_count(txn, s.table, &count), "ce_object_count (verification)")
    if count != config.count { fail("OpenRealm C API: \(count) objects, expected \(config.count)") }
    for i in probeIndices(config.count) {
        var key = ce_value()
        key.type = CE_TYPE_INT
        key.integer = Int64(personID(i))
        var object: ce_object_key = 0
        var found = false
        var name = ce_value(), age = ce_value(), score = ce_value()
        check(ce_object_find_primary_key(txn, s.table, &key, &object, &found) && found
                && ce_object_get(txn, s.table, object, s.name, &name) && ce_object_get(txn, s.table, object, s.age, &age)
                && ce_object_get(txn, s.table, object, s.score, &score), "read an object back (verification)")
        let text = String(decoding: UnsafeRawBufferPointer(start: name.string.data, count: name.string.size), as: UTF8.self)
        if text != personName(i) || age.integer != Int64(personAge(i) + (afterW6 ? 1 : 0)) || score.double_value != personScore(i) {
            fail("OpenRealm C API: object \(i) read back wrong")
        }
    }
}
