// ProjectionParityTests.swift — Projection and @Projected measured against Realm Swift's
// documented behaviour: reading through key paths, Results of projections, equality, the
// description, observation (property names, old and new projected values, Swift key paths),
// freezing and thawing, and a @Projected key path that reaches no persisted property.

import Foundation
import Testing

import OpenRealm

final class ProjTown: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var country = ""
}

final class ProjCitizen: Object {
    @Persisted var first: String
    @Persisted var last = ""
    @Persisted var born: Date
    @Persisted var town: ProjTown?
    @Persisted var friends: List<ProjCitizen>
    @Persisted var notes: List<String>
    var nickname = ""
}

final class ProjCitizenView: Projection<ProjCitizen> {
    @Projected(\ProjCitizen.first) var first
    @Projected(\ProjCitizen.last.localizedUppercase) var lastCaps
    @Projected(\ProjCitizen.born.timeIntervalSince1970) var bornSeconds
    @Projected(\ProjCitizen.town?.city) var homeCity
    @Projected(\ProjCitizen.friends.projectTo.first) var friendNames: ProjectedCollection<String>
}

/// A projection of a property that is not persisted.
final class ProjNicknameView: Projection<ProjCitizen> {
    @Projected(\ProjCitizen.nickname) var nickname
}

final class ProjCounter: Object {
    @Persisted var count: Int
    @Persisted var flag: Bool
    @Persisted var label: String

    var summary: String { "\(count) - \(flag)" }
}

final class ProjCounterView: Projection<ProjCounter> {
    @Projected(\ProjCounter.count) var count
}

final class ProjCounterTripleView: Projection<ProjCounter> {
    @Projected(\ProjCounter.count) var count1
    @Projected(\ProjCounter.count) var count2
    @Projected(\ProjCounter.count) var count3
}

final class ProjBundle: Object {
    @Persisted var numbers: List<Int>
    @Persisted var counters: List<ProjCounter>
    @Persisted var numberSet: MutableSet<Int>
    @Persisted var counterSet: MutableSet<ProjCounter>
}

final class ProjBundleView: Projection<ProjBundle> {
    @Projected(\ProjBundle.numbers.count) var numbersCount
    @Projected(\ProjBundle.numbers) var renamedNumbers
    @Projected(\ProjBundle.counters.projectTo.summary) var summaries: ProjectedCollection<String>
    @Projected(\ProjBundle.numberSet.first) var firstNumber
    @Projected(\ProjBundle.counterSet.projectTo.flag) var flags: ProjectedCollection<Bool>
}

/// Projections of every kind of property: optional, enum, mixed, list, set, map, backlinks.
final class ProjKinds: Object {
    @Persisted var optionalInt: Int?
    @Persisted var mood: ProjMood
    @Persisted var mixed: AnyRealmValue
    @Persisted var decimal: Decimal128
    @Persisted var numbers: List<Int?>
    @Persisted var names: MutableSet<String>
    @Persisted var scores: Map<String, Double>
    @Persisted var link: ProjCounter?
    @Persisted var parent: ProjKinds?
    @Persisted(originProperty: "parent") var children: LinkingObjects<ProjKinds>
}

enum ProjMood: String, PersistableEnum {
    case calm, busy
}

final class ProjKindsView: Projection<ProjKinds> {
    @Projected(\ProjKinds.optionalInt) var optionalInt
    @Projected(\ProjKinds.mood) var mood
    @Projected(\ProjKinds.mixed) var mixed
    @Projected(\ProjKinds.decimal) var decimal
    @Projected(\ProjKinds.numbers) var numbers
    @Projected(\ProjKinds.names) var names
    @Projected(\ProjKinds.scores) var scores
    @Projected(\ProjKinds.link?.count) var linkCount
    @Projected(\ProjKinds.children) var children
}

/// An in-memory Realm of the projection models, with Jon Snow (born at 10 s, in Winterfell,
/// friend of Daenerys) and Daenerys (born at 0 s, friend of Jon).
func projectionRealm(_ identifier: String = "proj-\(UUID().uuidString)") throws -> Realm {
    let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier,
                                               objectTypes: [ProjTown.self, ProjCitizen.self, ProjCounter.self, ProjBundle.self, ProjKinds.self]))
    guard realm.isEmpty else { return realm }
    try realm.write {
        let jon = realm.create(ProjCitizen.self, value: ["first": "Jon", "last": "Snow", "born": Date(timeIntervalSince1970: 10),
                                                         "town": ["Winterfell", "North"]])
        let dany = realm.create(ProjCitizen.self, value: ["first": "Daenerys", "last": "Targaryen", "born": Date(timeIntervalSince1970: 0),
                                                          "town": ["King's Landing", "Westeros"]])
        jon.friends.append(dany)
        dany.friends.append(jon)
    }
    return realm
}

