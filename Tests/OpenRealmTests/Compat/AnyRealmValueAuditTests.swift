// AnyRealmValueAuditTests.swift — AnyRealmValue as Realm Swift's AnyRealmValueTests use it: every
// case stored, read back and changed (unmanaged, added, in a write), objects inside it, a class
// missing from the schema read through `dynamicObject`, and lists, sets and maps of it (their
// programmer errors, min/max, sum and average types).

import Foundation
import Testing

import OpenRealm

final class AuditAnyHolder: Object {
    @Persisted var value: AnyRealmValue
    @Persisted var list: List<AnyRealmValue>
    @Persisted var set: MutableSet<AnyRealmValue>
    @Persisted var map: Map<String, AnyRealmValue>
}

final class AuditAnyText: Object {
    @Persisted var text: String
}

/// The three values of each case, as Realm's value factories give them.
private func auditCases() -> [[AnyRealmValue]] { [
    [.int(123), .int(456), .int(789)],
    [.bool(true), .bool(false), .none],
    [.float(123.456), .float(456.789), .float(789.123456)],
    [.double(123.456), .double(456.789), .double(789.123456)],
    [.string("Hello There"), .string("This is"), .string("A test...")],
    [.data(Data(repeating: 11, count: 64)), .data(Data(repeating: 22, count: 64)), .data(Data(repeating: 33, count: 64))],
    [.date(Date(timeIntervalSince1970: 1614445927)), .date(Date(timeIntervalSince1970: 1614555927)),
     .date(Date(timeIntervalSince1970: 1614665927))],
    [.objectId(ObjectId("6056670f1a2a5b103c9affda")), .objectId(ObjectId("6056670f1a2a5b103c9affdd")),
     .objectId(ObjectId("605667111a2a5b103c9affe1"))],
    [.decimal128(Decimal128(floatLiteral: 123.456)), .decimal128(Decimal128(floatLiteral: 993.456789)),
     .decimal128(Decimal128(floatLiteral: 9874546.65456489))],
    [.uuid(UUID(uuidString: "7729028A-FB89-4555-81C3-C55F7DDBA5CF")!),
     .uuid(UUID(uuidString: "0F0359D8-8D74-409D-8561-C8EBE3753635")!),
     .uuid(UUID(uuidString: "0F0359D8-8D74-409D-8561-C8EBE3753636")!)],
] }

/// The cases whose values order (Realm's MinMax factories): int, float, double, date, decimal.
private func auditOrderedCases() -> [[AnyRealmValue]] { [0, 2, 3, 6, 8].map { auditCases()[$0] } }
/// The cases whose values add (Realm's Addable factories): int, float, double, decimal.
private func auditAddableCases() -> [[AnyRealmValue]] { [0, 2, 3, 8].map { auditCases()[$0] } }

private func auditRealm() throws -> Realm {
    try memoryRealm([AuditAnyHolder.self, AuditAnyText.self])
}

/// A holder: unmanaged, or added to a new in-memory Realm (whose write is then open).
private func auditHolder(managed: Bool) throws -> AuditAnyHolder {
    let holder = AuditAnyHolder()
    guard managed else { return holder }
    let realm = try auditRealm()
    realm.beginWrite()
    realm.add(holder)
    return holder
}

@Suite("AnyRealmValue as Realm's AnyRealmValueTests")
struct AnyRealmValueAuditTests {
    @Test("each case reads back unmanaged, once added, and after a change in a write", arguments: 0..<10)
    func everyCase(index: Int) throws {
        let values = auditCases()[index]
        let holder = AuditAnyHolder()
        holder.value = values[0]
        #expect(holder.value == values[0])
        holder.value = values[1]
        #expect(holder.value == values[1])
        let realm = try auditRealm()
        try realm.write { realm.add(holder) }
        #expect(holder.value == values[1])
        try realm.write { holder.value = values[2] }
        #expect(holder.value == values[2])
        #expect(realm.objects(AuditAnyHolder.self).first?.value == values[2])
    }

    @Test("an object in the value is the object: changed unmanaged, added with it, changed in a write")
    func objectCase() throws {
        let holder = AuditAnyHolder()
        let text = AuditAnyText()
        text.text = "hello"
        holder.value = .object(text)
        #expect(holder.value.object(AuditAnyText.self)?.text == "hello")
        holder.value.object(AuditAnyText.self)?.text = "there"
        #expect(holder.value.object(AuditAnyText.self)?.text == "there")
        let realm = try auditRealm()
        try realm.write { realm.add(holder) }
        #expect(holder.value.object(AuditAnyText.self)?.text == "there")
        #expect(realm.objects(AuditAnyText.self).count == 1)
        try realm.write { holder.value.object(AuditAnyText.self)?.text = "bye!" }
        #expect(holder.value.object(AuditAnyText.self)?.text == "bye!")
        #expect(holder.value.object(AuditAnyHolder.self) == nil)
    }

