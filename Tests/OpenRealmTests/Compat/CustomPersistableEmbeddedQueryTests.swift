// CustomPersistableEmbeddedQueryTests.swift — queries comparing a CustomPersistable mapped to an
// EmbeddedObject, which Realm Swift compares member by member (its QueryTests:
// testEqualMappedToEmbeddedObject, testMemberwiseEquality, testInvalidMemberwiseEquality):
// `==` and `!=` through `where` and `filter("... == %@")`, through links, lists and maps (one
// element matching every member), `IN` with several values, the value on the left,
// `persistableValue`, and the members it cannot compare (links, embedded ones too; collections).

import Foundation
import Testing

import OpenRealm

/// A segment: a label and an embedded start point (a link: not compared member by member).
final class SegmentObject: EmbeddedObject {
    @Persisted var label: String
    @Persisted var start: PointObject?
}

struct Segment: CustomPersistable, Hashable {
    typealias PersistedType = SegmentObject
    var label: String
    var start: Point?
    init(label: String, start: Point?) { self.label = label; self.start = start }
    init(persistedValue: SegmentObject) {
        self.init(label: persistedValue.label, start: persistedValue.start.map { Point(persistedValue: $0) })
    }
    var persistableValue: SegmentObject {
        let object = SegmentObject()
        object.label = label
        object.start = start?.persistableValue
        return object
    }
}

final class SegmentModel: Object {
    @Persisted var name: String
    @Persisted var segment: Segment
    @Persisted var path: List<Point>
    @Persisted var owner: PointModel?
    @Persisted var models: List<PointModel>
}

/// An embedded class with a link and one with a list: not comparable member by member.
final class DogTag: EmbeddedObject {
    @Persisted var dog: Dog?
}

struct Tagged: CustomPersistable, Hashable {
    typealias PersistedType = DogTag
    init() {}
    init(persistedValue: DogTag) {}
    var persistableValue: DogTag { DogTag() }
}

final class Scores: EmbeddedObject {
    @Persisted var values: List<Int>
}

struct ScoreCard: CustomPersistable, Hashable {
    typealias PersistedType = Scores
    init() {}
    init(persistedValue: Scores) {}
    var persistableValue: Scores { Scores() }
}

final class TaggedModel: Object {
    @Persisted var tag: Tagged?
    @Persisted var card: ScoreCard?
}

private func names(_ models: Results<SegmentModel>) -> [String] { models.map(\.name).sorted() }

@Suite("Queries on CustomPersistable mapped to an EmbeddedObject")
struct CustomPersistableEmbeddedQueryTests {
    /// Three points (1, 2), (1, 3), (2, 2) in PointModels, the first with an optional point too;
    /// segments a, b, c with start points and paths.
    private func realm() throws -> Realm {
        let realm = try Realm(configuration: .init(
            inMemoryIdentifier: "custom-embedded-query-\(UUID().uuidString)",
            objectTypes: [PointModel.self, PointObject.self, SegmentModel.self, SegmentObject.self]))
        try realm.write {
            let one = realm.create(PointModel.self, value: ["point": Point(x: 1, y: 2), "optPoint": Point(x: 1, y: 2)])
            one.line.append(objectsIn: [Point(x: 1, y: 3), Point(x: 2, y: 2)])
            let two = realm.create(PointModel.self, value: ["point": Point(x: 1, y: 3)])
            two.line.append(Point(x: 1, y: 2))
            realm.create(PointModel.self, value: ["point": Point(x: 2, y: 2)])
            let a = realm.create(SegmentModel.self, value: ["name": "a", "segment": Segment(label: "s", start: Point(x: 0, y: 0))])
            a.owner = one
            a.models.append(objectsIn: [one, two])
            a.path.append(Point(x: 5, y: 5))
            let b = realm.create(SegmentModel.self, value: ["name": "b", "segment": Segment(label: "s", start: nil)])
            b.owner = two
            b.path.append(objectsIn: [Point(x: 5, y: 6), Point(x: 6, y: 5)])
            realm.create(SegmentModel.self, value: ["name": "c", "segment": Segment(label: "t", start: Point(x: 0, y: 0))])
        }
        return realm
    }

