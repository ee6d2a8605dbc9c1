// ModernCreationTests.swift — @Persisted objects made from dictionaries, arrays and other objects,
// with init(value:), create and add (and their update policies), as Realm Swift makes them (its
// ModernObjectCreationTests).

import Foundation
import Testing

import OpenRealm

final class Branch: EmbeddedObject {
    @Persisted var value: Int
    @Persisted var twig: Branch?
    @Persisted var twigs: List<Branch>
    @Persisted(originProperty: "branch") var fromTrunk: LinkingObjects<Trunk>
    @Persisted(originProperty: "branches") var fromTrunkList: LinkingObjects<Trunk>
    @Persisted(originProperty: "twig") var fromBranch: LinkingObjects<Branch>
    @Persisted(originProperty: "twigs") var fromBranchList: LinkingObjects<Branch>
}

final class Trunk: Object {
    @Persisted var branch: Branch?
    @Persisted var branches: List<Branch>
}

final class KeyedTrunk: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var branch: Branch?
    @Persisted var branches: List<Branch>
}

final class Ring: Object {
    @Persisted var next: Ring?
    @Persisted var all: List<Ring>
}

final class KeyedLeaf: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var size: Int
}

final class LeafHolder: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var leaf: KeyedLeaf?
}

final class EnumBag: Object {
    @Persisted var levels: List<GaugeLevel>
    @Persisted var optTones: List<GaugeTone?>
    @Persisted var levelSet: MutableSet<GaugeLevel>
    @Persisted var toneMap: Map<String, GaugeTone>
    @Persisted var optLevelMap: Map<String, GaugeLevel?>
}

@Suite("Modern object creation")
struct ModernCreationTests {
    private func realm(_ name: String) throws -> Realm {
        try Realm(configuration: .init(inMemoryIdentifier: "modern-creation-\(name)-\(UUID().uuidString)"))
    }

    private func fullValues() -> [String: Any] {
        [
            "flag": true, "reading": 10, "small": 11 as Int8, "ratio": 15 as Float, "amount": 16.0,
            "label": "a", "blob": Data("b".utf8), "stamp": Date(timeIntervalSince1970: 17), "dec": 18 as Decimal128,
            "oid": ObjectId("1234567890ab1234567890ab"), "uid": UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
            "peer": Gauge(value: ["reading": 1]),
            "peers": [Gauge(value: ["reading": 2]), Gauge(value: ["reading": 3])],
            "peerSet": [Gauge(value: ["reading": 4])],
            "peerMap": ["k": Gauge(value: ["reading": 5])],
            "mixed": AnyRealmValue.int(20), "level": GaugeLevel.high, "tone": GaugeTone.cold,
            "optReading": 30, "optDec": 38 as Decimal128, "optLevel": GaugeLevel.low, "optTone": GaugeTone.warm,
            "ints": [1, 1, 2], "optInts": [1, nil] as [Int?], "mixedList": [AnyRealmValue.none, .int(1), .string("a")],
            "intSet": [1, 2, 2], "optLabelMap": ["a": "x", "b": nil] as [String: String?],
            "levels": [GaugeLevel.mid, nil], "toneSet": [GaugeTone.warm], "toneMap": ["t": GaugeTone.cold],
        ]
    }

    private func nullValues() -> [String: Any] {
        fullValues().merging([
            "peer": NSNull(), "mixed": AnyRealmValue.none, "optReading": NSNull(), "optDec": NSNull(),
            "optLevel": NSNull(), "optTone": NSNull(), "optInts": [NSNull()], "mixedList": [AnyRealmValue.none],
            "optLabelMap": ["a": NSNull()], "levels": [NSNull()], "toneSet": [NSNull()], "toneMap": ["t": NSNull()],
        ] as [String: Any]) { _, new in new }
    }

