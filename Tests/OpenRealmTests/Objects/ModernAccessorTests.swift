// ModernAccessorTests.swift — reading back what was set on @Persisted models, managed and
// unmanaged, through the property, the string subscript and key-value coding, as Realm Swift
// does (its ModernObjectAccessorTests and ModernObjectTests).

import Foundation
import Testing

import OpenRealm

enum GaugeLevel: Int, PersistableEnum { case low = 1, mid = 2, high = 3 }
enum GaugeTone: String, PersistableEnum { case warm, cold }

final class Gauge: Object {
    @Persisted(primaryKey: true) var key: ObjectId
    @Persisted var flag: Bool
    @Persisted var reading: Int
    @Persisted var small: Int8 = 1
    @Persisted var ratio: Float
    @Persisted var amount: Double
    @Persisted var label: String
    @Persisted var blob: Data
    @Persisted var stamp: Date
    @Persisted var dec: Decimal128
    @Persisted var oid: ObjectId
    @Persisted var uid: UUID
    @Persisted var peer: Gauge?
    @Persisted var peers: List<Gauge>
    @Persisted var peerSet: MutableSet<Gauge>
    @Persisted var peerMap: Map<String, Gauge?>
    @Persisted var mixed: AnyRealmValue
    @Persisted var level: GaugeLevel
    @Persisted var tone: GaugeTone
    @Persisted var optReading: Int?
    @Persisted var optDec: Decimal128?
    @Persisted var optLevel: GaugeLevel?
    @Persisted var optTone: GaugeTone?
    @Persisted var ints: List<Int>
    @Persisted var optInts: List<Int?>
    @Persisted var mixedList: List<AnyRealmValue>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var optLabelMap: Map<String, String?>
    @Persisted var levels: List<GaugeLevel?>
    @Persisted var toneSet: MutableSet<GaugeTone?>
    @Persisted var toneMap: Map<String, GaugeTone?>
    @Persisted(originProperty: "peer") var pointedFrom: LinkingObjects<Gauge>
}

/// A model whose property observers report to closures.
final class WatchedCounter: Object {
    @Persisted var value: Int {
        willSet { willSetHook?() }
        didSet { didSetHook?() }
    }
    var willSetHook: (() -> Void)?
    var didSetHook: (() -> Void)?
}

private nonisolated(unsafe) var gaugeSeed = 0
private func nextGaugeSeed() -> Int { gaugeSeed += 1; return gaugeSeed }

/// Defaults computed per instance.
final class SeededDefaults: Object {
    @Persisted(primaryKey: true) var id = nextGaugeSeed()
    @Persisted var ratio = Double(nextGaugeSeed())
    @Persisted var token = UUID().uuidString
}

@Suite("Modern object accessors")
struct ModernAccessorTests {
    private func realm(_ name: String) throws -> Realm {
        try Realm(configuration: .init(inMemoryIdentifier: "modern-accessor-\(name)-\(UUID().uuidString)"))
    }

    /// Runs `body` on an unmanaged Gauge, one made by create and one added.
    private func forEachGauge(_ name: String, _ body: (Gauge) throws -> Void) throws {
        try body(Gauge())
        let realm = try realm(name)
        realm.beginWrite()
        try body(realm.create(Gauge.self))
        let added = Gauge()
        realm.add(added)
        try body(added)
        realm.cancelWrite()
    }

