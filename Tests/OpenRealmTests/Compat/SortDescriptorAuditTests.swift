// SortDescriptorAuditTests.swift — SortDescriptor against Realm Swift's SortDescriptorTests: the
// default direction, reversed(), the description, the string literal, and sorting by a descriptor.

import Foundation
import Testing

import OpenRealm

/// An object sorted by its key paths.
final class SortAuditItem: Object {
    @Persisted var name: String
    @Persisted var rank: Int
}

@Suite("SortDescriptor as Realm (SortDescriptorTests)")
struct SortDescriptorAuditTests {
    @Test("a descriptor sorts ascending unless told otherwise")
    func ascendingByDefault() {
        #expect(SortDescriptor(keyPath: "rank").ascending)
        #expect(SortDescriptor(keyPath: \SortAuditItem.rank).ascending)
        #expect(!SortDescriptor(keyPath: "rank", ascending: false).ascending)
    }

    @Test("reversed() keeps the key path and flips the direction, twice back to ascending")
    func reversedFlipsDirection() {
        let descriptor = SortDescriptor(keyPath: "rank")
        let reversed = descriptor.reversed()
        #expect(reversed.keyPath == "rank")
        #expect(!reversed.ascending)
        #expect(reversed.reversed().ascending)
        #expect(reversed.reversed() == descriptor)
        #expect(reversed != descriptor)
    }

    @Test("the description names the key path and the direction")
    func descriptionNamesKeyPathAndDirection() {
        #expect(SortDescriptor(keyPath: "property").description
                == "SortDescriptor(keyPath: property, direction: ascending)")
        #expect(SortDescriptor(keyPath: "property", ascending: false).description
                == "SortDescriptor(keyPath: property, direction: descending)")
    }

    @Test("a string literal is an ascending descriptor of that key path")
    func stringLiteralIsAscendingDescriptor() {
        let literal: OpenRealm.SortDescriptor = "property"
        #expect(literal == SortDescriptor(keyPath: "property"))
        #expect(literal.hashValue == SortDescriptor(keyPath: "property").hashValue)
        #expect(SortDescriptor(keyPath: \SortAuditItem.name) == "name")
    }

    @Test("Results sort by a descriptor, by its reverse and by literals")
    func resultsSortByDescriptors() throws {
        let realm = try Realm(configuration: .init(
            inMemoryIdentifier: "sort-audit-\(UUID().uuidString)", objectTypes: [SortAuditItem.self]))
        try realm.write {
            for (name, rank) in [("b", 2), ("a", 2), ("c", 1)] {
                realm.create(SortAuditItem.self, value: ["name": name, "rank": rank])
            }
        }
        let items = realm.objects(SortAuditItem.self)
        let byName = SortDescriptor(keyPath: "name")
        #expect(items.sorted(by: [byName]).map(\.name) == ["a", "b", "c"])
        #expect(items.sorted(by: [byName.reversed()]).map(\.name) == ["c", "b", "a"])
        #expect(items.sorted(by: ["rank", "name"]).map(\.name) == ["c", "a", "b"])
        #expect(items.sorted(by: [SortDescriptor(keyPath: \SortAuditItem.rank, ascending: false), "name"]).map(\.name)
                == ["a", "b", "c"])
    }
}
