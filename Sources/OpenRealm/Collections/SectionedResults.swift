// SectionedResults.swift — SectionedResults: results grouped in sections by a key, as in Realm
// Swift.

import Foundation

/// Results grouped in sections by a key (Realm's `SectionedResults`): its elements are the
/// `ResultsSection`s, in the order of their first object in the sorted results. Live and lazy:
/// the sections are computed again when the Realm reads a newer version. Made by
/// `sectioned(by:ascending:)` and its variants.
///
///     let byInitial = realm.objects(Person.self).sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: ["name"])
///     for section in byInitial { print(section.key, section.map(\.name)) }
///     byInitial.allKeys                      // ["A", "B"]
///     byInitial[IndexPath(indexes: [1, 0])].name   // section 1, item 0
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>: RealmSectionedResult {
    /// The sections.
    public typealias Element = ResultsSection<Key, SectionElement>

    let layout: SectionLayout<Key, SectionElement>

    init(layout: SectionLayout<Key, SectionElement>) {
        self.layout = layout
    }

    init(results: Results<SectionElement>, sectionKey: @escaping (SectionElement) -> Key) {
        layout = SectionLayout(results: results, sectionKey: sectionKey)
    }

    /// The keys of the sections, in order.
    ///
    ///     byInitial.allKeys    // ["A", "B"]
    public var allKeys: [Key] { layout.sections.map(\.key) }

    /// 0.
    public var startIndex: Int { 0 }

    /// The number of sections.
    public var endIndex: Int { layout.sections.count }

    /// The number of sections.
    ///
    ///     byInitial.count
    public var count: Int { layout.sections.count }

    /// The section at `index`; past the end is a programmer error.
    ///
    ///     byInitial[0].key
    public subscript(_ index: Int) -> ResultsSection<Key, SectionElement> {
        let sections = layout.sections
        guard index >= 0, index < sections.count else { indexFailure(index, sections.count) }
        return ResultsSection(layout: layout, key: sections[index].key)
    }

    /// The object at `indexPath` (section, item).
    ///
    ///     byInitial[IndexPath(indexes: [1, 0])]
    public subscript(_ indexPath: IndexPath) -> SectionElement {
        self[indexPath[0]][indexPath[1]]
    }

    /// The Realm of the results.
    public var realm: Realm? { layout.results.realm }

    /// Whether the results can no longer be used.
    public var isInvalidated: Bool { layout.results.isInvalidated }

    /// Whether the results are frozen.
    public var isFrozen: Bool { layout.results.isFrozen }

    /// The sections frozen at the Realm's current version, readable from any thread.
    ///
    ///     let frozen = byInitial.freeze()
    public func freeze() -> SectionedResults {
        SectionedResults(results: layout.results.freeze(), sectionKey: layout.sectionKey)
    }

    /// The live sections of frozen ones, in the calling thread's Realm.
    ///
    ///     let live = frozen.thaw()
    public func thaw() -> SectionedResults? {
        layout.results.thaw().map { SectionedResults(results: $0, sectionKey: layout.sectionKey) }
    }

    /// Observes the sections: `.initial`, then `.update` after each commit that changed them.
    ///
    ///     let token = byInitial.observe(keyPaths: nil, on: nil) { change in print(change) }
    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observeSections(layout, keyPaths: keyPaths, on: queue) { layout, change, _ in
            let sections = SectionedResults(layout: layout)
            guard let change else { return block(.initial(sections)) }
            block(.update(sections, deletions: change.deletions, insertions: change.insertions, modifications: change.modifications,
                          sectionsToInsert: change.sectionsToInsert, sectionsToDelete: change.sectionsToDelete))
        }
    }

    /// Whether two values are the same sectioned results (made by the same call).
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool { lhs.layout === rhs.layout }
}

extension SectionedResults: RealmMovable {
    /// The same sections of the results read in `core` (for ThreadSafeReference).
    func moved(to core: RealmCore) -> Any? {
        layout.results.rebased(onto: core).map { SectionedResults(results: $0, sectionKey: layout.sectionKey) }
    }
}

/// What changed in a sectioned results between two versions, in index paths.
struct SectionChanges {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert = IndexSet()
    var sectionsToDelete = IndexSet()
}

/// The sections an observer delivered last (its block only touches it).
final class PreviousSections<Key>: @unchecked Sendable {
    var sections: [(key: Key, positions: [Int])] = []
}

/// Observes the results of `layout` and reports each version's sections (`deliver` with nil for
/// the initial one, then the changes from the previous sections, whose keys it also gets).
func observeSections<Key, Element>(
    _ layout: SectionLayout<Key, Element>, keyPaths: [String]?, on queue: DispatchQueue?,
    _ deliver: @escaping (SectionLayout<Key, Element>, SectionChanges?, _ previousKeys: [Key]) -> Void
) -> NotificationToken {
    let previous = PreviousSections<Key>()
    let sectionKey = layout.sectionKey
    return layout.results.observe(keyPaths: keyPaths, on: queue) { change in
        switch change {
        case .initial(let results):
            let current = SectionLayout(results: results, sectionKey: sectionKey)
            previous.sections = current.sections
            deliver(current, nil, [])
        case .update(let results, let deletions, let insertions, let modifications):
            let current = SectionLayout(results: results, sectionKey: sectionKey)
            let new = current.sections
            let changes = sectionChanges(from: previous.sections, to: new, deletions: deletions, insertions: insertions,
                                         modifications: modifications)
            let previousKeys = previous.sections.map(\.key)
            previous.sections = new
            deliver(current, changes, previousKeys)
        case .error:
            break
        }
    }
}