@Suite("Projections as Realm Swift")
struct ProjectionParityTests {
    @Test("a projection made from an object reads its key paths")
    func manualInit() throws {
        let realm = try projectionRealm()
        let jon = try #require(realm.objects(ProjCitizen.self).filter("last == 'Snow'").first)
        let view = ProjCitizenView(projecting: jon)
        #expect(view.homeCity == "Winterfell")
        #expect(view.bornSeconds == 10)
        #expect(view.lastCaps == "SNOW")
        #expect(view.friendNames.first == "Daenerys")
    }

    @Test("Results of a projection filter and sort by the object's properties")
    func results() throws {
        let realm = try projectionRealm()
        let views = realm.objects(ProjCitizenView.self)
        #expect(views.count == 2)
        #expect(views.filter("last == 'Snow'").first?.homeCity == "Winterfell")
        let byFirst = try #require(views.sorted(byKeyPath: "first").first)
        #expect(byFirst.homeCity == "King's Landing")
        #expect(byFirst.friendNames.first == "Jon")
        #expect(views.sorted(byKeyPath: "born").first?.bornSeconds == 0)
        #expect(views.first?.realm != nil)
        var seen = 0
        for view in views { seen += view.first.isEmpty ? 0 : 1 }
        #expect(seen == 2)
    }

    @Test("projections of one object are equal; of another, not")
    func equality() throws {
        let realm = try projectionRealm()
        let jon = try #require(realm.objects(ProjCitizen.self).filter("last == 'Snow'").first)
        let fromResults = try #require(realm.objects(ProjCitizenView.self).filter("last == 'Snow'").first)
        let other = try #require(realm.objects(ProjCitizenView.self).filter("last != 'Snow'").first)
        #expect(fromResults == ProjCitizenView(projecting: jon))
        #expect(fromResults != other)
    }

