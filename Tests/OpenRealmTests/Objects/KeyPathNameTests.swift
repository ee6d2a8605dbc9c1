// KeyPathNameTests.swift — _name(for:): the property path Realm Swift gives a Swift key path of a
// model (through links, collections and linking objects), public as in Realm (its KeyPathTests).

import Foundation
import Testing

import OpenRealm

final class PathHub: Object {
    @Persisted var gauge: Gauge?
    @Persisted var mapped: MappedPerson?
    @Persisted var gauges: List<Gauge>
    @Persisted var gaugeSet: MutableSet<Gauge>
    @Persisted var gaugeMap: Map<String, Gauge?>
    @Persisted var place: Address?
    @Persisted var note: String
    var computed: String { note }
    /// The module function, called unqualified inside a model class.
    func noteName() -> String { _name(for: \PathHub.note) }
}

final class PathHubProjection: Projection<PathHub> {
    @Projected(\PathHub.note) var text
    @Projected(\PathHub.gauge?.reading) var reading
}

@Suite("Key path names")
struct KeyPathNameTests {
    @Test("a top-level property gives its name")
    func topLevel() {
        #expect(_name(for: \Gauge.key) == "key")
        #expect(_name(for: \Gauge.optDec) == "optDec")
        #expect(_name(for: \Gauge.peers) == "peers")
        #expect(_name(for: \Gauge.peerSet) == "peerSet")
        #expect(_name(for: \Gauge.peerMap) == "peerMap")
        #expect(_name(for: \Gauge.mixed) == "mixed")
        #expect(_name(for: \Gauge.optTone) == "optTone")
        #expect(_name(for: \Gauge.pointedFrom) == "pointedFrom")
        #expect(_name(for: \PathHub.place) == "place")
        #expect(ObjectBase._name(for: \Gauge.label) == "label")
        #expect(PathHub().noteName() == "note")
    }

    @Test("a key path that reads no persisted property gives an empty name")
    func notPersisted() {
        #expect(_name(for: \PathHub.computed) == "note")
        #expect(_name(for: \Gauge.realm) == "")
    }

    @Test("a path through a link, an embedded object and collections of objects joins the names")
    func nested() {
        #expect(_name(for: \Gauge.peer?.label) == "peer.label")
        #expect(_name(for: \Gauge.peer?.peers) == "peer.peers")
        #expect(_name(for: \PathHub.place?.city) == "place.city")
        #expect(_name(for: \PathHub.gauges[0].reading) == "gauges.reading")
        #expect(_name(for: \PathHub.gauges[0].peer?.pointedFrom) == "gauges.peer.pointedFrom")
        #expect(_name(for: \PathHub.gaugeSet[0].reading) == "gaugeSet.reading")
        #expect(_name(for: \PathHub.gaugeMap[""]??.reading) == "gaugeMap.reading")
        #expect(_name(for: \PathHub.gaugeMap[""]??.peer?.label) == "gaugeMap.peer.label")
    }

    @Test("a path through linking objects goes on to the linking class")
    func throughLinkingObjects() {
        #expect(_name(for: \Gauge.pointedFrom[0].flag) == "pointedFrom.flag")
        #expect(_name(for: \Gauge.peer?.pointedFrom[0].flag) == "peer.pointedFrom.flag")
        #expect(_name(for: \Gauge.peer?.pointedFrom[0].peer?.pointedFrom[0].label) == "peer.pointedFrom.peer.pointedFrom.label")
        #expect(_name(for: \PathHub.gauges[0].peer?.pointedFrom[0].flag) == "gauges.peer.pointedFrom.flag")
    }

    @Test("a mapped property gives its Swift name")
    func mappedName() {
        #expect(_name(for: \MappedPerson.firstName) == "firstName")
        #expect(_name(for: \PathHub.mapped?.pets[0].dogName) == "mapped.pets.dogName")
    }

    @Test("a projection's key path gives the path of the projected property")
    func projection() {
        #expect(_name(for: \PathHubProjection.text) == "note")
        #expect(_name(for: \PathHubProjection.reading) == "gauge.reading")
    }
}
