// OpenRealmSwift.swift — the workload through OpenRealm's public Swift API, written as a Realm
// Swift user writes it: unmanaged objects added in one `realm.write`, `object(ofType:
// forPrimaryKey:)`, iteration over `realm.objects(_:)`, property reads and writes.

import Foundation
import OpenRealm

final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var score: Double
}

func runOpenRealmSwift(directory: String, _ config: BenchConfig) -> Measurements {
    var m = Measurements()
    let path = directory + "/person.realm"
    // Default durability (full: the commit is on stable storage when it returns); the schema is
    // created when the Realm opens (untimed).
    let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Person.self])
    do {
        let realm = try Realm(configuration: configuration)

        // W1: one write transaction, one unmanaged Person per object, realm.add.
        var t0 = nowNs()
        var t1: UInt64 = 0
        try realm.write {
            for i in 0..<config.count {
                let person = Person()
                person.id = personID(i)
                person.name = personName(i)
                person.age = personAge(i)
                person.score = personScore(i)
                realm.add(person)
            }
            t1 = nowNs()
        }
        m[.w1Seconds] = secondsSince(t0)
        m[.w1CommitSeconds] = secondsSince(t1)
        m[.w1MiB] = mebibytes(fileSize(path))
        verifyOpenRealm(realm, config, afterW6: false)
        if config.w1Only { return m }

        // W2: point lookups by primary key, reading `name`, in the Realm's read transaction.
        var checksum: UInt64 = 0
        t0 = nowNs()
        for k in 0..<config.lookups {
            guard let person = realm.object(ofType: Person.self, forPrimaryKey: lookupID(k, config.count)) else {
                fail("OpenRealm Swift: W2 lookup \(k) found nothing")
            }
            checksum &+= nameHash(person.name)
        }
        m[.w2Microseconds] = Double(nowNs() - t0) / 1e3 / Double(config.lookups)
        checkW2("OpenRealm Swift", config, checksum)

        // W3: the count query, a new Results each run (a Results caches its count for the
        // version it read, as Realm's does; a new one parses the predicate and runs the query).
        if config.w3 {
            var times: [Double] = []
            var answer = 0
            for _ in 0..<config.w3Runs {
                let start = nowNs()
                answer = realm.objects(Person.self).filter("age >= 50 AND score < 0.5").count
                times.append(Double(nowNs() - start) / 1e6)
            }
            checkW3("OpenRealm Swift", config, answer)
            m[.w3Milliseconds] = Spread(times).median
        }

        // W4: the sum of `score` over all objects, as Realm's API has it: Results.sum(ofProperty:).
        var times: [Double] = []
        var sum = 0.0
        for _ in 0..<config.w4Runs {
            let start = nowNs()
            sum = realm.objects(Person.self).sum(ofProperty: "score")
            times.append(Double(nowNs() - start) / 1e6)
        }
        m[.w4Milliseconds] = Spread(times).median
        checkW4("OpenRealm Swift", config, sum)

        // Not a workload of the brief: W4's sum by iterating the objects and reading `score`
        // (what a sum costs without the aggregate: an accessor and a C call per object), once.
        let start = nowNs()
        sum = openRealmSumOfScores(realm)
        m[.w4IterateMilliseconds] = Double(nowNs() - start) / 1e6
        checkW4("OpenRealm Swift (iterating)", config, sum)

        // W6: age = age + 1 on every object, one write transaction.
        t0 = nowNs()
        try realm.write {
            for person in realm.objects(Person.self) {
                person.age += 1
            }
            t1 = nowNs()
        }
        m[.w6Seconds] = secondsSince(t0)
        m[.w6CommitSeconds] = secondsSince(t1)
        m[.w6MiB] = mebibytes(fileSize(path))
        verifyOpenRealm(realm, config, afterW6: true)
    } catch {
        fail("OpenRealm Swift: \(error)")
    }
    return m
}

/// W4 through the public API: every object's `score`, read by iterating the results.
@inline(never)
func openRealmSumOfScores(_ realm: Realm) -> Double {
    var sum = 0.0
    for person in realm.objects(Person.self) { sum += person.score }
    return sum
}

/// Untimed: the object count, and the first, middle and last objects read back.
func verifyOpenRealm(_ realm: Realm, _ config: BenchConfig, afterW6: Bool) {
    let count = realm.objects(Person.self).count
    if count != config.count { fail("OpenRealm Swift: \(count) objects, expected \(config.count)") }
    for i in probeIndices(config.count) {
        guard let person = realm.object(ofType: Person.self, forPrimaryKey: personID(i)) else {
            fail("OpenRealm Swift: object \(i) not found")
        }
        if person.name != personName(i) || person.age != personAge(i) + (afterW6 ? 1 : 0) || person.score != personScore(i) {
            fail("OpenRealm Swift: object \(i) read back wrong")
        }
    }
}