    private func verifyFull(_ g: Gauge) {
        #expect(g.flag && g.reading == 10 && g.small == 11 && g.ratio == 15 && g.amount == 16)
        #expect(g.label == "a" && g.blob == Data("b".utf8) && g.stamp == Date(timeIntervalSince1970: 17))
        #expect(g.dec == 18 && g.oid == ObjectId("1234567890ab1234567890ab"))
        #expect(g.peer?.reading == 1)
        #expect(g.peers.map(\.reading) == [2, 3])
        #expect(g.peerSet.map(\.reading) == [4])
        #expect(g.peerMap["k"]??.reading == 5)
        #expect(g.mixed == .int(20) && g.level == .high && g.tone == .cold)
        #expect(g.optReading == 30 && g.optDec == 38 && g.optLevel == .low && g.optTone == .warm)
        #expect(Array(g.ints) == [1, 1, 2] && Array(g.optInts) == [1, nil])
        #expect(Array(g.mixedList) == [.none, .int(1), .string("a")])
        #expect(Set(g.intSet) == [1, 2] && g.intSet.count == 2)
        #expect(g.optLabelMap.count == 2 && g.optLabelMap["a"] == .some("x") && g.optLabelMap["b"] == .some(nil))
        #expect(Array(g.levels) == [.mid, nil] && Array(g.toneSet) == [.warm] && g.toneMap["t"] == .some(.cold))
    }

    private func verifyNull(_ g: Gauge) {
        #expect(g.peer == nil && g.mixed == .none && g.optReading == nil && g.optDec == nil)
        #expect(g.optLevel == nil && g.optTone == nil)
        #expect(Array(g.optInts) == [nil] && Array(g.mixedList) == [.none])
        #expect(g.optLabelMap["a"] == .some(nil))
        #expect(Array(g.levels) == [nil] && Array(g.toneSet) == [nil] && g.toneMap["t"] == .some(nil))
    }

    private func verifyDefault(_ g: Gauge) {
        #expect(!g.flag && g.reading == 0 && g.small == 1 && g.label == "" && g.blob == Data() && g.dec == 0)
        #expect(g.oid != ObjectId() && g.uid != UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        #expect(g.peer == nil && g.peers.isEmpty && g.mixed == .none && g.level == .low && g.tone == .warm)
        #expect(g.optReading == nil && g.optLevel == nil && g.ints.isEmpty && g.optLabelMap.isEmpty)
    }

    private func arrayValues(_ values: [String: Any]) -> [Any] {
        var array = Gauge().objectSchema.properties.map { values[$0.name] ?? NSNull() }
        array[0] = ObjectId.generate()
        return array
    }

    @Test("init(value:) from a dictionary, an array and another object")
    func initFromValues() {
        verifyFull(Gauge(value: fullValues()))
        verifyFull(Gauge(value: arrayValues(fullValues())))
        verifyFull(Gauge(value: Gauge(value: fullValues())))
        verifyNull(Gauge(value: nullValues()))
        verifyDefault(Gauge())
    }

    @Test("create from a dictionary, an array, another object, and with no value")
    func createFromValues() throws {
        let realm = try realm("create")
        try realm.write {
            verifyFull(realm.create(Gauge.self, value: fullValues()))
            verifyFull(realm.create(Gauge.self, value: arrayValues(fullValues())))
            verifyFull(realm.create(Gauge.self, value: Gauge(value: fullValues())))
            verifyNull(realm.create(Gauge.self, value: nullValues()))
            verifyDefault(realm.create(Gauge.self))
        }
    }

    @Test("add keeps the values of an unmanaged object")
    func addValues() throws {
        let realm = try realm("add")
        let full = Gauge(value: fullValues()), null = Gauge(value: nullValues()), plain = Gauge()
        try realm.write { realm.add([full, null, plain]) }
        verifyFull(full); verifyNull(null); verifyDefault(plain)
    }

