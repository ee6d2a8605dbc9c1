// MapIndexTests.swift — Map's positions as Realm's: index(of:) gives a MapIndex, map[index]
// the entry there.

import Foundation
import Testing

import OpenRealm

@Suite("Map positions")
struct MapIndexTests {
    @Test("index(of:) gives the MapIndex of a value in key order, map[index] its entry", arguments: [false, true])
    func indexOfAndSubscript(managed: Bool) throws {
        let person = Person(value: ["id": 1])
        person.scores["b"] = 2
        person.scores["a"] = 1
        if managed {
            let realm = try memoryRealm()
            try realm.write { realm.add(person) }
        }
        let position: Map<String, Int>.Index? = person.scores.index(of: 2)
        #expect(position == MapIndex(offset: 1))
        #expect(person.scores.index(of: 3) == nil)
        let entry = person.scores[try #require(position)]
        #expect(entry.key == "b" && entry.value == 2)
        #expect(person.scores[MapIndex(offset: 0)].key == "a")
    }

    @Test("an index past the end is a programmer error")
    func indexPastEnd() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let map = Map<String, Int>()
            map["a"] = 1
            _ = map[MapIndex(offset: 1)]
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Attempting to access Map elements using an invalid index."))
    }
}