/// The index-path changes between two groupings of a results, given the results' own changes
/// (deletions and modifications at old positions, insertions at new ones; a moved object is a
/// deletion and an insertion), as realm-core's SectionedResults computes them: deletions at old
/// index paths and insertions at new ones (those of new sections included, those of deleted
/// sections left out: the section's deletion says it); a modified object stays a modification
/// (at its old index path) only when its item index is the same in both versions and its
/// section still exists, otherwise it is deleted and inserted.
func sectionChanges<Key: Hashable>(from old: [(key: Key, positions: [Int])], to new: [(key: Key, positions: [Int])],
                                   deletions: [Int], insertions: [Int], modifications: [Int]) -> SectionChanges {
    func paths(_ sections: [(key: Key, positions: [Int])]) -> [Int: (section: Int, item: Int)] {
        var result: [Int: (section: Int, item: Int)] = [:]
        for (section, entry) in sections.enumerated() {
            for (item, position) in entry.positions.enumerated() { result[position] = (section, item) }
        }
        return result
    }
    func group(_ positions: [Int], _ paths: [Int: (section: Int, item: Int)]) -> [Int: Set<Int>] {
        var result: [Int: Set<Int>] = [:]
        for position in positions {
            if let path = paths[position] { result[path.section, default: []].insert(path.item) }
        }
        return result
    }
    let oldPaths = paths(old)
    let newPaths = paths(new)
    let oldIndexByKey = Dictionary(old.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { first, _ in first })
    let newIndexByKey = Dictionary(new.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { first, _ in first })
    var changes = SectionChanges()
    for (index, entry) in old.enumerated() where newIndexByKey[entry.key] == nil { changes.sectionsToDelete.insert(index) }
    for (index, entry) in new.enumerated() where oldIndexByKey[entry.key] == nil { changes.sectionsToInsert.insert(index) }

    // The new position of each modified object: the objects in both versions keep their order,
    // so the i-th old position not deleted is the i-th new one not inserted.
    let deleted = Set(deletions)
    let inserted = Set(insertions)
    let oldKept = (0..<oldPaths.count).filter { !deleted.contains($0) }
    let newKept = (0..<newPaths.count).filter { !inserted.contains($0) }
    let newPositionOf = Dictionary(zip(oldKept, newKept), uniquingKeysWith: { first, _ in first })

    var deletedItems = group(deletions, oldPaths)
    var insertedItems = group(insertions, newPaths)
    let modifiedOld = group(modifications, oldPaths)
    var modifiedNew = group(modifications.compactMap { newPositionOf[$0] }, newPaths)
    var kept: [Int: Set<Int>] = [:]
    for (oldSection, oldItems) in modifiedOld {
        guard let newSection = newIndexByKey[old[oldSection].key] else { continue }
        let same = oldItems.intersection(modifiedNew[newSection] ?? [])
        if !same.isEmpty { kept[oldSection] = same }
        modifiedNew[newSection]?.subtract(same)
        let moved = oldItems.subtracting(same)
        if !moved.isEmpty { deletedItems[oldSection, default: []].formUnion(moved) }
    }
    for (newSection, items) in modifiedNew where !items.isEmpty { insertedItems[newSection, default: []].formUnion(items) }
    for section in changes.sectionsToDelete { deletedItems[section] = nil }

    func indexPaths(_ grouped: [Int: Set<Int>]) -> [IndexPath] {
        grouped.flatMap { section, items in items.map { IndexPath(indexes: [section, $0]) } }.sorted()
    }
    changes.deletions = indexPaths(deletedItems)
    changes.insertions = indexPaths(insertedItems)
    changes.modifications = indexPaths(kept)
    return changes
}

/// The part of `changes` that concerns the section of `key` (as realm-core filters a section's
/// notification): insertions in its new section, deletions and modifications in its old one,
/// and its own insertion or deletion as a section; nil when nothing concerns it.
func sectionChanges<Key: Hashable>(_ changes: SectionChanges, of key: Key, oldKeys: [Key], newKeys: [Key]) -> SectionChanges? {
    let oldIndex = oldKeys.firstIndex(of: key)
    let newIndex = newKeys.firstIndex(of: key)
    var filtered = SectionChanges()
    filtered.insertions = changes.insertions.filter { $0[0] == newIndex }
    filtered.deletions = changes.deletions.filter { $0[0] == oldIndex }
    filtered.modifications = changes.modifications.filter { $0[0] == oldIndex }
    if let newIndex, changes.sectionsToInsert.contains(newIndex) { filtered.sectionsToInsert.insert(newIndex) }
    if let oldIndex, changes.sectionsToDelete.contains(oldIndex) { filtered.sectionsToDelete.insert(oldIndex) }
    guard !filtered.insertions.isEmpty || !filtered.deletions.isEmpty || !filtered.modifications.isEmpty
            || !filtered.sectionsToInsert.isEmpty || !filtered.sectionsToDelete.isEmpty else { return nil }
    return filtered
}