    @Test("description lists each projected property with its object's key path, as Realm")
    func description() throws {
        let realm = try projectionRealm()
        let jon = try #require(realm.objects(ProjCitizenView.self).filter("last == 'Snow'").first)
        let text = jon.description
        let address = "\(Unmanaged.passUnretained(jon.rootObject).toOpaque())"
        #expect(text == """
            ProjCitizenView<ProjCitizen> <\(address)> {
            \t\tfirst(\\.first) = Jon;
            \tlastCaps(\\.last) = SNOW;
            \tbornSeconds(\\.born) = 10.0;
            \thomeCity(\\.town.city) = Optional("Winterfell");
            \tfriendNames(\\.friends) = ProjectedCollection<String> {
            \t[0] Daenerys
            };
            }
            """)
    }

    @Test("collections, counts, set members and projectTo of computed properties")
    func advanced() throws {
        let realm = try projectionRealm()
        try realm.write {
            realm.create(ProjBundle.self, value: ["numbers": [1, 2, 3], "counters": [[1, true], [2, false]],
                                                  "numberSet": [1, 2, 3], "counterSet": [[1, true], [2, false]]])
        }
        let view = try #require(realm.objects(ProjBundleView.self).first)
        #expect(view.numbersCount == 3)
        #expect(Array(view.renamedNumbers) == [1, 2, 3])
        #expect(Array(view.summaries) == ["1 - true", "2 - false"])
        #expect(view.firstNumber == 1)
        #expect(Array(view.flags) == [true, false])
    }

    @Test("projections of optional, enum, mixed, decimal, collection, map and backlink properties")
    func allKinds() throws {
        let realm = try projectionRealm()
        try realm.write {
            let kinds = realm.create(ProjKinds.self, value: ["optionalInt": 30, "mood": ProjMood.busy, "mixed": AnyRealmValue.int(20),
                                                            "decimal": Decimal128(18), "numbers": [1, nil, 3], "names": ["a", "b"],
                                                            "scores": ["x": 1.5], "link": ["count": 7]])
            realm.create(ProjKinds.self, value: ["link": kinds.link!, "parent": kinds])
        }
        let view = try #require(realm.objects(ProjKindsView.self).first)
        #expect(view.optionalInt == 30)
        #expect(view.mood == .busy)
        #expect(view.mixed == .int(20))
        #expect(view.decimal == Decimal128(18))
        #expect(Array(view.numbers) == [1, nil, 3])
        #expect(Set(view.names) == ["a", "b"])
        #expect(view.scores["x"] == 1.5)
        #expect(view.linkCount == 7)
        #expect(view.children.count == 1)
        try realm.write { view.optionalInt = nil }
        #expect(view.rootObject.optionalInt == nil)
        let changes = Changes<String>()
        let token = view.observe(keyPaths: [\ProjKindsView.numbers, \ProjKindsView.scores]) { change in
            if case .change(let view, let properties) = change {
                for property in properties {
                    // The new value is the projection's own collection, as Realm's test checks.
                    let current: AnyObject = property.name == "numbers" ? view.numbers : view.scores
                    changes.append("\(property.name) old:\(property.oldValue == nil) same:\((property.newValue as AnyObject?) === current)")
                }
            }
        }
        defer { token.invalidate() }
        try realm.write {
            view.rootObject.mood = .calm   // not observed
            view.numbers.append(4)
        }
        realm.refresh()
        try realm.write { view.scores["y"] = 2 }
        realm.refresh()
        #expect(changes.take() == ["numbers old:true same:true", "scores old:true same:true"])
    }

    @Test("observe with Swift key paths of the projection gives the projected old and new values")
    func observeComputedChange() throws {
        let identifier = "proj-\(UUID().uuidString)"
        let realm = try projectionRealm(identifier)
        let jon = try #require(realm.objects(ProjCitizenView.self).filter("last == 'Snow'").first)
        let changes = Changes<String>()
        let token = jon.observe(keyPaths: [\ProjCitizenView.lastCaps]) { (change: ObjectChange<ProjCitizenView>) in
            if case .change(_, let properties) = change {
                for property in properties {
                    changes.append("\(property.name):\(property.oldValue.map { "\($0)" } ?? "nil")->\(property.newValue.map { "\($0)" } ?? "nil")")
                }
            }
        }
        defer { token.invalidate() }
        try onOtherThread {
            let realm = try projectionRealm(identifier)
            try realm.write { realm.objects(ProjCitizen.self).filter("last == 'Snow'").first?.first = "Jonny" }  // not observed
            try realm.write { realm.objects(ProjCitizen.self).filter("last == 'Snow'").first?.last = "Ali" }
        }
        realm.refresh()
        #expect(changes.take() == ["lastCaps:SNOW->ALI"])
    }

    @Test("observe(keyPaths:) takes the object's property names; nil observes every projected property")
    func observeStringKeyPaths() throws {
        let realm = try projectionRealm()
        let jon = try #require(realm.objects(ProjCitizenView.self).filter("last == 'Snow'").first)
        let changes = Changes<[String]>()
        let byLast = jon.observe(keyPaths: ["last"], on: nil) { change in
            if case .change(_, let properties) = change { changes.append(properties.map(\.name)) }
        }
        defer { byLast.invalidate() }
        let all = jon.observe(keyPaths: nil) { change in
            if case .change(_, let properties) = change { changes.append(["all"] + properties.map(\.name)) }
        }
        defer { all.invalidate() }
        try realm.write { jon.rootObject.last = "Targaryen" }
        realm.refresh()
        #expect(Set(changes.take()) == [["lastCaps"], ["all", "lastCaps"]])
        try realm.write { jon.rootObject.town?.city = "Castle Black" }
        realm.refresh()
        #expect(changes.take() == [["all", "homeCity"]])
    }

    @Test("a change through an embedded object from another thread names the projected property")
    func observeEmbeddedFromAnotherThread() throws {
        let identifier = "proj-\(UUID().uuidString)"
        let realm = try projectionRealm(identifier)
        let jon = try #require(realm.objects(ProjCitizenView.self).filter("last == 'Snow'").first)
        let changes = Changes<String>()
        let token = jon.observe(keyPaths: ["town.city", "last"]) { change in
            if case .change(_, let properties) = change {
                for property in properties { changes.append("\(property.name)->\(property.newValue.map { "\($0)" } ?? "nil")") }
            }
        }
        defer { token.invalidate() }
        try onOtherThread {
            let realm = try projectionRealm(identifier)
            try realm.write { realm.objects(ProjCitizen.self).filter("last == 'Snow'").first?.town?.city = "Castle Black" }
        }
        realm.refresh()
        #expect(changes.take() == ["homeCity->Optional(\"Castle Black\")"])
    }

    @Test("projected properties of one object property each report the change")
    func multipleProjectionsOfOneProperty() throws {
        let identifier = "proj-\(UUID().uuidString)"
        let realm = try projectionRealm(identifier)
        try realm.write { realm.create(ProjCounter.self, value: [1, false]) }
        let view = try #require(realm.objects(ProjCounterTripleView.self).first)
        let changes = Changes<String>()
        let token = view.observe { change in
            if case .change(_, let properties) = change {
                for property in properties { changes.append("\(property.name):\(property.oldValue as? Int ?? -1)->\(property.newValue as? Int ?? -1)") }
            }
        }
        defer { token.invalidate() }
        try onOtherThread {
            let realm = try projectionRealm(identifier)
            try realm.write { realm.objects(ProjCounter.self).first?.count = 2 }
        }
        realm.refresh()
        #expect(changes.take() == ["count1:1->2", "count2:1->2", "count3:1->2"])
    }

    @Test("a projection freezes and thaws as its object")
    func freezeAndThaw() throws {
        let realm = try projectionRealm()
        let counter = try realm.write { realm.create(ProjCounter.self) }
        let view = ProjCounterView(projecting: counter)
        let frozen = view.freeze()
        #expect(!view.isFrozen)
        #expect(frozen.isFrozen)
        #expect(view != frozen)
        #expect(frozen == frozen.freeze())
        #expect(view.freeze() == frozen)
        let otherCounter = try realm.write { realm.create(ProjCounter.self) }
        #expect(frozen != ProjCounterView(projecting: otherCounter).freeze())
        nonisolated(unsafe) let frozenShared = frozen
        #expect(try onOtherThread { frozenShared.count } == 0)

        try realm.write { view.count = 1 }
        #expect(frozen.count == 0)
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.count == 1)

        try realm.write {
            counter.count = 2
            #expect(view.freeze().count == 1)   // the version the write started from
        }
        try realm.write { realm.delete(counter) }
        #expect(frozen.thaw() == nil)
    }

    @Test("a projection passes between threads by ThreadSafeReference")
    func threadSafeReference() throws {
        let identifier = "proj-\(UUID().uuidString)"
        let realm = try projectionRealm(identifier)
        let counter = try realm.write { realm.create(ProjCounter.self) }
        let reference = ThreadSafeReference(to: ProjCounterView(projecting: counter))
        final class Holder: @unchecked Sendable { var frozen: ProjCounterView? }
        let holder = Holder()
        try onOtherThread {
            let realm = try projectionRealm(identifier)
            let view = try #require(realm.resolve(reference))
            try realm.write { view.count = 1 }
            holder.frozen = view.freeze()
        }
        let frozen = try #require(holder.frozen)
        #expect(frozen.isFrozen)
        #expect(frozen.count == 1)
        // (Realm's thaw would read this thread's Realm at its version, 0 until refresh();
        // OpenRealm's refreshes it first: README, "Differences from Realm Swift".)
        realm.refresh()
        #expect(frozen.thaw()?.count == 1)
    }
}

@Suite("Projections as Realm Swift: programmer errors")
struct ProjectionParityErrorTests {
    @Test("a @Projected key path that reaches no persisted property")
    func notPersisted() async throws {
        let realm = try projectionRealm()
        #expect(realm.objects(ProjNicknameView.self).count == 2)
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try projectionRealm()
            _ = realm.objects(ProjNicknameView.self).first
        }
        expectStop("@Projected property 'nickname' must be a part of Realm object", result)
    }

    // Realm Swift's Object.freeze() stops on an object without a Realm (the accessor passed to
    // delete has none) with this message; Realm's test only asserts that freezing stops.
    @Test("freezing the projection of a deleted object")
    func freezeDeleted() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try projectionRealm()
            let counter = try realm.write { realm.create(ProjCounter.self) }
            let view = ProjCounterView(projecting: counter)
            try realm.write { realm.delete(counter) }
            _ = view.freeze()
        }
        expectStop("Unmanaged objects cannot be frozen.", result)
    }

    @Test("freezing a projection on another thread")
    func freezeWrongThread() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try projectionRealm()
            let view = try #require(realm.objects(ProjCitizenView.self).first)
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) let shared = view
            Thread {
                _ = shared.freeze()
                done.signal()
            }.start()
            done.wait()
        }
        expectStop("Realm accessed from incorrect thread", result)
    }

    @Test("freezing a projection of an object made in the same write")
    func freezeInCreatingWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try projectionRealm()
            try realm.write {
                let counter = realm.create(ProjCounter.self)
                _ = ProjCounterView(projecting: counter).freeze()
            }
        }
        expectStop("Cannot freeze an object in the same write transaction as it was created in.", result)
    }

    @Test("observing a frozen projection")
    func observeFrozen() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try projectionRealm()
            let frozen = try #require(realm.objects(ProjCitizenView.self).first).freeze()
            _ = frozen.observe { _ in }
        }
        expectStop("Frozen Realms do not change and do not have change notifications.", result)
    }
}