    @Test("AnyRealmValue() is .none, as Realm's initializer")
    func emptyInitializer() {
        #expect(AnyRealmValue() == .none)
        #expect(AnyRealmValue().intValue == nil)
    }

    @Test("one value reused for every case, unmanaged and managed (testAssortment)")
    func assortment() throws {
        let holder = AuditAnyHolder()
        let all: [AnyRealmValue] = auditCases().map { $0[0] } + [.none, .int(-1), .string("")]
        for value in all {
            holder.value = value
            #expect(holder.value == value)
        }
        holder.value = .none
        let realm = try auditRealm()
        try realm.write { realm.add(holder) }
        for value in all {
            try realm.write { holder.value = value }
            #expect(holder.value == value)
        }
        let text = AuditAnyText()
        text.text = "hello"
        try realm.write { holder.value = .object(text) }
        #expect(holder.value.object(AuditAnyText.self)?.text == "hello")
    }

    @Test("an object of a class the schema lacks reads through dynamicObject")
    func dynamicObjectOfMissingClass() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("any-dynamic-\(UUID().uuidString).realm")
        defer { _ = try? Realm.deleteFiles(for: .init(fileURL: url)) }
        do {
            let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [AuditAnyHolder.self, AuditAnyText.self]))
            try realm.write {
                let text = AuditAnyText(value: ["text": "some string..."])
                realm.add(AuditAnyHolder(value: ["value": text]))
            }
            #expect(realm.objects(AuditAnyText.self).count == 1)
        }
        let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [AuditAnyHolder.self]))
        #expect(!realm.schema.objectSchema.map(\.className).contains("AuditAnyText"))
        let holder = try #require(realm.objects(AuditAnyHolder.self).first)
        let dynamic = try #require(holder.value.dynamicObject)
        #expect(dynamic.text as? String == "some string...")
        #expect(dynamic["text"] as? String == "some string...")
        #expect(dynamic.objectTypeName == "AuditAnyText")
        #expect(holder.value.object(AuditAnyText.self) == nil)
    }

    @Test("dynamicObject reads a typed object by name, unmanaged and managed")
    func dynamicObjectOfTypedObject() throws {
        let holder = AuditAnyHolder()
        holder.value = .object(AuditAnyText(value: ["text": "unmanaged"]))
        #expect(holder.value.dynamicObject?.text as? String == "unmanaged")
        #expect(AnyRealmValue.int(1).dynamicObject == nil)
        let realm = try auditRealm()
        try realm.write { realm.add(holder) }
        let dynamic = try #require(holder.value.dynamicObject)
        #expect(dynamic.text as? String == "unmanaged")
        try realm.write { dynamic.text = "changed" }
        #expect(holder.value.object(AuditAnyText.self)?.text == "changed")
    }

    @Test("a list of each case: index(of:), insert, remove, replace, move, swap, assign", arguments: [false, true])
    func listOperations(managed: Bool) throws {
        for values in auditCases() {
            let list = try auditHolder(managed: managed).list
            #expect(list.index(of: values[0]) == nil)
            list.append(values[0])
            #expect(list.index(of: values[0]) == 0)
            list.append(values[1])
            #expect(list.index(of: values[1]) == 1)
            list.removeAll()
            list.insert(values[0], at: 0)
            list.insert(values[1], at: 0)
            list.insert(values[2], at: 2)
            #expect(Array(list) == [values[1], values[0], values[2]])
            list.remove(at: 0)
            #expect(Array(list) == [values[0], values[2]])
            list.removeAll()
            list.append(objectsIn: values)
            list.replace(index: 1, object: values[0])
            #expect(Array(list) == [values[0], values[0], values[2]])
            list.removeAll()
            list.append(objectsIn: values)
            list.move(from: 2, to: 0)
            #expect(Array(list) == [values[2], values[0], values[1]])
            list.swapAt(0, 2)
            #expect(Array(list) == [values[1], values[0], values[2]])
            list[0] = values[2]
            #expect(list.first == values[2] && list.last == values[2])
            list.removeLast()
            #expect(list.count == 2)
            list.removeLast(2)
            #expect(list.isEmpty)
            list.replaceSubrange(0..<0, with: [values[0]])
            list.replaceSubrange(0..<1, with: values)
            list.replaceSubrange(1..<2, with: [])
            #expect(Array(list) == [values[0], values[2]])
            list.realm?.cancelWrite()
        }
    }

    @Test("a set of each case: insert, contains, remove, subset, intersect, union, subtract", arguments: [false, true])
    func setOperations(managed: Bool) throws {
        for values in auditCases() {
            let holder = try auditHolder(managed: managed)
            let set = holder.set
            let other = managed ? holder.realm!.create(AuditAnyHolder.self).set : MutableSet<AnyRealmValue>()
            set.insert(objectsIn: values)
            set.insert(values[2])
            #expect(set.count == 3 && values.allSatisfy(set.contains))
            other.insert(values[0])
            #expect(other.isSubset(of: set) && other.intersects(set))
            other.remove(values[0])
            #expect(!set.isSubset(of: other) && !set.intersects(other))
            other.insert(values[0])
            set.formIntersection(other)
            #expect(set.count == 1 && set[0] == values[0])
            set.removeAll()
            set.insert(values[0])
            set.insert(values[1])
            other.insert(values[2])
            set.formUnion(other)
            #expect(set.count == 3 && (0..<3).allSatisfy { values.contains(set[$0]) })
            set.removeAll()
            set.insert(values[0])
            set.insert(values[1])
            set.subtract(other)
            #expect(set.count == 1 && !set.contains(values[0]) && set.contains(values[1]))
            holder.realm?.cancelWrite()
        }
    }

    @Test("a map of each case: nil removes a key, .none is a value", arguments: [false, true])
    func mapOperations(managed: Bool) throws {
        for values in auditCases() {
            let holder = try auditHolder(managed: managed)
            let map = holder.map
            #expect(map["key1"] == nil)
            map["key1"] = values[0]
            map["key2"] = values[1]
            map["key3"] = values[2]
            #expect(map.count == 3 && map.keys.count == 3 && map.values.count == 3)
            #expect(Set(map.keys) == ["key1", "key2", "key3"])
            map["key2"] = nil
            #expect(map.count == 2 && map["key2"] == nil)
            map["key1"] = AnyRealmValue.none
            #expect(map.count == 2 && map["key1"] == AnyRealmValue.none)
            map.removeObject(for: "key3")
            #expect(Array(map.keys) == ["key1"])
            map.removeAll()
            #expect(map.isEmpty)
            holder.realm?.cancelWrite()
        }
    }

    @Test("objects in lists, sets and maps of mixed values: added with them, read back, changed")
    func objectsInCollections() throws {
        func text(_ value: String) -> AnyRealmValue { .object(AuditAnyText(value: ["text": value])) }
        let holder = AuditAnyHolder()
        holder.list.append(objectsIn: [text("Hello"), text("I am"), text("an object")])
        holder.set.insert(text("in a set"))
        holder.map["key1"] = text("in a map")
        #expect(holder.list[1].object(AuditAnyText.self)?.text == "I am")
        let realm = try auditRealm()
        try realm.write { realm.add(holder) }
        #expect(realm.objects(AuditAnyText.self).count == 5)
        #expect(holder.list.map { $0.object(AuditAnyText.self)?.text } == ["Hello", "I am", "an object"])
        #expect(holder.set.first?.object(AuditAnyText.self)?.text == "in a set")
        #expect(holder.map["key1"]?.object(AuditAnyText.self)?.text == "in a map")
        try realm.write {
            holder.list.append(text("appended"))
            holder.map["key2"] = text("set managed")
            holder.list[0].object(AuditAnyText.self)?.text = "changed"
        }
        #expect(realm.objects(AuditAnyText.self).count == 7)
        #expect(holder.list.first?.object(AuditAnyText.self)?.text == "changed")
        #expect(holder.list.last?.object(AuditAnyText.self)?.text == "appended")
        #expect(holder.map["key2"]?.object(AuditAnyText.self)?.text == "set managed")
        // Deleting an object removes it from a list of mixed values and leaves null under its key
        // in a map (realm-core's Lst<Mixed>::nullify erases, Dictionary::nullify sets null).
        let hello = try #require(holder.list.first?.object(AuditAnyText.self))
        let inMap = try #require(holder.map["key1"]?.object(AuditAnyText.self))
        try realm.write {
            realm.delete(hello)
            realm.delete(inMap)
        }
        #expect(holder.list.count == 3 && holder.list.first?.object(AuditAnyText.self)?.text == "I am")
        #expect(holder.map.count == 2 && holder.map["key1"] == AnyRealmValue.none)
    }

    @Test("min and max of lists, sets and maps of ordered values", arguments: [false, true])
    func minMax(managed: Bool) throws {
        for values in auditOrderedCases() {
            let holder = try auditHolder(managed: managed)
            #expect(holder.list.min() == nil && holder.list.max() == nil)
            #expect(holder.set.min() == nil && holder.set.max() == nil)
            #expect(holder.map.min() == nil && holder.map.max() == nil)
            holder.list.append(objectsIn: values.reversed())
            holder.set.insert(objectsIn: values)
            for (key, value) in zip(["key1", "key2", "key3"], values) { holder.map[key] = value }
            #expect(holder.list.min() == values.first && holder.list.max() == values.last)
            #expect(holder.set.min() == values.first && holder.set.max() == values.last)
            #expect(holder.map.min() == values.first && holder.map.max() == values.last)
            holder.realm?.cancelWrite()
        }
    }

    @Test("sum and average: unmanaged give doubles, managed Decimal128; empty sums as Realm")
    func sumAndAverage() throws {
        for managed in [false, true] {
            for values in auditAddableCases() {
                let holder = try auditHolder(managed: managed)
                // An empty list or set sums to .int(0) unmanaged; managed it is not an int.
                #expect(holder.list.sum().intValue == (managed ? nil : 0))
                #expect(holder.set.sum().intValue == (managed ? nil : 0))
                #expect(holder.map.sum().intValue == 0)
                #expect(holder.list.average() as AnyRealmValue? == nil)
                #expect(holder.set.average() as AnyRealmValue? == nil)
                #expect(holder.map.average() as AnyRealmValue? == nil)
                holder.list.append(objectsIn: values)
                holder.set.insert(objectsIn: values)
                for (key, value) in zip(["key1", "key2", "key3"], values) { holder.map[key] = value }
                let numbers = values.map { value -> Double in
                    switch value {
                    case .int(let i): Double(i)
                    case .float(let f): Double(f)
                    case .double(let d): d
                    case .decimal128(let d): Double(d.stringValue)!
                    default: .nan
                    }
                }
                let sum = numbers.reduce(0, +)
                for total in [holder.list.sum(), holder.set.sum(), holder.map.sum()] {
                    if managed {
                        let decimal = try #require(total.decimal128Value, "\(total)")
                        #expect(abs(Double(decimal.stringValue)! - sum) < 0.1)
                    } else {
                        let double = try #require(total.doubleValue, "\(total)")
                        #expect(abs(double - sum) < 0.001)
                    }
                }
                let averages: [AnyRealmValue?] = [holder.list.average(), holder.set.average(), holder.map.average()]
                for average in averages {
                    let value = try #require(average)
                    if managed {
                        let decimal = try #require(value.decimal128Value, "\(value)")
                        #expect(abs(Double(decimal.stringValue)! - sum / 3) < 0.1)
                    } else {
                        let double = try #require(value.doubleValue, "\(value)")
                        #expect(abs(double - sum / 3) < 0.001)
                    }
                }
                holder.realm?.cancelWrite()
            }
        }
    }

    @Test("each case is found by a query on the property, by format string and by where", arguments: 0..<10)
    func queriedByCase(index: Int) throws {
        let values = auditCases()[index]
        let realm = try auditRealm()
        try realm.write {
            for value in values { realm.create(AuditAnyHolder.self, value: ["value": value]) }
        }
        let all = realm.objects(AuditAnyHolder.self)
        for value in values {
            #expect(all.filter("value == %@", value).map(\.value) == [value], "\(value)")
            #expect(all.where { $0.value == value }.map(\.value) == [value], "\(value)")
            #expect(all.filter("value != %@", value).count == 2, "\(value)")
        }
        #expect(all.filter("value == nil").count == values.filter { $0 == .none }.count)
    }

    @Test("numbers of different cases compare by value; strings, data and dates by their own kind")
    func crossTypeQueries() throws {
        let realm = try auditRealm()
        let date = Date(timeIntervalSince1970: 1614445927)
        try realm.write {
            for value: AnyRealmValue in [.int(1), .double(1.0), .float(1.0), .decimal128(Decimal128(1)), .bool(true),
                                         .string("1"), .int(3), .date(date), .none] {
                realm.create(AuditAnyHolder.self, value: ["value": value])
            }
        }
        let all = realm.objects(AuditAnyHolder.self)
        // realm-core compares numeric mixed values numerically; a bool or a string is no number.
        #expect(all.filter("value == 1").count == 4)
        #expect(all.filter("value == %@", 1.0).count == 4)
        #expect(all.filter("value > 1").map(\.value) == [.int(3)])
        #expect(all.filter("value == true").count == 1)
        #expect(all.filter("value == '1'").count == 1)
        #expect(all.filter("value == %@", date).count == 1)
        #expect(all.filter("value.@type == 'int'").count == 2)
        #expect(all.filter("value.@type == 'numeric'").count == 5)
        #expect(all.filter("value.@type == 'null'").count == 1)
        #expect(all.where { $0.value == .int(1) }.count == 4)
    }

    @Test("a query on a list or a map of mixed values finds each case")
    func collectionQueries() throws {
        let realm = try auditRealm()
        try realm.write {
            for values in auditCases() {
                let holder = realm.create(AuditAnyHolder.self)
                holder.list.append(objectsIn: values)
                for (key, value) in zip(["a", "b", "c"], values) { holder.map[key] = value }
            }
        }
        let all = realm.objects(AuditAnyHolder.self)
        for values in auditCases() {
            for value in values where value != .none {
                #expect(all.filter("ANY list == %@", value).count >= 1, "\(value)")
                #expect(all.filter("ANY map == %@", value).count >= 1, "\(value)")
            }
            #expect(all.filter("map['a'] == %@", values[0]).count >= 1, "\(values[0])")
        }
        #expect(all.filter("ANY list == %@", AnyRealmValue.string("This is")).count == 1)
        #expect(all.filter("list.@count == 3").count == 10)
    }

    @Test("a managed list of mixed values: an index past the end stops with Realm's message")
    func managedIndexPastEnd() async {
        removeInMemoryRealm("openrealm-exit-anyListPastEnd")
        defer { removeInMemoryRealm("openrealm-exit-anyListPastEnd") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-anyListPastEnd",
                                                       objectTypes: [AuditAnyHolder.self, AuditAnyText.self]))
            try realm.write {
                let holder = realm.create(AuditAnyHolder.self)
                holder.list.append(objectsIn: [.int(1), .string("a"), .none])
                _ = holder.list[3]
            }
        }
        expectStop("Index 3 is out of bounds", result)
    }

    @Test("an unmanaged list of mixed values: replace in an empty list stops with Realm's message")
    func unmanagedReplaceEmpty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            List<AnyRealmValue>().replace(index: 0, object: .int(1))
        }
        expectStop("Index 0 is out of bounds", result)
    }

    @Test("a managed list of mixed values: a negative index to move stops with Realm's message")
    func managedMoveNegative() async {
        removeInMemoryRealm("openrealm-exit-anyListMoveNegative")
        defer { removeInMemoryRealm("openrealm-exit-anyListMoveNegative") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-anyListMoveNegative",
                                                       objectTypes: [AuditAnyHolder.self, AuditAnyText.self]))
            try realm.write {
                let holder = realm.create(AuditAnyHolder.self)
                holder.list.append(objectsIn: [.int(1), .string("a"), .none])
                holder.list.move(from: -1, to: 0)
            }
        }
        expectStop("Cannot pass a negative value", result)
    }

    @Test("a managed list of mixed values: swapAt past the end stops with Realm's message")
    func managedSwapPastEnd() async {
        removeInMemoryRealm("openrealm-exit-anyListSwapPastEnd")
        defer { removeInMemoryRealm("openrealm-exit-anyListSwapPastEnd") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-anyListSwapPastEnd",
                                                       objectTypes: [AuditAnyHolder.self, AuditAnyText.self]))
            try realm.write {
                let holder = realm.create(AuditAnyHolder.self)
                holder.list.append(objectsIn: [.int(1), .string("a"), .none])
                holder.list.swapAt(0, 3)
            }
        }
        expectStop("Index 3 is out of bounds", result)
    }

    @Test("a list's and a set's rows go with their deleted object")
    func invalidated() throws {
        let holder = try auditHolder(managed: true)
        let realm = try #require(holder.realm)
        let (list, set, map) = (holder.list, holder.set, holder.map)
        #expect(!list.isInvalidated && !set.isInvalidated && !map.isInvalidated)
        realm.delete(holder)
        #expect(list.isInvalidated && set.isInvalidated && map.isInvalidated)
        realm.cancelWrite()
    }
}