    @Test("== and != compare every member, through where and filter")
    func equality() throws {
        let realm = try realm()
        let points = realm.objects(PointModel.self)
        #expect(points.where { $0.point == Point(x: 1, y: 2) }.count == 1)
        #expect(points.filter("point == %@", Point(x: 1, y: 3)).count == 1)
        #expect(points.where { $0.point == Point(x: 2, y: 3) }.isEmpty)
        #expect(points.where { $0.point != Point(x: 1, y: 2) }.count == 2)
        #expect(points.filter("point != %@", Point(x: 9, y: 9)).count == 3)
        // An optional property: nil differs from every value.
        #expect(points.where { $0.optPoint == Point(x: 1, y: 2) }.count == 1)
        #expect(points.where { $0.optPoint != Point(x: 1, y: 2) }.count == 2)
        // With other conditions, grouped as written.
        #expect(points.where { $0.point.persistableValue.x == 2 || $0.point == Point(x: 1, y: 3) }.count == 2)
        #expect(points.filter("point == %@ OR point == $1", Point(x: 1, y: 2), Point(x: 2, y: 2)).count == 2)
        #expect(points.where { $0.point.persistableValue.y == 2 }.count == 2)
    }

    @Test("through a link, and one element of a list matching every member")
    func throughLinksAndLists() throws {
        let realm = try realm()
        let segments = realm.objects(SegmentModel.self)
        #expect(names(segments.where { $0.owner.point == Point(x: 1, y: 3) }) == ["b"])
        #expect(names(segments.filter("owner.point != %@", Point(x: 1, y: 3))) == ["a", "c"])
        #expect(names(segments.where { $0.models.point == Point(x: 1, y: 3) }) == ["a"])
        // (5, 6) and (6, 5) each match one member of (5, 5): no element matches both.
        #expect(names(segments.where { $0.path == Point(x: 5, y: 5) }) == ["a"])
        #expect(names(segments.filter("ANY path == %@", Point(x: 5, y: 6))) == ["b"])
        #expect(names(segments.filter("ANY path != %@", Point(x: 5, y: 5))) == ["b"])
        #expect(names(segments.filter("ALL path == %@", Point(x: 5, y: 5))) == ["a", "c"])
        #expect(names(segments.filter("NONE path == %@", Point(x: 5, y: 5))) == ["b", "c"])
        let points = realm.objects(PointModel.self)
        #expect(points.filter("ANY line == %@", Point(x: 1, y: 2)).count == 1)
    }

    @Test("IN with several values: == with each, ORed")
    func inValues() throws {
        // Realm Swift turns `key.path IN collection` into `==` with each item, ORed
        // (RLMQueryUtil.mm, apply_value_expression and process_or_group), each compared member by
        // member (add_link_constraint).
        let realm = try realm()
        let points = realm.objects(PointModel.self)
        #expect(points.where { $0.point.in([Point(x: 1, y: 2), Point(x: 2, y: 2)]) }.count == 2)
        #expect(points.filter("point IN %@", [Point(x: 1, y: 3)]).count == 1)
        #expect(points.filter("point IN %@", [Point(x: 9, y: 9), Point(x: 2, y: 1)]).isEmpty)
        #expect(points.filter("NOT point IN %@", [Point(x: 1, y: 2)]).count == 2)
        #expect(points.where { $0.optPoint.in([Point(x: 1, y: 2), Point(x: 5, y: 5)]) }.count == 1)
        #expect(points.filter("point IN %@ AND optPoint == nil", [Point(x: 1, y: 3), Point(x: 2, y: 2)]).count == 2)
        // The arguments after it keep their places.
        #expect(points.filter("point IN %@ OR point == %@", [Point(x: 1, y: 2)], Point(x: 2, y: 2)).count == 2)
        #expect(points.filter("point IN $0 OR point == $1", [Point(x: 1, y: 3)], Point(x: 2, y: 2)).count == 2)
        // Through a list: one element matching one of the values.
        #expect(points.filter("line IN %@", [Point(x: 2, y: 2)]).count == 1)
        let segments = realm.objects(SegmentModel.self)
        #expect(names(segments.filter("ANY path IN %@", [Point(x: 5, y: 5), Point(x: 6, y: 5)])) == ["a", "b"])
        #expect(names(segments.filter("NONE path IN %@", [Point(x: 5, y: 5)])) == ["b", "c"])
        #expect(names(segments.filter("owner.point IN %@", [Point(x: 1, y: 3), Point(x: 7, y: 7)])) == ["b"])
    }

