// MutableSetAuditTests.swift — MutableSets of objects against Realm Swift's MutableSetTests:
// the set algebra (isSubset, intersects, formIntersection, subtract) between managed sets of
// objects without a primary key, whose elements are new accessors each time they are read.

import Foundation
import Testing

import OpenRealm

final class SetAuditCard: Object {
    @Persisted var label = ""
}

final class SetAuditDeck: Object {
    @Persisted var name = ""
    @Persisted var cards: MutableSet<SetAuditCard>
}

/// A Realm with three cards (a, b, c) and two empty decks; the decks are read back from the
/// Realm, so nothing holds the instances that were added.
private func decksRealm() throws -> (Realm, [SetAuditCard], MutableSet<SetAuditCard>, MutableSet<SetAuditCard>) {
    let realm = try Realm(configuration: .init(inMemoryIdentifier: "set-audit-\(UUID().uuidString)",
                                               objectTypes: [SetAuditCard.self, SetAuditDeck.self]))
    try realm.write {
        for label in ["a", "b", "c"] { realm.add(SetAuditCard(value: ["label": label])) }
        realm.add(SetAuditDeck(value: ["name": "left"]))
        realm.add(SetAuditDeck(value: ["name": "right"]))
    }
    let cards = Array(realm.objects(SetAuditCard.self).sorted(byKeyPath: "label"))
    let decks = realm.objects(SetAuditDeck.self).sorted(byKeyPath: "name")
    return (realm, cards, decks[0].cards, decks[1].cards)
}

/// The labels of a set's cards, sorted.
private func labels(_ set: MutableSet<SetAuditCard>) -> [String] { set.map(\.label).sorted() }

@Suite("MutableSets of objects as Realm (MutableSetTests)")
struct MutableSetAuditTests {
    @Test("isSubset and intersects between two managed sets compare the objects, not the accessors")
    func subsetAndIntersects() throws {
        let (realm, card, left, right) = try decksRealm()
        try realm.write {
            left.insert(objectsIn: [card[0], card[1]])
            right.insert(card[0])
        }
        #expect(right.isSubset(of: left), "{a} is a subset of {a, b}")
        #expect(!left.isSubset(of: right), "{a, b} is not a subset of {a}")
        #expect(left.intersects(right) && right.intersects(left), "{a, b} and {a} share a")
        #expect(left.isSubset(of: left), "a set is a subset of itself")
        try realm.write { right.removeAll() }
        #expect(!left.intersects(right) && right.isSubset(of: left), "the empty set")
    }

    @Test("formIntersection and subtract between two managed sets keep and remove the shared objects")
    func intersectionAndSubtract() throws {
        let (realm, card, left, right) = try decksRealm()
        try realm.write {
            left.insert(objectsIn: [card[0], card[1]])
            right.insert(objectsIn: [card[1], card[2]])
            left.formIntersection(right)
        }
        #expect(labels(left) == ["b"], "{a, b} ∩ {b, c}")
        try realm.write {
            left.insert(card[0])
            left.subtract(right)
        }
        #expect(labels(left) == ["a"], "{a, b} − {b, c}")
        #expect(labels(right) == ["b", "c"], "the other set is unchanged")
    }

    @Test("a managed set against an array of the same objects read again from the Realm")
    func againstArrayOfManagedObjects() throws {
        let (realm, card, left, _) = try decksRealm()
        try realm.write { left.insert(objectsIn: [card[0], card[1]]) }
        let again = Array(realm.objects(SetAuditCard.self).sorted(byKeyPath: "label"))
        #expect(left.isSubset(of: again) && left.intersects([again[1]]))
        #expect(!left.isSubset(of: [again[0]]) && !left.intersects([again[2]]))
        try realm.write { left.formIntersection([again[1], again[2]]) }
        #expect(labels(left) == ["b"])
    }

    @Test("unmanaged sets compare objects without a primary key by identity, as Realm's isEqual")
    func unmanagedIdentity() {
        let first = SetAuditCard(value: ["label": "a"])
        let twin = SetAuditCard(value: ["label": "a"])
        let set = MutableSet<SetAuditCard>()
        let other = MutableSet<SetAuditCard>()
        set.insert(first)
        other.insert(twin)
        #expect(!set.isSubset(of: other) && !set.intersects(other), "equal values, two objects")
        other.insert(first)
        #expect(set.isSubset(of: other) && set.intersects(other))
        other.formIntersection(set)
        #expect(other.count == 1 && other[0] === first)
    }
}
