// TypedQueryAuditTests.swift — the typed query surface (`where { ... }`) checked against what
// Realm Swift's own query tests assert: each kind of operator on each kind of property, with the
// counts Realm gives for one object holding known values.

import Foundation
import Testing

import OpenRealm

enum TQLevel: Int, PersistableEnum {
    case one = 1, two = 2, three = 3
}

enum TQColour: String, PersistableEnum {
    case red = "Red", blue = "Blue"
}

/// A value stored as an Int (CustomPersistable).
struct TQScore: CustomPersistable, Hashable {
    typealias PersistedType = Int
    var points: Int
    init(points: Int) { self.points = points }
    init(persistedValue: Int) { points = persistedValue }
    var persistableValue: Int { points }
}

/// A value stored as a String (CustomPersistable).
struct TQLabel: CustomPersistable, Hashable {
    typealias PersistedType = String
    var text: String
    init(_ text: String) { self.text = text }
    init(persistedValue: String) { text = persistedValue }
    var persistableValue: String { text }
}

final class TQItem: Object {
    @Persisted var flag: Bool
    @Persisted var number: Int
    @Persisted var small: Int8
    @Persisted var ratio: Float
    @Persisted var amount: Double
    @Persisted var name: String
    @Persisted var blob: Data
    @Persisted var stamp: Date
    @Persisted var price: Decimal128
    @Persisted var oid: ObjectId
    @Persisted var uuid: UUID
    @Persisted var level: TQLevel
    @Persisted var colour: TQColour
    @Persisted var mixed: AnyRealmValue
    @Persisted var optCount: Int?
    @Persisted var optName: String?
    @Persisted var optAmount: Double?
    @Persisted var optStamp: Date?
    @Persisted var optBlob: Data?
    @Persisted var optLevel: TQLevel?
    @Persisted var optColour: TQColour?
    @Persisted var score: TQScore
    @Persisted var optScore: TQScore?
    @Persisted var label: TQLabel
    @Persisted var link: TQItem?
    @Persisted var items: List<TQItem>
    @Persisted var itemSet: MutableSet<TQItem>
    @Persisted var ints: List<Int>
    @Persisted var optInts: List<Int?>
    @Persisted var strings: List<String>
    @Persisted var dates: List<Date>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var optIntSet: MutableSet<Int?>
    @Persisted var intMap: Map<String, Int>
    @Persisted var optIntMap: Map<String, Int?>
    @Persisted var stringMap: Map<String, String>
    @Persisted var boolMap: Map<String, Bool>
    @Persisted var levels: List<TQLevel>
    @Persisted var levelMap: Map<String, TQLevel>
    @Persisted var scores: List<TQScore>
    @Persisted var mixedList: List<AnyRealmValue>
    @Persisted(originProperty: "link") var linkers: LinkingObjects<TQItem>
}

final class TQHolder: Object {
    @Persisted var object: TQItem?
    @Persisted var list: List<TQItem>
    @Persisted var set: MutableSet<TQItem>
    @Persisted var map: Map<String, TQItem?>
}

final class TQCircle: Object {
    @Persisted var radius: Int
}

@Suite("Typed queries as Realm's QueryTests")
struct TypedQueryAuditTests {
    /// One item holding the values Realm's tests query for ("the second value" of each type).
    private func seeded() throws -> Realm {
        let realm = try memoryRealm([TQItem.self, TQHolder.self, TQCircle.self])
        try realm.write {
            let item = TQItem()
            item.flag = false
            item.number = 3
            item.small = 9
            item.ratio = 6.55444333
            item.amount = 234.567
            item.name = "Foó"
            item.blob = Data(count: 128)
            item.stamp = Date(timeIntervalSince1970: 2_000_000)
            item.price = Decimal128(floatLiteral: 234.567)
            item.oid = try! ObjectId(string: "61184062c1d8f096a3695045")
            item.uuid = UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!
            item.level = .two
            item.colour = .blue
            item.optCount = 3
            item.optName = "Foó"
            item.optAmount = 234.567
            item.optStamp = Date(timeIntervalSince1970: 2_000_000)
            item.optBlob = Data(count: 128)
            item.optLevel = .two
            item.optColour = .blue
            item.score = TQScore(points: 3)
            item.optScore = TQScore(points: 3)
            item.label = TQLabel("Foó")
            item.ints.append(objectsIn: [1, 3])
            item.optInts.append(objectsIn: [1, 3])
            item.strings.append(objectsIn: ["Foo", "Foó"])
            item.dates.append(objectsIn: [Date(timeIntervalSince1970: 1_000_000), Date(timeIntervalSince1970: 2_000_000)])
            item.intSet.insert(objectsIn: [1, 3])
            item.optIntSet.insert(objectsIn: [1, 3])
            item.intMap["foo"] = 1
            item.intMap["bar"] = 3
            item.optIntMap["foo"] = 1
            item.optIntMap["bar"] = 3
            item.stringMap["foo"] = "Foo"
            item.stringMap["bar"] = "Foó"
            item.boolMap["foo"] = true
            item.boolMap["bar"] = true
            item.levels.append(objectsIn: [.one, .two])
            item.levelMap["foo"] = .one
            item.levelMap["bar"] = .two
            item.scores.append(objectsIn: [TQScore(points: 1), TQScore(points: 3)])
            item.mixedList.append(objectsIn: [.string("Hello"), .int(123)])
            realm.add(item)
        }
        return realm
    }