    @Test("the value on the left: %@ == path, %@ IN collection")
    func valueOnTheLeft() throws {
        // RLMQueryUtil.mm puts the constant on the right (invert_comparison_operator keeps == and
        // !=); `value IN collection` is ANY collection == value.
        let realm = try realm()
        let points = realm.objects(PointModel.self)
        #expect(points.filter("%@ == point", Point(x: 1, y: 2)).count == 1)
        #expect(points.filter("%@ = point", Point(x: 2, y: 2)).count == 1)
        #expect(points.filter("%@ != point", Point(x: 1, y: 2)).count == 2)
        #expect(points.filter("%@ <> optPoint", Point(x: 1, y: 2)).count == 2)
        #expect(points.filter("%@ IN line", Point(x: 1, y: 2)).count == 1)
        #expect(points.filter("$0 == point AND $0 == optPoint", Point(x: 1, y: 2)).count == 1)
        #expect(points.filter("NOT (%@ == point) AND %@ IN line", Point(x: 1, y: 3), Point(x: 2, y: 2)).count == 1)
        let segments = realm.objects(SegmentModel.self)
        #expect(names(segments.filter("%@ == owner.point", Point(x: 1, y: 3))) == ["b"])
        #expect(names(segments.filter("%@ IN path", Point(x: 5, y: 6))) == ["b"])
    }

    @Test("ALL before IN with values compared member by member stops")
    func allIn() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "custom-embedded-query-all-in",
                                                       objectTypes: [PointModel.self, PointObject.self]))
            _ = realm.objects(PointModel.self).filter("ALL line IN %@", [Point(x: 1, y: 2)]).count
        }
        expectStop("is compared member by member, with '==', '!=' or 'IN' after a key path", result)
    }

    @Test("a member linking to an embedded object stops with Realm's message")
    func nestedMember() async {
        // Realm Swift refuses every link among the members, to an embedded object too
        // (RLMQueryUtil.mm, add_memberwise_equality_constraint).
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "custom-embedded-query-nested",
                                                       objectTypes: [PointModel.self, PointObject.self, SegmentModel.self,
                                                                     SegmentObject.self]))
            _ = realm.objects(SegmentModel.self).where { $0.segment == Segment(label: "s", start: nil) }.count
        }
        expectStop("Unsupported property 'SegmentObject.start' for memberwise equality query: object links are not implemented.",
                   result)
    }

    @Test("a member linking to an object stops with Realm's message")
    func linkMember() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "custom-embedded-query-link",
                                                       objectTypes: [TaggedModel.self, DogTag.self, Scores.self, Dog.self]))
            try realm.write { realm.add(TaggedModel()) }
            _ = realm.objects(TaggedModel.self).where { $0.tag == Tagged() }
        }
        expectStop("Unsupported property 'DogTag.dog' for memberwise equality query: object links are not implemented.", result)
    }

    @Test("a member holding a collection stops with Realm's message")
    func collectionMember() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "custom-embedded-query-list",
                                                       objectTypes: [TaggedModel.self, DogTag.self, Scores.self, Dog.self]))
            try realm.write { realm.add(TaggedModel()) }
            _ = realm.objects(TaggedModel.self).filter("card == %@", ScoreCard())
        }
        expectStop("Unsupported property 'Scores.values' for memberwise equality query: equality on collections is not implemented.",
                   result)
    }
}
