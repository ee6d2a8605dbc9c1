// ListAuditTests.swift — Lists of objects against Realm Swift's ListTests (audit-listmap):
// replaceSubrange and removeSubrange with a range past the end stop with the message of the
// removal Realm's List makes first, and an empty range past the end with nothing to insert
// changes nothing.

import Foundation
import Testing

import OpenRealm

final class ListAuditItem: Object {
    @Persisted var label = ""
}

final class ListAuditHolder: Object {
    @Persisted var items: List<ListAuditItem>
}

@Suite("List audit (Realm Swift's ListTests)")
struct ListAuditTests {
    @Test("an empty range past the end with no new elements leaves the list as it was",
          arguments: [false, true])
    func emptyRangePastEnd(managed: Bool) throws {
        let holder = ListAuditHolder()
        holder.items.append(objectsIn: ["a", "b"].map { ListAuditItem(value: [$0]) })
        var realm: Realm?
        if managed {
            realm = try Realm(configuration: .init(inMemoryIdentifier: "list-audit-\(UUID().uuidString)",
                                                   objectTypes: [ListAuditHolder.self, ListAuditItem.self]))
            realm!.beginWrite()
            realm!.add(holder)
        }
        holder.items.replaceSubrange(5..<5, with: [])
        holder.items.removeSubrange(7..<7)
        #expect(holder.items.map(\.label) == ["a", "b"])
        realm?.cancelWrite()
    }

    @Test("a range past the end stops with the message of the first removal that fails",
          arguments: [
              // count 0: the removal at 4 fails at once
              "0 4..<5: Index 4 is out of bounds (must be less than 0).",
              // count 0: the removal at 0 fails at once
              "0 0..<9: Index 0 is out of bounds (must be less than 0).",
              // count 3: removals at 1 leave 2, then 1, and the third fails
              "3 1..<5: Index 1 is out of bounds (must be less than 1).",
              // count 3: the lower bound is past the end, so the first removal fails
              "3 6..<8: Index 6 is out of bounds (must be less than 3).",
              "3 -2..<1: Cannot pass a negative value for 'index'.",
          ], [false, true])
    func rangePastEnd(caseAndMessage: String, managed: Bool) async {
        let parts = caseAndMessage.split(separator: ":", maxSplits: 1).map(String.init)
        let message = parts[1].trimmingCharacters(in: .whitespaces)
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [spec = parts[0] as String, managed] in
            let words = spec.split(separator: " ")
            let count = Int(words[0])!
            let bounds = words[1].components(separatedBy: "..<").map { Int($0)! }
            let holder = ListAuditHolder()
            holder.items.append(objectsIn: (0..<count).map { ListAuditItem(value: ["\($0)"]) })
            var realm: Realm?
            if managed {
                realm = try Realm(configuration: .init(inMemoryIdentifier: "list-audit-exit-\(UUID().uuidString)",
                                                       objectTypes: [ListAuditHolder.self, ListAuditItem.self]))
                realm!.beginWrite()
                realm!.add(holder)
            }
            holder.items.replaceSubrange(bounds[0]..<bounds[1], with: [ListAuditItem(value: ["new"])])
            withExtendedLifetime(realm) {}
        }
        expectStop(message, result)
    }
}
