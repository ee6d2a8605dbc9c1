// SectionedResultsParityTests.swift — sectioned(by:), SectionedResults and ResultsSection
// measured against Realm Swift's documented behaviour: sections of objects, projections and
// values, frozen copies, and the change sets of notifications (as realm-core computes them).

import Foundation
import Testing

import OpenRealm

final class ProjFruit: Object {
    @Persisted var name: String
    @Persisted var flag: Bool
    @Persisted var count: Int
    @Persisted var words: List<String>
    @Persisted var wordSet: MutableSet<String>
    @Persisted var numbers: List<Int>
    @Persisted var optionalNumbers: List<Int?>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var blobs: MutableSet<Data>
    @Persisted var dates: List<Date>
    @Persisted var flags: List<Bool>
    @Persisted var optionalFlags: MutableSet<Bool?>
    @Persisted var decimals: List<Decimal128>

    var initial: String? { name.first.map { String($0) } }
}

final class ProjFruitView: Projection<ProjFruit> {
    @Projected(\ProjFruit.name) var name
    @Projected(\ProjFruit.count) var count
    @Projected(\ProjFruit.words) var words
    @Projected(\ProjFruit.wordSet) var wordSet

    var initial: String? { name.first.map { String($0) } }
}

/// What a sectioned results observer was told: the keys, then the change's index paths as
/// [section, item] pairs and section indices.
private enum SeenSectionChange: Equatable {
    case initial(count: Int)
    case update(count: Int, deletions: [[Int]], insertions: [[Int]], modifications: [[Int]], sectionsToInsert: [Int], sectionsToDelete: [Int])

