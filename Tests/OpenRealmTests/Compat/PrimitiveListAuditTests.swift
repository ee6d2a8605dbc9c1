// PrimitiveListAuditTests.swift — Lists of values against Realm Swift's PrimitiveListTests, for
// what ValueMatrixTests leaves out: invalidation, subscripts, first and last, objects(at:),
// insert, remove, removeLast, replace, replaceSubrange, move and swapAt, aggregates of empty
// lists, lists of PersistableEnum and CustomPersistable values, and the messages of the index
// errors.

import Foundation
import Testing

import OpenRealm

enum PrimitiveAuditRank: Int, PersistableEnum, CaseIterable { case low = 1, middle, high }
enum PrimitiveAuditTag: String, PersistableEnum, CaseIterable { case alpha, beta, gamma }

/// A value stored as an Int (Realm's IntWrapper in its tests).
struct PrimitiveAuditCount: CustomPersistable, Hashable {
    typealias PersistedType = Int
    var count: Int
    init(_ count: Int) { self.count = count }
    init(persistedValue: Int) { count = persistedValue }
    var persistableValue: Int { count }
}

/// A value stored as a String.
struct PrimitiveAuditLabel: CustomPersistable, Hashable {
    typealias PersistedType = String
    var text: String
    init(_ text: String) { self.text = text }
    init(persistedValue: String) { text = persistedValue }
    var persistableValue: String { text }
}

/// Lists, sets and maps of the value types the audits check (the three audit files share it).
final class PrimitiveAuditHolder: Object {
    @Persisted var ints: List<Int>
    @Persisted var optInt8s: List<Int8?>
    @Persisted var floats: List<Float>
    @Persisted var optDoubles: List<Double?>
    @Persisted var strings: List<String>
    @Persisted var optStrings: List<String?>
    @Persisted var datas: List<Data>
    @Persisted var optDates: List<Date?>
    @Persisted var decimals: List<Decimal128>
    @Persisted var optObjectIds: List<ObjectId?>
    @Persisted var uuids: List<UUID>
    @Persisted var ranks: List<PrimitiveAuditRank>
    @Persisted var optTags: List<PrimitiveAuditTag?>
    @Persisted var counts: List<PrimitiveAuditCount>
    @Persisted var optLabels: List<PrimitiveAuditLabel?>

    @Persisted var intSet: MutableSet<Int>
    @Persisted var optStringSet: MutableSet<String?>
    @Persisted var doubleSet: MutableSet<Double>
    @Persisted var optDateSet: MutableSet<Date?>
    @Persisted var decimalSet: MutableSet<Decimal128>
    @Persisted var uuidSet: MutableSet<UUID>
    @Persisted var dataSet: MutableSet<Data>
    @Persisted var rankSet: MutableSet<PrimitiveAuditRank>
    @Persisted var optTagSet: MutableSet<PrimitiveAuditTag?>
    @Persisted var countSet: MutableSet<PrimitiveAuditCount>
    @Persisted var optLabelSet: MutableSet<PrimitiveAuditLabel?>

    @Persisted var intMap: Map<String, Int>
    @Persisted var optStringMap: Map<String, String?>
    @Persisted var floatMap: Map<String, Float>
    @Persisted var optDecimalMap: Map<String, Decimal128?>
    @Persisted var dateMap: Map<String, Date>
    @Persisted var objectIdMap: Map<String, ObjectId>
    @Persisted var optBoolMap: Map<String, Bool?>
    @Persisted var rankMap: Map<String, PrimitiveAuditRank>
    @Persisted var optRankMap: Map<String, PrimitiveAuditRank?>
    @Persisted var optTagMap: Map<String, PrimitiveAuditTag?>
    @Persisted var countMap: Map<String, PrimitiveAuditCount>
    @Persisted var optLabelMap: Map<String, PrimitiveAuditLabel?>
}

/// An unmanaged holder, or one added to a new in-memory Realm (in a write left open: the caller
/// cancels it by dropping the Realm, as Realm's tests do).
func primitiveAuditHolder(_ managed: Bool) throws -> (Realm?, PrimitiveAuditHolder) {
    let holder = PrimitiveAuditHolder()
    guard managed else { return (nil, holder) }
    let realm = try Realm(configuration: .init(inMemoryIdentifier: "primitive-audit-\(UUID().uuidString)",
                                               objectTypes: [PrimitiveAuditHolder.self]))
    try realm.write { realm.add(holder) }
    return (realm, holder)
}

/// Runs `body` in a write transaction of `realm`, or directly without one.
func primitiveAuditWrite(_ realm: Realm?, _ body: () -> Void) throws {
    if let realm { try realm.write(body) } else { body() }
}