    @Test("collections of enums from a dictionary, an array and another object")
    func enumCollections() throws {
        let values: [String: Any] = [
            "levels": [GaugeLevel.low, .high], "optTones": [GaugeTone.cold, nil], "levelSet": [GaugeLevel.mid],
            "toneMap": ["0": GaugeTone.warm], "optLevelMap": ["0": GaugeLevel.high, "1": nil] as [String: GaugeLevel?],
        ]
        func verify(_ bag: EnumBag) {
            #expect(Array(bag.levels) == [.low, .high])
            #expect(Array(bag.optTones) == [.cold, nil])
            #expect(Array(bag.levelSet) == [.mid])
            #expect(bag.toneMap["0"] == .warm)
            #expect(bag.optLevelMap.count == 2 && bag.optLevelMap["0"] == .some(.high) && bag.optLevelMap["1"] == .some(nil))
        }
        let array: [Any] = EnumBag().objectSchema.properties.map { values[$0.name]! }
        verify(EnumBag(value: values))
        verify(EnumBag(value: array))
        verify(EnumBag(value: EnumBag(value: values)))
        let realm = try realm("enums")
        try realm.write {
            verify(realm.create(EnumBag.self, value: values))
            verify(realm.create(EnumBag.self, value: array))
            verify(realm.create(EnumBag.self, value: EnumBag(value: values)))
            let added = EnumBag(value: values)
            realm.add(added)
            verify(added)
        }
    }

    private let treeValue: [String: Any] = [
        "branch": ["value": 5, "twig": ["value": 6], "twigs": [[7], [8]]] as [String: Any],
        "branches": [[9], [10]],
    ]

    private func verifyTree(_ trunk: Trunk) {
        #expect(trunk.branch?.value == 5)
        #expect(trunk.branch?.twig?.value == 6)
        #expect(trunk.branch?.twigs.map(\.value) == [7, 8])
        #expect(trunk.branches.map(\.value) == [9, 10])
    }

    @Test("embedded objects from nested dictionaries and arrays, with their linking objects")
    func embeddedFromDictionary() throws {
        let realm = try realm("embedded-dict")
        try realm.write {
            let trunk = realm.create(Trunk.self, value: treeValue)
            verifyTree(trunk)
            #expect(trunk.branch?.fromTrunk.first?.isSameObject(as: trunk) == true)
            #expect(trunk.branches[0].fromTrunkList.first?.isSameObject(as: trunk) == true)
            #expect(trunk.branches[1].fromTrunkList.first?.isSameObject(as: trunk) == true)
            let branch = try #require(trunk.branch)
            #expect(branch.twig?.fromBranch.first?.isSameObject(as: branch) == true)
            #expect(branch.twigs[0].fromBranchList.first?.isSameObject(as: branch) == true)
        }
    }

    @Test("create from an unmanaged object with embedded objects leaves it unmanaged")
    func embeddedFromUnmanaged() throws {
        let source = Trunk()
        source.branch = Branch(value: [5])
        source.branch?.twig = Branch(value: [6])
        source.branch?.twigs.append(objectsIn: [Branch(value: [7]), Branch(value: [8])])
        source.branches.append(objectsIn: [Branch(value: [9]), Branch(value: [10])])
        let realm = try realm("embedded-unmanaged")
        try realm.write {
            let trunk = realm.create(Trunk.self, value: source)
            #expect(source.realm == nil && source.branch?.realm == nil)
            verifyTree(trunk)
        }
    }

    @Test("create from a managed object copies its embedded objects, in the same Realm or another")
    func embeddedFromManaged() throws {
        let a = try realm("embedded-a"), b = try realm("embedded-b")
        let original = try a.write { a.create(Trunk.self, value: treeValue) }
        try a.write {
            let copy = a.create(Trunk.self, value: original)
            #expect(!copy.isSameObject(as: original))
            verifyTree(copy)
        }
        try b.write {
            let copy = b.create(Trunk.self, value: original)
            verifyTree(copy)
        }
        verifyTree(original)
    }

    /// Two unmanaged trees of numbered branches; returns the branches in creation order.
    private func twoTrees() -> (KeyedTrunk, KeyedTrunk, [Branch]) {
        var made: [Branch] = []
        func branch() -> Branch { let b = Branch(); b.value = made.count; made.append(b); return b }
        func tree() -> KeyedTrunk {
            let t = KeyedTrunk()
            t.branch = branch()
            t.branch?.twig = branch()
            t.branch?.twigs.append(branch()); t.branch?.twigs.append(branch())
            t.branches.append(branch()); t.branches.append(branch())
            return t
        }
        let first = tree(), second = tree()
        return (first, second, made)
    }