    init<C: Collection>(_ change: SectionedResultsChange<C>) {
        switch change {
        case .initial(let collection): self = .initial(count: collection.count)
        case .update(let collection, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            self = .update(count: collection.count, deletions: deletions.map(Array.init), insertions: insertions.map(Array.init),
                           modifications: modifications.map(Array.init), sectionsToInsert: Array(sectionsToInsert),
                           sectionsToDelete: Array(sectionsToDelete))
        }
    }
}

/// banana (whose lists hold banana, box, apple, chalk), box, apple and chalk, in that order.
private func fruitRealm(_ identifier: String = "fruit-\(UUID().uuidString)") throws -> Realm {
    let realm = try Realm(configuration: .init(inMemoryIdentifier: identifier, objectTypes: [ProjFruit.self]))
    try realm.write {
        realm.deleteAll()
        let banana = ProjFruit(value: ["name": "banana"])
        banana.words.append(objectsIn: ["banana", "box", "apple", "chalk"])
        banana.wordSet.insert(objectsIn: ["banana", "box", "apple", "chalk"])
        realm.add([banana, ProjFruit(value: ["name": "box"]), ProjFruit(value: ["name": "apple"]), ProjFruit(value: ["name": "chalk"])])
    }
    return realm
}

private func add(_ name: String, to realm: Realm) {
    realm.add(ProjFruit(value: ["name": name]))
}

@Suite("Sectioned results as Realm Swift")
struct SectionedResultsParityTests {
    @Test("objects section by a computed key path, its property's sort, and by a block", arguments: [true, false])
    func creationFromResults(_ ascending: Bool) throws {
        let results = try fruitRealm().objects(ProjFruit.self)
        let keys = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
        let byKeyPath = results.sectioned(by: \.initial, ascending: ascending)
        #expect(byKeyPath.count == 3)
        #expect(byKeyPath.map(\.key) == keys)
        let bySort = results.sectioned(by: \.initial, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: ascending)])
        #expect(bySort.map(\.key) == keys)
        let byBlock = results.sectioned(by: { String($0.name.first!) }, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: ascending)])
        #expect(byBlock.map(\.key) == keys)
    }

    @Test("a list and a set of strings section by a block", arguments: [true, false])
    func creationFromValues(_ ascending: Bool) throws {
        let banana = try #require(try fruitRealm().objects(ProjFruit.self).first)
        let keys = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
        #expect(banana.words.sectioned(by: { String($0.first!) }, ascending: ascending).map(\.key) == keys)
        #expect(banana.wordSet.sectioned(by: { String($0.first!) }, ascending: ascending).map(\.key) == keys)
    }

    @Test("allKeys, subscripts and enumeration")
    func access() throws {
        let sections = try fruitRealm().objects(ProjFruit.self).sectioned(by: \.initial, ascending: true)
        #expect(sections.allKeys == ["a", "b", "c"])
        #expect(sections[0].count == 1)
        #expect(sections[0][0].name == "apple")
        #expect(sections[IndexPath(indexes: [0, 0])].name == "apple")
        var names: [String] = []
        for section in sections {
            for fruit in section { names.append("\(section.key ?? "-"):\(fruit.name)") }
        }
        #expect(names == ["a:apple", "b:banana", "b:box", "c:chalk"])
        #expect(sections == sections)
        #expect(sections != sections.freeze())
    }

    @Test("a token written without notifying is skipped")
    func observation() throws {
        let realm = try fruitRealm()
        let results = realm.objects(ProjFruit.self)
        let sections = results.sectioned(by: \.initial, ascending: true)
        let seen = Changes<String>()
        let first = sections.observe { change in seen.append("first \(SeenSectionChange(change))") }
        defer { first.invalidate() }
        realm.refresh()
        let second = sections.observe { change in seen.append("second \(SeenSectionChange(change))") }
        defer { second.invalidate() }
        realm.refresh()
        try realm.write(withoutNotifying: [first]) { realm.delete(results) }
        realm.refresh()
        let all = seen.take()
        #expect(all.count == 3)
        #expect(all.first == "first \(SeenSectionChange.initial(count: 3))")
        #expect(all.last?.hasPrefix("second update(count: 0") == true)
    }

    @Test("a key path filter: a change of section notifies, a write that moves nothing does not")
    func observeWithKeyPathFilter() throws {
        let realm = try fruitRealm()
        let results = realm.objects(ProjFruit.self)
        let sections = results.sectioned(by: \.initial, ascending: true)
        let seen = Changes<SeenSectionChange>()
        let token = sections.observe(keyPaths: [\.flag]) { seen.append(SeenSectionChange($0)) }
        defer { token.invalidate() }
        realm.refresh()
        let apple = results.where { $0.name.starts(with: "a") }[0]
        try realm.write { apple.name = "box" }
        realm.refresh()
        try realm.write { apple.flag = true }
        realm.refresh()
        #expect(seen.take().count == 3)
        try realm.write { apple.name = "box" }
        try realm.write { apple.name = "box" }
        realm.refresh()
        #expect(seen.take() == [])
    }

    @Test("a section's key path filter")
    func observeSectionWithKeyPathFilter() throws {
        let realm = try fruitRealm()
        let results = realm.objects(ProjFruit.self)
        let section = results.sectioned(by: \.initial, ascending: true)[0]
        let seen = Changes<SeenSectionChange>()
        let token = section.observe(keyPaths: [\.flag]) { seen.append(SeenSectionChange($0)) }
        defer { token.invalidate() }
        realm.refresh()
        let apple = results.where { $0.name.starts(with: "a") }[0]
        try realm.write { apple.flag = false }
        realm.refresh()
        #expect(seen.take() == [.initial(count: 1), .update(count: 1, deletions: [], insertions: [], modifications: [[0, 0]],
                                                            sectionsToInsert: [], sectionsToDelete: [])])
        try realm.write { apple.count = 123 }
        try realm.write { apple.count = 456 }
        realm.refresh()
        #expect(seen.take() == [])
    }

    @Test("change sets in index paths, as realm-core computes them (on a queue)")
    func observeOnQueue() throws {
        let realm = try fruitRealm()
        let results = realm.objects(ProjFruit.self)
        let sections = results.sectioned(by: \.initial, ascending: true)
        let seen = Changes<SeenSectionChange>()
        let delivered = DispatchSemaphore(value: 0)
        let token = sections.observe(keyPaths: [\.name], on: DispatchQueue(label: "sections")) { change in
            seen.append(SeenSectionChange(change))
            delivered.signal()
        }
        defer { token.invalidate() }
        delivered.wait()
        #expect(seen.take() == [.initial(count: 3)])
        try realm.write {
            realm.delete([results[2], results[0]])   // apple, banana
            results[0].name = "bog"                    // box
            add("zebra", to: realm)
        }
        delivered.wait()
        // box (b, item 1) moved to item 0 of b, now section 0: a deletion and an insertion; the
        // insertion into the new section z is reported too.
        #expect(seen.take() == [.update(count: 3, deletions: [[1, 0], [1, 1]], insertions: [[0, 0], [2, 0]], modifications: [],
                                        sectionsToInsert: [2], sectionsToDelete: [0])])
        try realm.write {
            results[0].name = "bogg"
            results[1].count = 1   // not observed
        }
        delivered.wait()
        #expect(seen.take() == [.update(count: 3, deletions: [], insertions: [], modifications: [[0, 0]],
                                        sectionsToInsert: [], sectionsToDelete: [])])
    }

    @Test("a section reports its own changes only, with its deletion and insertion as a section")
    func observationOnSection() throws {
        let realm = try fruitRealm()
        let results = realm.objects(ProjFruit.self)
        let sections = results.sectioned(by: \.initial, ascending: true)
        let seenA = Changes<SeenSectionChange>()
        let seenB = Changes<SeenSectionChange>()
        let tokenA = sections[0].observe(keyPaths: [\.name]) { seenA.append(SeenSectionChange($0)) }
        defer { tokenA.invalidate() }
        let tokenB = sections[1].observe(keyPaths: [\.name]) { seenB.append(SeenSectionChange($0)) }
        defer { tokenB.invalidate() }
        realm.refresh()
        #expect(seenA.take() == [.initial(count: 1)])
        #expect(seenB.take() == [.initial(count: 2)])

        try realm.write { realm.delete([results[2], results[0]]) }   // apple, banana
        realm.refresh()
        #expect(seenA.take() == [.update(count: 0, deletions: [], insertions: [], modifications: [], sectionsToInsert: [], sectionsToDelete: [0])])
        #expect(seenB.take() == [.update(count: 1, deletions: [[1, 0]], insertions: [], modifications: [], sectionsToInsert: [], sectionsToDelete: [])])

        try realm.write {
            results[0].name = "bog"   // box
            add("bag", to: realm)
        }
        realm.refresh()
        #expect(seenA.take() == [])
        #expect(seenB.take() == [.update(count: 2, deletions: [[0, 0]], insertions: [[0, 0], [0, 1]], modifications: [],
                                         sectionsToInsert: [], sectionsToDelete: [])])

        // a comes back as section 0; b moves to index 1 without a change of its own.
        try realm.write { add("app", to: realm) }
        realm.refresh()
        #expect(seenA.take() == [.update(count: 1, deletions: [], insertions: [[0, 0]], modifications: [], sectionsToInsert: [0], sectionsToDelete: [])])
        #expect(seenB.take() == [])
    }

    @Test("sections of frozen results, frozen sections and their thawed copies", arguments: [true, false])
    func frozen(_ ascending: Bool) throws {
        let realm = try fruitRealm()
        let keys = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
        let frozenResults = realm.objects(ProjFruit.self).freeze()
        let frozenSections = realm.objects(ProjFruit.self).sectioned(by: \.initial, ascending: ascending).freeze()
        let frozenSection = realm.objects(ProjFruit.self).sectioned(by: \.initial, ascending: ascending)[0].freeze()
        try realm.write { add("zoo", to: realm) }
        try realm.write { add(ascending ? "avocado" : "cherry", to: realm) }

        let fromFrozen = frozenResults.sectioned(by: \.initial, ascending: ascending)
        #expect(fromFrozen.isFrozen)
        #expect(fromFrozen.map(\.key) == keys)
        #expect(frozenSections.isFrozen)
        #expect(frozenSections.map(\.key) == keys)
        #expect(frozenSection.isFrozen)
        #expect(frozenSection.count == 1)
        let all = ascending ? keys + ["z"] : ["z"] + keys
        #expect(try #require(fromFrozen.thaw()).map(\.key) == all)
        #expect(try #require(frozenSections.thaw()).map(\.key) == all)
        let thawedSection = try #require(frozenSection.thaw())
        #expect(!thawedSection.isFrozen)
        #expect(thawedSection.count == 2)
        #expect(thawedSection.key == keys[0])
    }
}

