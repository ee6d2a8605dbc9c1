// ObjectIdAuditTests.swift — ObjectId against Realm Swift's ObjectIdTests: text round trips, the
// timestamp of a made id, equality and the order of ids, and ids stored and queried in a Realm.

import Foundation
import Testing

import OpenRealm

/// An object keyed by an ObjectId.
final class ObjectIdAuditItem: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var other: ObjectId?
}

@Suite("ObjectId as Realm (ObjectIdTests)")
struct ObjectIdAuditTests {
    private let low = "000123450000ffbeef91906c"
    private let high = "000123450000ffbeef91906d"

    @Test("an id made from its text gives that text back")
    func stringRoundTrip() throws {
        let id = try ObjectId(string: low)
        #expect(id.stringValue == low)
        #expect(id.description == low)
        #expect(try ObjectId(string: low.uppercased()).stringValue == low)
    }

    @Test("text that is not 24 hex digits is refused")
    func invalidStringThrows() {
        #expect(throws: (any Error).self) { try ObjectId(string: "") }
        #expect(throws: (any Error).self) { try ObjectId(string: "000123450000ffbeef91906") }
        #expect(throws: (any Error).self) { try ObjectId(string: "000123450000ffbeef91906c0") }
        #expect(throws: (any Error).self) { try ObjectId(string: "000123450000ffbeef91906g") }
    }

    @Test("an id made from a date keeps the date to the second")
    func timestampKeepsSeconds() {
        let now = Date()
        let id = ObjectId(timestamp: now, machineId: 10, processId: 20)
        #expect(Int(id.timestamp.timeIntervalSince1970) == Int(now.timeIntervalSince1970))
        let generated = ObjectId.generate()
        #expect(abs(generated.timestamp.timeIntervalSince(now)) < 5)
    }

    @Test("ObjectId() is all zeros and generate() makes a new id each time")
    func zeroAndGenerated() {
        #expect(ObjectId().stringValue == String(repeating: "0", count: 24))
        let ids = (0..<100).map { _ in ObjectId.generate() }
        #expect(Set(ids).count == 100)
    }

    @Test("ids of the same text are equal and hash alike; other ids are not equal")
    func equality() throws {
        let a = try ObjectId(string: low)
        let b = try ObjectId(string: high)
        let c = try ObjectId(string: low)
        #expect(a == c && a.hashValue == c.hashValue)
        #expect(a != b)
        #expect(!(a != c))
    }

    @Test("ids order by their bytes: <, <=, > and >=")
    func ordering() throws {
        let a = try ObjectId(string: low)
        let b = try ObjectId(string: high)
        let c = try ObjectId(string: low)
        #expect(b > a && !(a > c))
        #expect(b >= a && a >= c)
        #expect(a < b && !(a < c))
        #expect(a <= b && a <= c)
        // The first byte weighs most.
        #expect(try ObjectId(string: "010000000000000000000000") > ObjectId(string: "00ffffffffffffffffffffff"))
    }

    @Test("ids are stored, found by primary key and compared in queries as in memory")
    func storedAndQueried() throws {
        let realm = try Realm(configuration: .init(
            inMemoryIdentifier: "objectid-audit-\(UUID().uuidString)", objectTypes: [ObjectIdAuditItem.self]))
        let a = try ObjectId(string: low)
        let b = try ObjectId(string: high)
        try realm.write {
            realm.create(ObjectIdAuditItem.self, value: ["id": a, "other": b])
            realm.create(ObjectIdAuditItem.self, value: ["id": b])
        }
        #expect(realm.object(ofType: ObjectIdAuditItem.self, forPrimaryKey: a)?.other == b)
        #expect(realm.object(ofType: ObjectIdAuditItem.self, forPrimaryKey: try ObjectId(string: high))?.other == nil)
        let items = realm.objects(ObjectIdAuditItem.self)
        #expect(items.filter("id > %@", a).map(\.id) == [b])
        #expect(items.where { $0.id < b }.map(\.id) == [a])
        #expect(items.filter("other == nil").map(\.id) == [b])
        #expect(items.sorted(byKeyPath: "id", ascending: false).map(\.id) == [b, a])
    }
}