    private func count(_ realm: Realm, _ query: (Query<TQItem>) -> Query<Bool>) -> Int {
        realm.objects(TQItem.self).where(query).count
    }

    @Test("== and != on every kind of property, nil on optionals")
    func equality() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.flag == false } == 1)
        #expect(count(realm) { $0.small == 9 } == 1)
        #expect(count(realm) { $0.ratio == Float(6.55444333) } == 1)
        #expect(count(realm) { $0.amount != 234.567 } == 0)
        #expect(count(realm) { $0.blob == Data(count: 128) } == 1)
        #expect(count(realm) { $0.price == Decimal128(floatLiteral: 234.567) } == 1)
        #expect(count(realm) { $0.level == .two } == 1)
        #expect(count(realm) { $0.level != .two } == 0)
        #expect(count(realm) { $0.colour == .blue } == 1)
        #expect(count(realm) { $0.optLevel == .two } == 1)
        #expect(count(realm) { $0.score == TQScore(points: 3) } == 1)
        #expect(count(realm) { $0.optScore != TQScore(points: 3) } == 0)
        #expect(count(realm) { $0.optCount == nil } == 0)
        #expect(count(realm) { $0.optCount != nil } == 1)
        #expect(count(realm) { $0.optLevel == nil } == 0)
        #expect(count(realm) { $0.optScore != nil } == 1)
        #expect(count(realm) { $0.optBlob == nil } == 0)
    }

    @Test("ordered comparisons: values, enums, custom types, and nil counts nothing")
    func orderedComparisons() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.number > 3 } == 0)
        #expect(count(realm) { $0.number >= 3 } == 1)
        #expect(count(realm) { $0.stamp < Date(timeIntervalSince1970: 2_000_000) } == 0)
        #expect(count(realm) { $0.stamp <= Date(timeIntervalSince1970: 2_000_000) } == 1)
        #expect(count(realm) { $0.level > .two } == 0)
        #expect(count(realm) { $0.level >= .two } == 1)
        #expect(count(realm) { $0.optLevel <= .two } == 1)
        #expect(count(realm) { $0.score > TQScore(points: 3) } == 0)
        #expect(count(realm) { $0.optScore >= TQScore(points: 3) } == 1)
        #expect(count(realm) { $0.optCount > nil } == 0)
        #expect(count(realm) { $0.optCount >= nil } == 0)
        #expect(count(realm) { $0.optCount < nil } == 0)
        #expect(count(realm) { $0.optCount <= nil } == 0)
        #expect(count(realm) { $0.optStamp <= nil } == 0)
    }

    @Test("AnyRealmValue ==, != and ordering with each kind of value")
    func anyRealmValue() throws {
        let realm = try seeded()
        let item = realm.objects(TQItem.self).first!
        let circle = TQCircle()
        try realm.write { realm.add(circle) }
        let values: [AnyRealmValue] = [.none, .int(123), .bool(true), .float(123.456), .double(123.456), .string("FooBar"),
                                       .data(Data(count: 64)), .date(Date(timeIntervalSince1970: 1_000_000)), .object(circle),
                                       .objectId(try ObjectId(string: "61184062c1d8f096a3695046")),
                                       .decimal128(Decimal128(floatLiteral: 123.456)),
                                       .uuid(UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!)]
        for value in values {
            try realm.write { item.mixed = value }
            #expect(count(realm) { $0.mixed == value } == 1, "\(value)")
            #expect(count(realm) { $0.mixed != value } == 0, "\(value)")
        }
        let numbers: [AnyRealmValue] = [.int(123), .float(123.456), .double(123.456), .date(Date(timeIntervalSince1970: 1_000_000)),
                                        .decimal128(Decimal128(floatLiteral: 123.456))]
        for value in numbers {
            try realm.write { item.mixed = value }
            #expect(count(realm) { $0.mixed > value } == 0, "\(value)")
            #expect(count(realm) { $0.mixed >= value } == 1, "\(value)")
            #expect(count(realm) { $0.mixed < value } == 0, "\(value)")
            #expect(count(realm) { $0.mixed <= value } == 1, "\(value)")
        }
    }

    @Test("contains(range) on values, optionals and raw values of enums")
    func numericRanges() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.number.contains(1..<5) } == 1)
        #expect(count(realm) { $0.number.contains(1..<3) } == 0)
        #expect(count(realm) { $0.number.contains(1...3) } == 1)
        #expect(count(realm) { $0.optCount.contains(1...3) } == 1)
        #expect(count(realm) { $0.optCount.contains(1..<3) } == 0)
        #expect(count(realm) { $0.level.rawValue.contains(1...2) } == 1)
        #expect(count(realm) { $0.level.rawValue.contains(1..<2) } == 0)
        #expect(count(realm) { $0.optLevel.rawValue.contains(1...2) } == 1)
        #expect(count(realm) { $0.score.persistableValue.contains(1...3) } == 1)
    }

    @Test("string operators with each option, negated, on String, String?, enums and custom types")
    func stringOperators() throws {
        let realm = try seeded()
        let options: [StringOptions] = [[], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]]
        for option in options {
            #expect(count(realm) { $0.name.equals("Foó", options: option) } == 1)
            #expect(count(realm) { !$0.name.equals("Foó", options: option) } == 0)
            #expect(count(realm) { $0.optName.notEquals("Foó", options: option) } == 0)
            #expect(count(realm) { !$0.optName.notEquals("Foó", options: option) } == 1)
            #expect(count(realm) { $0.name.contains("Foó", options: option) } == 1)
            #expect(count(realm) { $0.name.starts(with: "Fo", options: option) } == 1)
            #expect(count(realm) { $0.name.ends(with: "oó", options: option) } == 1)
            #expect(count(realm) { !$0.name.ends(with: "oó", options: option) } == 0)
            #expect(count(realm) { $0.colour.rawValue.contains("Foó", options: option) } == 0)
            #expect(count(realm) { $0.label.contains(TQLabel("Foó"), options: option) } == 1)
            #expect(count(realm) { $0.label.starts(with: TQLabel("Fo"), options: option) } == 1)
        }
        #expect(count(realm) { $0.colour.rawValue.starts(with: "Bl") } == 1)
        #expect(count(realm) { $0.optColour.rawValue.ends(with: "ue") } == 1)
    }

    @Test("LIKE patterns, case sensitive and not")
    func like() throws {
        let realm = try seeded()
        let patterns: [(String, Int, Int)] = [("Foó", 1, 1), ("f*", 0, 1), ("*ó", 1, 1), ("f?ó", 0, 1), ("f*ó", 0, 1),
                                              ("f??ó", 0, 0), ("*o*", 1, 1), ("*O*", 0, 1), ("?o?", 1, 1), ("?O?", 0, 1)]
        for (pattern, sensitive, insensitive) in patterns {
            #expect(count(realm) { $0.name.like(pattern) } == sensitive, "\(pattern)")
            #expect(count(realm) { $0.optName.like(pattern, caseInsensitive: true) } == insensitive, "\(pattern)")
            #expect(count(realm) { $0.label.like(TQLabel(pattern), caseInsensitive: true) } == insensitive, "\(pattern)")
            #expect(count(realm) { $0.colour.rawValue.like(pattern) } == 0, "\(pattern)")
        }
    }

    @Test("Data operators")
    func data() throws {
        let realm = try seeded()
        let zeros = Data(count: 28), ones = Data(repeating: 1, count: 28)
        #expect(count(realm) { $0.blob.starts(with: zeros) } == 1)
        #expect(count(realm) { !$0.blob.starts(with: zeros) } == 0)
        #expect(count(realm) { $0.optBlob.ends(with: zeros) } == 1)
        #expect(count(realm) { $0.blob.contains(zeros) } == 1)
        #expect(count(realm) { $0.blob.equals(zeros) } == 0)
        #expect(count(realm) { !$0.blob.equals(zeros) } == 1)
        #expect(count(realm) { $0.blob.notEquals(zeros) } == 1)
        #expect(count(realm) { $0.blob.starts(with: ones) } == 0)
        #expect(count(realm) { !$0.optBlob.contains(ones) } == 1)
    }

    @Test("contains, NOT contains and nil on lists, sets and maps")
    func collectionContains() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.ints.contains(1) } == 1)
        #expect(count(realm) { $0.ints.contains(5) } == 0)
        #expect(count(realm) { !$0.ints.contains(1) } == 0)
        #expect(count(realm) { !$0.optInts.contains(5) } == 1)
        #expect(count(realm) { $0.optInts.contains(nil) } == 0)
        #expect(count(realm) { !$0.optInts.contains(nil) } == 1)
        #expect(count(realm) { $0.optIntSet.contains(nil) } == 0)
        #expect(count(realm) { $0.intMap.contains(1) } == 1)
        #expect(count(realm) { $0.intMap.contains(5) } == 0)
        #expect(count(realm) { $0.optIntMap.contains(nil) } == 0)
        #expect(count(realm) { !$0.optIntMap.contains(nil) } == 1)
        #expect(count(realm) { $0.levels.contains(.one) } == 1)
        #expect(count(realm) { $0.levels.contains(.three) } == 0)
        #expect(count(realm) { $0.levelMap.contains(.two) } == 1)
        #expect(count(realm) { $0.scores.contains(TQScore(points: 3)) } == 1)
    }

    @Test("contains(range) on lists, sets and maps: @min and @max within it")
    func collectionRanges() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.ints.contains(1...3) } == 1)
        #expect(count(realm) { $0.ints.contains(1..<3) } == 0)
        #expect(count(realm) { $0.optInts.contains(1...3) } == 1)
        #expect(count(realm) { $0.intSet.contains(1...3) } == 1)
        #expect(count(realm) { $0.optIntSet.contains(1..<3) } == 0)
        #expect(count(realm) { $0.intMap.contains(1...3) } == 1)
        #expect(count(realm) { $0.optIntMap.contains(1..<3) } == 0)
        #expect(count(realm) { $0.dates.contains(Date(timeIntervalSince1970: 1_000_000)...Date(timeIntervalSince1970: 2_000_000)) } == 1)
        #expect(count(realm) { $0.scores.persistableValue.contains(1...3) } == 1)
        #expect(count(realm) { $0.scores.persistableValue.contains(1..<3) } == 0)
        #expect(count(realm) { $0.levels.rawValue.contains(1...2) } == 1)
        #expect(count(realm) { $0.levelMap.rawValue.contains(1..<2) } == 0)
    }

    @Test("containsAny(in:) on lists, sets and maps of values and of objects")
    func containsAny() throws {
        let realm = try seeded()
        let item = realm.objects(TQItem.self).first!
        #expect(count(realm) { $0.ints.containsAny(in: [1, 3]) } == 1)
        #expect(count(realm) { $0.optIntSet.containsAny(in: [1, 3]) } == 1)
        #expect(count(realm) { $0.intMap.containsAny(in: [7, 3]) } == 1)
        #expect(count(realm) { $0.levels.containsAny(in: [.three]) } == 0)
        #expect(count(realm) { $0.mixedList.containsAny(in: [.int(123)]) } == 1)
        try realm.write {
            let holder = realm.create(TQHolder.self)
            holder.list.append(item)
            holder.set.insert(item)
            holder.map["foo"] = item
        }
        let holders = realm.objects(TQHolder.self)
        #expect(holders.where { $0.list.containsAny(in: [item]) }.count == 1)
        #expect(holders.where { $0.set.containsAny(in: [item]) }.count == 1)
        #expect(holders.where { $0.map.containsAny(in: [item]) }.count == 1)
        #expect(holders.where { $0.map.contains(item) }.count == 1)
        #expect(holders.where { $0.list.contains(item) }.count == 1)
    }

    @Test("where on a list, a set and a map of objects")
    func collectionWhere() throws {
        let realm = try seeded()
        let item = realm.objects(TQItem.self).first!
        let holder = try realm.write {
            realm.create(TQHolder.self, value: ["list": [item], "set": [item], "map": ["foo": item]])
        }
        #expect(holder.list.where { $0.level == .two }.count == 1)
        #expect(holder.set.where { $0.optName == "Foó" }.count == 1)
        #expect(holder.map.where { $0.number == 3 }.count == 1)
        #expect(holder.map.where { $0.optScore == TQScore(points: 3) }.count == 1)
    }

    @Test("keys and values of maps with each operator")
    func mapKeysAndValues() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.intMap.keys == "foo" } == 1)
        #expect(count(realm) { $0.intMap.keys != "foo" } == 1)
        #expect(count(realm) { $0.intMap.keys.contains("foo", options: [.caseInsensitive, .diacriticInsensitive]) } == 1)
        #expect(count(realm) { $0.intMap.keys.starts(with: "fo") } == 1)
        #expect(count(realm) { $0.intMap.keys.ends(with: "oo") } == 1)
        #expect(count(realm) { $0.intMap.keys.like("f*") } == 1)
        #expect(count(realm) { $0.intMap.keys.like("F*", caseInsensitive: true) } == 1)
        #expect(count(realm) { $0.intMap.values == 1 } == 1)
        #expect(count(realm) { $0.intMap.values != 1 } == 1)
        #expect(count(realm) { $0.boolMap.values != true } == 0)
        #expect(count(realm) { $0.intMap.values > 3 } == 0)
        #expect(count(realm) { $0.intMap.values >= 3 } == 1)
        #expect(count(realm) { $0.intMap.values < 3 } == 1)
        #expect(count(realm) { $0.optIntMap.values <= 3 } == 1)
        #expect(count(realm) { $0.stringMap.values.contains("Foo") } == 1)
        #expect(count(realm) { $0.stringMap.values.notEquals("Foo", options: .diacriticInsensitive) } == 0)
        #expect(count(realm) { $0.stringMap.values.like("foo", caseInsensitive: true) } == 1)
        #expect(count(realm) { $0.levelMap.values == .two } == 1)
        #expect(count(realm) { $0.levelMap.values > .two } == 0)
    }

    @Test("a map's value under a key, with each operator")
    func mapSubscript() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.intMap["foo"] == 1 } == 1)
        #expect(count(realm) { $0.intMap["foo"] != 1 } == 0)
        #expect(count(realm) { $0.intMap["foo"] > 1 } == 0)
        #expect(count(realm) { $0.intMap["foo"] >= 1 } == 1)
        #expect(count(realm) { $0.optIntMap["foo"] < 1 } == 0)
        #expect(count(realm) { $0.optIntMap["foo"] <= 1 } == 1)
        #expect(count(realm) { $0.stringMap["foo"].contains("Foo") } == 1)
        #expect(count(realm) { !$0.stringMap["foo"].contains("Foo") } == 0)
        #expect(count(realm) { $0.stringMap["foo"].starts(with: "foo", options: [.caseInsensitive]) } == 1)
        #expect(count(realm) { $0.stringMap["foo"].like("Foo") } == 1)
        #expect(count(realm) { $0.number != 1 && $0.intMap["foo"] == 1 && $0.intMap["bar"] == 3 } == 1)
        let odd = "it's \\ a$obj\u{1}"
        try realm.write { realm.objects(TQItem.self).first!.intMap[odd] = 7 }
        #expect(count(realm) { $0.intMap[odd] == 7 } == 1)
        #expect(count(realm) { $0.intMap["it's"] == 7 } == 0)
        #expect(count(realm) { $0.number != 1 && $0.intMap["foo"] == 3 } == 0)
    }

    @Test("linking objects: contains and containsAny")
    func linkingObjects() throws {
        let realm = try seeded()
        let all = Array(realm.objects(TQItem.self))
        #expect(count(realm) { $0.linkers.contains(all[0]) } == 0)
        #expect(count(realm) { $0.linkers.containsAny(in: all) } == 0)
        #expect(count(realm) { !$0.linkers.contains(all[0]) } == 1)
        #expect(count(realm) { !$0.linkers.containsAny(in: all) } == 1)
    }

    @Test("aggregates of lists and maps of values in compound queries")
    func collectionAggregates() throws {
        let realm = try seeded()
        #expect(count(realm) {
            ($0.ints.min <= 1) && ($0.ints.max >= 3) && ($0.ints.sum == 4) && ($0.ints.count != 0) && ($0.ints.avg > 1) && ($0.ints.avg < 3)
        } == 1)
        #expect(count(realm) {
            ($0.optIntMap.min <= 1) && ($0.optIntMap.max >= 3) && ($0.optIntMap.sum == 4) && ($0.optIntMap.count != 0) && ($0.optIntMap.avg > 1)
        } == 1)
        #expect(count(realm) { ($0.ints.min <= 1) || ($0.ints.max >= 5) || ($0.ints.count == 0) } == 1)
        #expect(count(realm) { $0.levels.min == .one } == 1)
        #expect(count(realm) { $0.levels.max > .one } == 1)
        #expect(count(realm) { $0.levels.rawValue.sum == 3 } == 1)
        #expect(count(realm) { $0.levelMap.max == .two } == 1)
        #expect(count(realm) { $0.scores.sum == TQScore(points: 4) } == 1)
        #expect(count(realm) { $0.scores.persistableValue.sum == 4 } == 1)
        #expect(count(realm) { $0.scores.persistableValue.avg == 2 } == 1)
        #expect(count(realm) { $0.scores.min == TQScore(points: 1) } == 1)
        #expect(count(realm) { $0.dates.max == Date(timeIntervalSince1970: 2_000_000) } == 1)
    }

    @Test("aggregates over a key path through a list of objects")
    func keyPathAggregates() throws {
        let realm = try memoryRealm([TQItem.self, TQHolder.self, TQCircle.self])
        try realm.write {
            let holder = realm.create(TQHolder.self)
            for (value, level) in [(1, TQLevel.one), (3, .two), (5, .three)] {
                let child = TQItem()
                child.number = value
                child.optCount = value
                child.amount = Double(value)
                child.level = level
                child.score = TQScore(points: value)
                holder.list.append(child)
            }
        }
        let holders = realm.objects(TQHolder.self)
        #expect(holders.where {
            $0.list.number.min <= 1 && $0.list.number.max >= 5 && $0.list.number.sum == 9 && $0.list.number.min != 3
                && $0.list.number.avg > 1 && $0.list.number.avg < 5
        }.count == 1)
        #expect(holders.where { $0.list.optCount.sum == 9 && $0.list.optCount.avg == 3 }.count == 1)
        #expect(holders.where { $0.list.amount.avg == 3 }.count == 1)
        #expect(holders.where { $0.list.level.min == .one && $0.list.level.max == .three }.count == 1)
        #expect(holders.where { $0.list.level.rawValue.sum == 6 }.count == 1)
        #expect(holders.where { $0.list.score.max == TQScore(points: 5) }.count == 1)
        #expect(holders.where { $0.list.score.persistableValue.avg == 3 }.count == 1)
    }

    @Test("aggregates and @count of a linked object's collections")
    func linkedCollectionAggregates() throws {
        let realm = try seeded()
        let item = realm.objects(TQItem.self).first!
        try realm.write { realm.create(TQHolder.self, value: ["object": item]) }
        let holders = realm.objects(TQHolder.self)
        #expect(holders.where { $0.object.ints.sum == 4 }.count == 1)
        #expect(holders.where { $0.object.ints.min == 1 }.count == 1)
        #expect(holders.where { $0.object.optIntMap.max == 3 }.count == 1)
        #expect(holders.where { $0.object.ints.count == 2 }.count == 1)
        #expect(holders.where { $0.object.intMap.count != 2 }.count == 0)
        #expect(holders.where { $0.object.levels.count >= 2 }.count == 1)
    }

    @Test("ANY over a collection of objects' properties")
    func anyThroughCollections() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.ints == 1 } == 1)
        #expect(count(realm) { $0.levels == .one } == 1)
        #expect(count(realm) {
            (($0.items.number != 123) && ($0.items.link.number > 456)) && (($0.itemSet.number != 123) && ($0.itemSet.link.number > 456))
        } == 0)
    }

    @Test("subqueries: counts, nested, against an outer property")
    func subqueries() throws {
        let realm = try seeded()
        #expect(count(realm) { ($0.items.number != 123).count > 0 } == 0)
        #expect(count(realm) { $0.number == 5 && ($0.itemSet.name == "Bar").count == 0 } == 0)
        let item = realm.objects(TQItem.self).first!
        try realm.write {
            let child = TQItem(value: ["number": 5, "name": "Foo"])
            item.items.append(child)
            item.itemSet.insert(child)
        }
        #expect(count(realm) { ($0.items.ints.count >= 0).count > 0 } == 1)
        #expect(count(realm) { ($0.items.ints.count >= 0 && ($0.items.number != 123).count > 0).count > 0 } == 0)
        #expect(count(realm) { ($0.items.number > 0 && $0.items.number <= 5).count > 0 } == 1)
        #expect(count(realm) { ($0.items.number == 5).count == 1 && ($0.items.name == "Bar").count == 0 } == 1)
        #expect(count(realm) { $0.number == 3 && (($0.itemSet.number == 5) && ($0.itemSet.name != "Blah")).count == 1 } == 1)
        #expect(count(realm) { ($0.items.name == $0.name).count == 0 } == 1)
    }

    @Test("comparing two properties")
    func columnComparison() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.colour == $0.colour } == 1)
        #expect(count(realm) { $0.level > $0.level } == 0)
        #expect(count(realm) { $0.level <= $0.level } == 1)
        #expect(count(realm) { $0.optCount >= $0.optCount } == 1)
        #expect(count(realm) { $0.optName != $0.optName } == 0)
        #expect(count(realm) { $0.name.contains($0.optName, options: [.caseInsensitive, .diacriticInsensitive]) } == 1)
        #expect(count(realm) { $0.optName.like($0.name, caseInsensitive: true) } == 1)
        #expect(count(realm) { $0.optName.notEquals($0.name, options: [.caseInsensitive, .diacriticInsensitive]) } == 0)
        #expect(count(realm) { $0.link.number >= $0.link.number } == 1)
    }

    @Test("in(_:) and NOT in(_:) on every kind of property")
    func inValues() throws {
        let realm = try seeded()
        #expect(count(realm) { $0.number.in([1, 3]) } == 1)
        #expect(count(realm) { !$0.number.in([3]) } == 0)
        #expect(count(realm) { $0.optCount.in([nil, 3]) } == 1)
        #expect(count(realm) { $0.level.in([.one, .two]) } == 1)
        #expect(count(realm) { !$0.optLevel.in([.two]) } == 0)
        #expect(count(realm) { $0.colour.in([.red]) } == 0)
        #expect(count(realm) { $0.score.in([TQScore(points: 1), TQScore(points: 3)]) } == 1)
        #expect(count(realm) { $0.optScore.in([TQScore(points: 3)]) } == 1)
        #expect(count(realm) { $0.name.in(["Foo", "Foó"]) } == 1)
        #expect(count(realm) { $0.blob.in([Data(count: 128)]) } == 1)
        #expect(count(realm) { $0.uuid.in([UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!]) } == 1)
    }

    @Test("objects and embedded objects by identity")
    func objectIdentity() throws {
        let realm = try seeded()
        let item = realm.objects(TQItem.self).first!
        let nested = TQItem()
        try realm.write { item.link = nested }
        #expect(count(realm) { $0.link == nested } == 1)
        #expect(count(realm) { $0.link != nested } == 1)
    }

    @Test("an aggregate of a property that is not through a collection stops with Realm's message")
    func aggregateOfPlainProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try memoryRealm([TQItem.self, TQHolder.self, TQCircle.self])
            _ = realm.objects(TQItem.self).where { $0.number.avg == 1 }
        }
        expectStop("Invalid keypath 'number.@avg': Property 'TQItem.number' is not a link or collection "
            + "and can only appear at the end of a keypath.", result)
    }

    @Test("a subquery without a collection stops with Realm's message")
    func subqueryWithoutCollection() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try memoryRealm([TQItem.self, TQHolder.self, TQCircle.self])
            _ = realm.objects(TQItem.self).where { ($0.name == $0.name).count == 0 }
        }
        expectStop("Subqueries must contain a keypath starting with a collection.", result)
    }

    @Test("a property after a map's key stops with Realm's message")
    func mapSubscriptMember() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try memoryRealm([TQItem.self, TQHolder.self, TQCircle.self])
            _ = realm.objects(TQHolder.self).where { $0.map["foo"].number == 3 }
        }
        expectStop("Cannot apply key path to Map subscripts.", result)
    }

    @Test("an aggregate of a map's value under a key stops, as in Realm")
    func aggregateOfMapValue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try memoryRealm([TQItem.self, TQHolder.self, TQCircle.self])
            _ = realm.objects(TQHolder.self).where { $0.list.intMap["foo"].max == 4 }
        }
        expectStop("Cannot apply a keypath to list.intMap[%@]", result)
    }
}