@Suite("Sectioned projections as Realm Swift")
struct SectionedProjectionParityTests {
    @Test("projections section by a key path of the projection, by sort descriptors and by a block", arguments: [true, false])
    func creation(_ ascending: Bool) throws {
        let results = try fruitRealm().objects(ProjFruitView.self)
        let keys = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
        let first = ascending ? "apple" : "chalk"
        let byKeyPath = results.sectioned(by: \.initial, ascending: ascending)
        #expect(byKeyPath.map(\.key) == keys)
        #expect(byKeyPath[0][0].name == first)
        let bySort = results.sectioned(by: \.initial, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: ascending)])
        #expect(bySort.map(\.key) == keys)
        #expect(bySort[0][0].name == first)
        let byBlock = results.sectioned(by: { String($0.name.first!) }, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: ascending)])
        #expect(byBlock.map(\.key) == keys)
        #expect(byBlock[0][0].name == first)
        let view = try #require(results.filter("name == 'banana'").first)
        #expect(view.words.sectioned(by: { String($0.first!) }, ascending: ascending).map(\.key) == keys)
        #expect(view.wordSet.sectioned(by: { String($0.first!) }, ascending: ascending).map(\.key) == keys)
    }

    @Test("change sets of sectioned projections")
    func observe() throws {
        let realm = try fruitRealm()
        let results = realm.objects(ProjFruitView.self)
        let sections = results.sectioned(by: \.initial, ascending: true)
        let seen = Changes<SeenSectionChange>()
        let token = sections.observe(keyPaths: ["name"]) { seen.append(SeenSectionChange($0)) }
        defer { token.invalidate() }
        realm.refresh()
        try realm.write {
            realm.delete([results[2].rootObject, results[0].rootObject])
            results[0].name = "bog"
            add("zebra", to: realm)
        }
        realm.refresh()
        try realm.write {
            results[0].name = "bogg"
            results[1].count = 1
        }
        realm.refresh()
        #expect(seen.take() == [.initial(count: 3),
                                .update(count: 3, deletions: [[1, 0], [1, 1]], insertions: [[0, 0], [2, 0]], modifications: [],
                                        sectionsToInsert: [2], sectionsToDelete: [0]),
                                .update(count: 3, deletions: [], insertions: [], modifications: [[0, 0]],
                                        sectionsToInsert: [], sectionsToDelete: [])])
    }

    @Test("frozen results of projections section")
    func frozenResults() throws {
        let realm = try fruitRealm()
        let frozen = realm.objects(ProjFruitView.self).freeze()
        try realm.write { add("z", to: realm) }
        let sections = frozen.sectioned(by: \.initial, ascending: true)
        #expect(sections.isFrozen)
        #expect(sections.map(\.key) == ["a", "b", "c"])
        #expect(try #require(sections.thaw()).map(\.key) == ["a", "b", "c", "z"])
    }
}