    @Test("the object schema lists the properties in declaration order")
    func schemaOrder() {
        let schema = Gauge().objectSchema
        #expect(schema.className == "Gauge")
        #expect(schema.properties.map(\.name) == [
            "key", "flag", "reading", "small", "ratio", "amount", "label", "blob", "stamp", "dec", "oid", "uid",
            "peer", "peers", "peerSet", "peerMap", "mixed", "level", "tone", "optReading", "optDec", "optLevel",
            "optTone", "ints", "optInts", "mixedList", "intSet", "optLabelMap", "levels", "toneSet", "toneMap"])
    }

    @Test("values set through the properties read back")
    func propertyRoundTrip() throws {
        try forEachGauge("props") { g in
            for v in [-Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude, 20, 20.2] {
                g.ratio = v; #expect(g.ratio == v)
            }
            for v in [-Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude, 20.2, 16777217] {
                g.amount = v; #expect(g.amount == v)
            }
            for v: Decimal128 in ["inf", 1, 0, "0", -1, "-inf"] {
                g.dec = v; #expect(g.dec == v)
                g.optDec = v; #expect(g.optDec == v)
            }
            g.dec = "nan"; #expect(g.dec.isNaN)
            g.optDec = "nan"; #expect(g.optDec?.isNaN == true)
            g.optDec = nil; #expect(g.optDec == nil)
            g.label = "値значен™👍"; #expect(g.label == "値значен™👍")
            g.level = .high; #expect(g.level == .high)
            g.optTone = .cold; #expect(g.optTone == .cold)
            g.optTone = nil; #expect(g.optTone == nil)
            for v: AnyRealmValue in [.none, .int(1), .bool(false), .float(2.5), .double(3.5), .string("s"),
                                     .data(Data([1])), .date(Date(timeIntervalSince1970: 7)),
                                     .objectId(ObjectId("1234567890ab1234567890ab")), .decimal128(5), .uuid(UUID())] {
                g.mixed = v; #expect(g.mixed == v)
            }
            g.peer = Gauge()
            #expect(g.peer?.pointedFrom.count == (g.realm == nil ? 0 : 1))
        }
    }

    @Test("an optional enum property holding a raw value no case has reads nil")
    func invalidEnumRawValue() throws {
        try forEachGauge("enum") { g in
            g["optLevel"] = 10
            #expect(g.optLevel == nil)
            #expect(g["optLevel"] == nil)
        }
    }

    @Test("the subscript and value(forKey:) convert as Realm: enums to raw values, numbers and strings to Decimal128")
    func subscriptConversions() throws {
        try forEachGauge("subscript") { g in
            g["dec"] = 1; #expect(g["dec"] as? Decimal128 == 1)
            g["dec"] = Float(2.5); #expect(g["dec"] as? Decimal128 == 2.5)
            g["dec"] = 3.5; #expect(g["dec"] as? Decimal128 == 3.5)
            g["dec"] = "4.5"; #expect(g["dec"] as? Decimal128 == 4.5)
            g.setValue(Decimal(5.5), forKey: "dec"); #expect(g.value(forKey: "dec") as? Decimal128 == 5.5)
            g["optDec"] = NSNull(); #expect(g["optDec"] == nil)
            g["level"] = GaugeLevel.mid; #expect(g["level"] as? Int == 2)
            g["tone"] = GaugeTone.cold; #expect(g["tone"] as? String == "cold")
            g["optLevel"] = GaugeLevel.mid; #expect(g["optLevel"] as? Int == 2)
            g["optLevel"] = nil as GaugeLevel?; #expect(g["optLevel"] == nil)
            g["mixed"] = AnyRealmValue.int(1); #expect(g["mixed"] as? Int == 1)
            g["mixed"] = AnyRealmValue.string("s"); #expect(g["mixed"] as? String == "s")
            g["mixed"] = AnyRealmValue.float(2.5); #expect(g["mixed"] as? Float == 2.5)
            g["mixed"] = AnyRealmValue.none; #expect(g["mixed"] == nil)
            g.setValue(AnyRealmValue.none, forKey: "mixed"); #expect(g.value(forKey: "mixed") == nil)
            let other = Gauge()
            g["mixed"] = AnyRealmValue.object(other)
            if g.realm == nil { #expect(g["mixed"] as? Gauge === other) } else { #expect(g["mixed"] is Gauge) }
            g["optReading"] = Int.min; #expect(g["optReading"] as? Int == Int.min)
            g["optReading"] = nil; #expect(g["optReading"] == nil)
            g.peer = Gauge()
            let back = (g["peer"] as? Gauge)?["pointedFrom"] as? LinkingObjects<Gauge>
            #expect(back?.count == (g.realm == nil ? 0 : 1))
        }
    }

    @Test("assigning a collection copies its elements; assigning the property to itself keeps them")
    func listAssignment() throws {
        try forEachGauge("list") { g in
            let list = g.ints
            let other = List<Int>()
            other.append(objectsIn: [Int.min, 0, Int.max])
            g.ints = other
            #expect(Array(list) == [Int.min, 0, Int.max])
            #expect(g.ints !== other)
            g.ints = g.ints
            #expect(Array(list) == [Int.min, 0, Int.max])
            g.setValue(g.value(forKey: "ints"), forKey: "ints")
            #expect(Array(list) == [Int.min, 0, Int.max])
            g["ints"] = [4, 5]
            #expect(Array(list) == [4, 5])
            #expect(g.ints === list)
            g["optInts"] = [1, nil]
            #expect(Array(g.optInts) == [1, nil])
            g["mixedList"] = [AnyRealmValue.none, .int(1), .string("a")]
            #expect(Array(g.mixedList) == [.none, .int(1), .string("a")])
        }
    }

    @Test("assigning a set or a map copies its elements; assigning it to itself keeps them")
    func setAndMapAssignment() throws {
        try forEachGauge("setmap") { g in
            let set = g.intSet
            let otherSet = MutableSet<Int>()
            otherSet.insert(objectsIn: [1, 2, 3])
            g.intSet = otherSet
            #expect(Set(set) == [1, 2, 3])
            g.intSet = g.intSet
            #expect(Set(set) == [1, 2, 3])
            g.setValue(g.value(forKey: "intSet"), forKey: "intSet")
            #expect(Set(set) == [1, 2, 3])
            g["intSet"] = [7, 8]
            #expect(Set(set) == [7, 8])

            let map = g.optLabelMap
            let otherMap = Map<String, String?>()
            otherMap["a"] = "x"; otherMap["b"] = .some(nil)
            g.optLabelMap = otherMap
            #expect(map.count == 2 && map["a"] == .some("x") && map["b"] == .some(nil))
            g.optLabelMap = g.optLabelMap
            #expect(map.count == 2)
            g.setValue(g.value(forKey: "optLabelMap"), forKey: "optLabelMap")
            #expect(map.count == 2)
            g["optLabelMap"] = ["c": "z"]
            #expect(map.count == 1 && map["c"] == .some("z"))
            #expect(g.optLabelMap === map)
        }
    }

    @Test("collections of optional enums read nil for a raw value no case has")
    func invalidEnumInCollections() throws {
        let realm = try realm("enumcoll")
        try realm.write {
            let g = realm.create(Gauge.self)
            g.setValue([10, 2] as [Int?], forKey: "levels")
            #expect(Array(g.levels) == [nil, .mid])
            g.setValue(["nope"] as [String?], forKey: "toneSet")
            #expect(Array(g.toneSet) == [nil])
            g.setValue(["k": "nope"] as [String: String?], forKey: "toneMap")
            #expect(g.toneMap["k"] == .some(nil))
        }
    }

    @Test("willSet and didSet of a @Persisted property run, managed or not")
    func propertyObservers() throws {
        let counter = WatchedCounter()
        var calls = 0
        counter.willSetHook = { #expect(counter.value == 0); calls += 1 }
        counter.didSetHook = { #expect(counter.value == 1); calls += 1 }
        counter.value = 1
        #expect(calls == 2)
        let realm = try realm("observers")
        realm.beginWrite()
        realm.add(counter)
        counter.willSetHook = { #expect(counter.value == 1); calls += 1 }
        counter.didSetHook = { #expect(counter.value == 2); calls += 1 }
        counter.value = 2
        #expect(calls == 4)
        realm.cancelWrite()
        counter.willSetHook = nil
        counter.didSetHook = nil
    }

    @Test("default values are computed for each new object, by init and by create")
    func perInstanceDefaults() throws {
        let a = SeededDefaults(), b = SeededDefaults()
        #expect(a.id != b.id && a.ratio != b.ratio && a.token != b.token)
        let realm = try realm("defaults")
        try realm.write {
            let c = realm.create(SeededDefaults.self), d = realm.create(SeededDefaults.self)
            #expect(c.id != d.id && c.ratio != d.ratio && c.token != d.token)
        }
    }

    @Test("an unmanaged object's primary key can change")
    func unmanagedPrimaryKeyChanges() {
        let g = Gauge()
        let first = ObjectId.generate(), second = ObjectId.generate()
        g.key = first; #expect(g.key == first)
        g["key"] = second; #expect(g.key == second)
        g.setValue(first, forKey: "key"); #expect(g.key == first)
    }

    @Test("a managed object's primary key cannot change through the property")
    func managedPrimaryKeyProperty() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "pk-prop"))
            realm.beginWrite()
            let g = realm.create(Gauge.self)
            g.key = ObjectId.generate()
        }
        expectStop("Primary key can't be changed after an object is inserted.", result)
    }

    @Test("a managed object's primary key cannot change through the subscript")
    func managedPrimaryKeySubscript() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "pk-sub"))
            realm.beginWrite()
            let g = realm.create(Gauge.self)
            g["key"] = ObjectId.generate()
        }
        expectStop("Primary key can't be changed after an object is inserted.", result)
    }

    @Test("a managed object's primary key cannot change through setValue(_:forKey:)")
    func managedPrimaryKeySetValue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "pk-kvc"))
            realm.beginWrite()
            let g = realm.create(Gauge.self)
            g.setValue(ObjectId.generate(), forKey: "key")
        }
        expectStop("Primary key can't be changed after an object is inserted.", result)
    }

    @Test("reading an object of an invalidated Realm stops with Realm's message")
    func invalidatedRead() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "invalidated-read"))
            var g: Gauge!
            try realm.write { g = realm.create(Gauge.self); g.ints.removeAll() }
            realm.invalidate()
            _ = g.reading
        }
        expectStop("invalidated", result)
    }

    @Test("assigning a list of an invalidated object stops with Realm's message")
    func invalidatedListAssign() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "invalidated-list"))
            var g: Gauge!
            try realm.write { g = realm.create(Gauge.self); g.ints.removeAll() }
            realm.invalidate()
            g.ints = List<Int>()
        }
        expectStop("invalidated", result)
    }

    @Test("reading an object on another thread stops with Realm's message")
    func wrongThreadRead() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "thread-read"))
            nonisolated(unsafe) var g: Gauge!
            try realm.write { g = realm.create(Gauge.self); g.ints.removeAll() }
            let t = Thread { g.ints.removeAll() }
            t.start()
            while true { sleep(1) }
        }
        expectStop("incorrect thread", result)
    }
}