/// Every List operation of Realm's PrimitiveListTests on three distinct values.
private func listOperations<T: RealmCollectionValue>(_ realm: Realm?, _ list: List<T>, _ v: [T],
                                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
    let kind = "List<\(T.self)> \(realm == nil ? "unmanaged" : "managed")"
    #expect(!list.isInvalidated, "\(kind)", sourceLocation: sourceLocation)
    #expect(list.index(of: v[0]) == nil, "\(kind) index(of:) in an empty list", sourceLocation: sourceLocation)
    try primitiveAuditWrite(realm) {
        list.append(v[0])
        #expect(list.index(of: v[0]) == 0, "\(kind) index(of:)", sourceLocation: sourceLocation)
        list.append(v[1])
        #expect(list.index(of: v[0]) == 0 && list.index(of: v[1]) == 1, "\(kind) index(of:)", sourceLocation: sourceLocation)

        list.removeAll()
        list.append(objectsIn: v)
        #expect((0..<3).map { list[$0] } == v, "\(kind) subscript", sourceLocation: sourceLocation)
        #expect(list.first == v[0] && list.last == v[2], "\(kind) first and last", sourceLocation: sourceLocation)
        #expect(list.objects(at: [2, 1]) == [v[1], v[2]], "\(kind) objects(at:) in index order", sourceLocation: sourceLocation)
        list.removeAll()
        #expect(list.first == nil && list.last == nil && list.isEmpty, "\(kind) removeAll", sourceLocation: sourceLocation)
        list.removeAll()

        list.insert(v[0], at: 0)
        list.insert(v[1], at: 0)
        list.insert(v[2], at: 2)
        #expect(Array(list) == [v[1], v[0], v[2]], "\(kind) insert(_:at:)", sourceLocation: sourceLocation)

        list.removeAll()
        list.append(objectsIn: v)
        list.remove(at: 0)
        #expect(Array(list) == [v[1], v[2]], "\(kind) remove(at: 0)", sourceLocation: sourceLocation)
        list.remove(at: 1)
        #expect(Array(list) == [v[1]], "\(kind) remove(at: 1)", sourceLocation: sourceLocation)

        list.removeAll()
        list.append(objectsIn: v)
        list.removeLast()
        #expect(Array(list) == [v[0], v[1]], "\(kind) removeLast()", sourceLocation: sourceLocation)
        list.removeLast(2)
        #expect(list.isEmpty, "\(kind) removeLast(2)", sourceLocation: sourceLocation)

        list.append(objectsIn: v)
        list.replace(index: 1, object: v[0])
        #expect(Array(list) == [v[0], v[0], v[2]], "\(kind) replace(index:object:)", sourceLocation: sourceLocation)

        list.removeAll()
        list.replaceSubrange(0..<0, with: [])
        #expect(list.isEmpty, "\(kind) replaceSubrange of nothing", sourceLocation: sourceLocation)
        list.replaceSubrange(0..<0, with: [v[0]])
        #expect(Array(list) == [v[0]], "\(kind) replaceSubrange inserting", sourceLocation: sourceLocation)
        list.replaceSubrange(0..<1, with: v)
        #expect(Array(list) == v, "\(kind) replaceSubrange replacing", sourceLocation: sourceLocation)
        list.replaceSubrange(1..<2, with: [])
        #expect(Array(list) == [v[0], v[2]], "\(kind) replaceSubrange removing", sourceLocation: sourceLocation)

        list.removeAll()
        list.append(objectsIn: v)
        list.move(from: 2, to: 0)
        #expect(Array(list) == [v[2], v[0], v[1]], "\(kind) move(from:to:)", sourceLocation: sourceLocation)

        list.removeAll()
        list.append(objectsIn: v)
        list.swapAt(0, 2)
        #expect(Array(list) == [v[2], v[1], v[0]], "\(kind) swapAt", sourceLocation: sourceLocation)
    }
}