@Suite("Sectioned values as Realm Swift")
struct SectionedValuesParityTests {
    private func fruit() throws -> ProjFruit {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "values-\(UUID().uuidString)", objectTypes: [ProjFruit.self]))
        let fruit = ProjFruit()
        fruit.numbers.append(objectsIn: [5, 4, 3, 2, 1])
        fruit.optionalNumbers.append(objectsIn: [5, 4, 3, 2, 1, nil])
        fruit.mixed.append(objectsIn: [.string("apple"), .int(2), .bool(true), .data(Data([1])), .decimal128(123.456)])
        fruit.blobs.insert(objectsIn: [Data(base64Encoded: "more")!, Data(base64Encoded: "door")!,
                                      Data(base64Encoded: "absolute")!, Data(base64Encoded: "abstract")!])
        fruit.dates.append(objectsIn: [1656547200, 1653868800, 1651276800, 1650412800].map { Date(timeIntervalSince1970: $0) })
        fruit.flags.append(objectsIn: [true, false])
        fruit.optionalFlags.insert(objectsIn: [true, false, nil])
        fruit.decimals.append(objectsIn: [Decimal128(1), Decimal128(3), Decimal128(2), Decimal128(4)])
        try realm.write { realm.add(fruit) }
        return fruit
    }

    @Test("numbers section in value order; results of values and AnyRealmCollection too", arguments: [true, false])
    func numbers(_ ascending: Bool) throws {
        let fruit = try fruit()
        let sections = fruit.numbers.sectioned(by: { $0 % 2 }, ascending: ascending)
        #expect(sections.map(\.key) == [1, 0])
        #expect(Array(sections[0]) == (ascending ? [1, 3, 5] : [5, 3, 1]))
        #expect(fruit.numbers.sorted(ascending: true).sectioned(by: { $0 % 2 }, ascending: ascending).map(\.key) == [1, 0])
        #expect(AnyRealmCollection(fruit.numbers.sorted(ascending: true)).sectioned(by: { $0 % 2 }, ascending: ascending)
                    .map(\.key) == [1, 0])
        let optional = fruit.optionalNumbers.sectioned(by: { $0.map { $0 % 2 } }, ascending: ascending)
        #expect(optional.map(\.key) == (ascending ? [nil, 1, 0] : [1, 0, nil]))
        let decimals = fruit.decimals.sectioned(by: { $0 == Decimal128(2) || $0 == Decimal128(4) ? Decimal128(2) : Decimal128(1) },
                                                ascending: ascending)
        #expect(decimals.map(\.key) == (ascending ? [Decimal128(1), Decimal128(2)] : [Decimal128(2), Decimal128(1)]))
    }

    @Test("mixed values, data, dates and booleans section in Realm's order", arguments: [true, false])
    func otherValues(_ ascending: Bool) throws {
        let fruit = try fruit()
        // Mixed values order as realm-core's Mixed::compare: booleans, numbers (by value across
        // types), strings and binaries (by their bytes: Data([1]) before "apple").
        let mixed = fruit.mixed.sectioned(by: { value -> String in
            if case .data = value { return "data" }
            return "alphanumeric"
        }, ascending: ascending)
        #expect(mixed.map(\.key) == ["alphanumeric", "data"])
        let alphanumeric = ascending ? Array(mixed[0]) : Array(mixed[0]).reversed()
        #expect(alphanumeric == [.bool(true), .int(2), .decimal128(123.456), .string("apple")])
        #expect(Array(fruit.mixed.sorted(ascending: ascending)) == (ascending
            ? [.bool(true), .int(2), .decimal128(123.456), .data(Data([1])), .string("apple")]
            : [.string("apple"), .data(Data([1])), .decimal128(123.456), .int(2), .bool(true)]))
        let blobs = fruit.blobs.sectioned(by: { $0.base64EncodedString().count == 4 ? "short" : "long" }, ascending: ascending)
        #expect(blobs.map(\.key) == (ascending ? ["long", "short"] : ["short", "long"]))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let months = fruit.dates.sectioned(by: { calendar.component(.month, from: $0) }, ascending: ascending)
        #expect(months.map(\.key) == (ascending ? [4, 5, 6] : [6, 5, 4]))
        #expect(months[ascending ? 0 : 2].count == 2)
        #expect(fruit.flags.sectioned(by: { $0 }, ascending: ascending).map(\.key) == (ascending ? [false, true] : [true, false]))
        #expect(fruit.optionalFlags.sectioned(by: { $0 }, ascending: ascending).map(\.key)
                    == (ascending ? [nil, false, true] : [true, false, nil]))
    }

    @Test("sections of a frozen list are frozen; thawed, live")
    func frozenList() throws {
        let fruit = try fruit()
        let sections = fruit.numbers.sectioned(by: { $0 % 2 })
        #expect(!sections.isFrozen)
        let fromFrozen = fruit.numbers.freeze().sectioned(by: { $0 % 2 })
        #expect(fromFrozen.isFrozen)
        #expect(fromFrozen.count == 2)
        let thawed = try #require(fromFrozen.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.count == 2)
        #expect(try #require(sections.freeze().thaw()).count == 2)
    }
}

@Suite("Sectioned results as Realm Swift: programmer errors")
struct SectionedResultsParityErrorTests {
    @Test("sectioning by a key path with no sort descriptors")
    func emptySortDescriptors() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try fruitRealm()
            _ = realm.objects(ProjFruit.self).sectioned(by: \.name, sortDescriptors: [])
        }
        expectStop("Can not section Results with empty sortDescriptor parameter.", result)
    }

    @Test("sectioning by a key path that the first sort descriptor does not sort by")
    func mismatchedSortDescriptor() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try fruitRealm()
            _ = realm.objects(ProjFruitView.self).sectioned(by: \.name, sortDescriptors: [SortDescriptor(keyPath: "count")])
        }
        expectStop("The section key path must match the primary sort descriptor.", result)
    }
}