    private func verifySecondTree(_ trunk: KeyedTrunk) {
        #expect(trunk.branch?.value == 6 && trunk.branch?.twig?.value == 7)
        #expect(trunk.branch?.twigs.map(\.value) == [8, 9])
        #expect(trunk.branches.map(\.value) == [10, 11])
    }

    @Test("add makes every embedded object of the tree managed")
    func addEmbedded() throws {
        let (first, _, made) = twoTrees()
        let realm = try realm("add-embedded")
        realm.beginWrite()
        realm.add(first)
        for (i, branch) in made.prefix(6).enumerated() {
            #expect(branch.realm != nil)
            #expect(branch.value == i)
        }
        realm.cancelWrite()
    }

    @Test("add with update .all replaces the embedded objects: the old ones are invalidated")
    func addUpdateAllEmbedded() throws {
        let (first, second, made) = twoTrees()
        let realm = try realm("update-all-embedded")
        realm.beginWrite()
        realm.add(first)
        realm.add(second, update: .all)
        let invalidated = made.map(\.isInvalidated)
        #expect(invalidated == (0..<12).map { $0 < 6 })
        let values = made.map { $0.isInvalidated ? -1 : $0.value }
        #expect(values == [-1, -1, -1, -1, -1, -1, 6, 7, 8, 9, 10, 11])
        #expect(first.isSameObject(as: second))
        verifySecondTree(first)
        realm.cancelWrite()
    }

    @Test("add with update .modified updates the existing embedded objects in place")
    func addUpdateModifiedEmbedded() throws {
        let (first, second, made) = twoTrees()
        let realm = try realm("update-modified-embedded")
        realm.beginWrite()
        realm.add(first)
        realm.add(second, update: .modified)
        // Booleans first: describing an invalidated object for a failed expectation would stop.
        let invalidated = made.map(\.isInvalidated)
        #expect(invalidated == Array(repeating: false, count: made.count))
        let values = made.map { $0.isInvalidated ? -1 : $0.value }
        #expect(values == [6, 7, 8, 9, 10, 11, 6, 7, 8, 9, 10, 11])
        #expect(first.isSameObject(as: second))
        verifySecondTree(first)
        realm.cancelWrite()
    }

    @Test("add with update .modified and no embedded object removes the one the object had")
    func addUpdateModifiedRemovesEmbedded() throws {
        let (first, _, _) = twoTrees()
        let realm = try realm("update-modified-none")
        realm.beginWrite()
        realm.add(first)
        let replacement = KeyedTrunk()
        realm.add(replacement, update: .modified)
        #expect(first.branch == nil && first.branches.isEmpty)
        #expect(realm.objects(KeyedTrunk.self).count == 1)
        realm.cancelWrite()
    }

    @Test("add with update .modified of an unmanaged link with an existing key updates that object")
    func addUpdateExistingNested() throws {
        let realm = try realm("nested-update")
        let existing = try realm.write { realm.create(KeyedLeaf.self, value: ["leaf", 1]) }
        let holder = LeafHolder(value: ["leaf", ["leaf", 2] as [Any]])
        try realm.write { realm.add(holder, update: .modified) }
        #expect(holder.realm != nil)
        #expect(holder.leaf?.isSameObject(as: existing) == true)
        #expect(existing.size == 2)
    }

    @Test("add of objects that link to each other manages both, and frees them")
    func addCycle() throws {
        weak var weakA: Ring?, weakB: Ring?
        try {
            let a = Ring()
            let b = Ring(value: [a, [a]])
            a.next = b
            a.all.append(b)
            weakA = a; weakB = b
            let realm = try realm("cycle")
            try realm.write { realm.add(a) }
            #expect(a.realm != nil && b.realm != nil)
        }()
        #expect(weakA == nil && weakB == nil)
    }
}