/// min() and max(): nil for an empty list, then the least and greatest of `v` (ascending).
private func listMinMax<T: RealmCollectionValue>(
    _ realm: Realm?, _ list: List<T>, _ v: [T], sourceLocation: SourceLocation = #_sourceLocation) throws
    where T.PersistedType: MinMaxType {
    try primitiveAuditWrite(realm) { list.removeAll() }
    #expect(list.min() == nil && list.max() == nil, "List<\(T.self)> min/max of nothing", sourceLocation: sourceLocation)
    try primitiveAuditWrite(realm) { list.append(objectsIn: v.reversed()) }
    #expect(list.min() == v.first && list.max() == v.last, "List<\(T.self)> min/max", sourceLocation: sourceLocation)
}

@Suite("Lists of values as Realm (PrimitiveListTests)")
struct PrimitiveListAuditTests {
    @Test("every List operation on values of each type", arguments: [false, true])
    func operations(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        let date = Date(timeIntervalSince1970: 1_000_000)
        try listOperations(realm, h.ints, [1, 2, 3])
        try listOperations(realm, h.optInt8s, [nil, 1, 3])
        try listOperations(realm, h.floats, [1.1, 2.2, 3.3])
        try listOperations(realm, h.optDoubles, [nil, 1.1, 3.3])
        try listOperations(realm, h.strings, ["a", "b", "c"])
        try listOperations(realm, h.optStrings, [nil, "a", "c"])
        try listOperations(realm, h.datas, [Data("a".utf8), Data("b".utf8), Data("c".utf8)])
        try listOperations(realm, h.optDates, [nil, date, date.addingTimeInterval(20)])
        try listOperations(realm, h.decimals, ["1.1", "2.2", "3.3"])
        try listOperations(realm, h.optObjectIds, [nil, ObjectId.generate(), ObjectId.generate()])
        try listOperations(realm, h.uuids, [UUID(), UUID(), UUID()])
        try listOperations(realm, h.ranks, [.low, .middle, .high])
        try listOperations(realm, h.optTags, [nil, .alpha, .gamma])
        try listOperations(realm, h.counts, [PrimitiveAuditCount(1), PrimitiveAuditCount(2), PrimitiveAuditCount(3)])
        try listOperations(realm, h.optLabels, [nil, PrimitiveAuditLabel("a"), PrimitiveAuditLabel("c")])
    }

    @Test("a managed List is invalidated with its object; an unmanaged one never")
    func invalidatedWithObject() throws {
        let (realm, holder) = try primitiveAuditHolder(true)
        let unmanaged = PrimitiveAuditHolder()
        #expect(!holder.ints.isInvalidated && !unmanaged.ints.isInvalidated)
        try realm!.write { realm!.delete(holder) }
        #expect(holder.ints.isInvalidated && holder.optStrings.isInvalidated && holder.counts.isInvalidated)
    }

    @Test("min and max: nil when empty, then the extremes, for numbers, decimals, enums and wrappers",
          arguments: [false, true])
    func minMax(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        try listMinMax(realm, h.ints, [1, 2, 3])
        try listMinMax(realm, h.floats, [1.1, 2.2, 3.3])
        try listMinMax(realm, h.decimals, ["1.1", "2.2", "3.3"])
        try listMinMax(realm, h.ranks, [.low, .middle, .high])
        try listMinMax(realm, h.counts, [PrimitiveAuditCount(1), PrimitiveAuditCount(2), PrimitiveAuditCount(3)])
        try primitiveAuditWrite(realm) { h.optDoubles.removeAll() }
        let none: [Double?] = [h.optDoubles.min(), h.optDoubles.max()]
        #expect(none == [nil, nil])
        try primitiveAuditWrite(realm) { h.optDoubles.append(objectsIn: [3.3, nil, 1.1]) }
        let extremes: [Double?] = [h.optDoubles.min(), h.optDoubles.max()]
        #expect(extremes == [1.1, 3.3])
    }

    @Test("sum of an empty list is zero and its average nil; wrappers sum as their values",
          arguments: [false, true])
    func sumAndAverage(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        #expect(h.ints.sum() == 0 && h.ints.average() as Double? == nil)
        #expect(h.floats.sum() == 0 && h.floats.average() as Double? == nil)
        #expect(h.decimals.sum() == 0 && h.decimals.average() as Decimal128? == nil)
        #expect(h.counts.sum() == PrimitiveAuditCount(0) && h.counts.average() as Double? == nil)
        #expect(h.optDoubles.sum() == 0 && h.optDoubles.average() as Double? == nil)
        try primitiveAuditWrite(realm) {
            h.counts.append(objectsIn: [PrimitiveAuditCount(1), PrimitiveAuditCount(2), PrimitiveAuditCount(6)])
            h.decimals.append(objectsIn: ["1.1", "2.2", "3.3"])
        }
        #expect(h.counts.sum() == PrimitiveAuditCount(9) && h.counts.average() as Double? == 3)
        #expect(h.decimals.sum() == "6.6" && h.decimals.average() as Decimal128? == "2.2")
    }

    @Test("managed lists of enums and wrappers sort and drop duplicates by their stored values")
    func sortedAndDistinct() throws {
        let (realm, h) = try primitiveAuditHolder(true)
        try realm!.write {
            h.ranks.append(objectsIn: [.middle, .high, .low, .middle])
            h.optTags.append(objectsIn: [.beta, nil, .gamma, .alpha, nil])
            h.counts.append(objectsIn: [3, 1, 2, 1].map { PrimitiveAuditCount($0) })
            h.optLabels.append(objectsIn: [PrimitiveAuditLabel("b"), nil, PrimitiveAuditLabel("a")])
        }
        #expect(Array(h.ranks.sorted(ascending: true)) == [.low, .middle, .middle, .high])
        #expect(Array(h.ranks.sorted(ascending: false)) == [.high, .middle, .middle, .low])
        #expect(Array(h.ranks.distinct()) == [.middle, .high, .low])
        #expect(Array(h.optTags.sorted(ascending: true)) == [nil, nil, .alpha, .beta, .gamma])
        #expect(Array(h.optTags.distinct()) == [.beta, nil, .gamma, .alpha])
        #expect(Array(h.counts.sorted(ascending: true)).map(\.count) == [1, 1, 2, 3])
        #expect(Array(h.counts.distinct()).map(\.count) == [3, 1, 2])
        #expect(Array(h.optLabels.sorted(ascending: false)).map { $0?.text } == ["b", "a", nil])
    }

    @Test("value(forKey: \"self\") gives the values", arguments: [false, true])
    func valueForSelf(managed: Bool) throws {
        let (realm, h) = try primitiveAuditHolder(managed)
        #expect(h.ints.value(forKey: "self").isEmpty)
        try primitiveAuditWrite(realm) {
            h.ints.append(objectsIn: [1, 2, 3])
            h.strings.append(objectsIn: ["a", "b"])
        }
        #expect(h.ints.value(forKey: "self").compactMap { $0 as? Int } == [1, 2, 3])
        #expect(h.strings.value(forKey: "self").compactMap { $0 as? String } == ["a", "b"])
    }

    @Test("index errors stop with Realm's messages, managed and unmanaged",
          arguments: [
              "subscript: Index 3 is out of bounds (must be less than 3).",
              "negativeSubscript: negative value",
              "insertPastEnd: Index 4 is out of bounds",
              "insertNegative: negative value",
              "removeFromEmpty: Index 0 is out of bounds",
              "removeNegative: negative value",
              "removeLastFromEmpty: It is not possible to remove",
              "replacePastEnd: Index 3 is out of bounds",
              "replaceInEmpty: Index 0 is out of bounds",
              "replaceNegative: Cannot pass a negative value",
              "moveFromPastEnd: Index 3 is out of bounds",
              "moveToPastEnd: Index 3 is out of bounds",
              "moveNegative: negative value",
              "swapPastEnd: Index 3 is out of bounds",
              "swapNegative: negative value",
              "objectsAtPastEnd: Indexes for collection are out of bounds.",
          ], [false, true])
    func indexErrors(operationAndMessage: String, managed: Bool) async {
        let operation = String(operationAndMessage.prefix { $0 != ":" })
        let message = String(operationAndMessage.dropFirst(operation.count + 2))
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [operation = operation as String, managed] in
            let holder = PrimitiveAuditHolder()
            var realm: Realm?
            if managed {
                realm = try Realm(configuration: .init(inMemoryIdentifier: "primitive-audit-exit-\(UUID().uuidString)",
                                                       objectTypes: [PrimitiveAuditHolder.self]))
                realm!.beginWrite()
                realm!.add(holder)
            }
            let list = holder.ints
            if !operation.hasSuffix("Empty") { list.append(objectsIn: [1, 2, 3]) }
            switch operation {
            case "subscript": _ = list[3]
            case "negativeSubscript": _ = list[-1]
            case "insertPastEnd": list.insert(4, at: 4)
            case "insertNegative": list.insert(4, at: -1)
            case "removeFromEmpty": list.remove(at: 0)
            case "removeNegative": list.remove(at: -1)
            case "removeLastFromEmpty": list.removeLast()
            case "replacePastEnd": list.replace(index: 3, object: 4)
            case "replaceInEmpty": list.replace(index: 0, object: 4)
            case "replaceNegative": list.replace(index: -1, object: 4)
            case "moveFromPastEnd": list.move(from: 3, to: 0)
            case "moveToPastEnd": list.move(from: 0, to: 3)
            case "moveNegative": list.move(from: -1, to: 0)
            case "swapPastEnd": list.swapAt(0, 3)
            case "swapNegative": list.swapAt(-1, 0)
            case "objectsAtPastEnd": _ = list.objects(at: [1, 2, 3])
            default: break
            }
            withExtendedLifetime(realm) {}
        }
        expectStop(message, result)
    }
}
