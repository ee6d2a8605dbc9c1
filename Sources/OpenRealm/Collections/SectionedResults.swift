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
/// (deletions and modifications at old positions, insertions at new ones).
func sectionChanges<Key: Hashable>(from old: [(key: Key, positions: [Int])], to new: [(key: Key, positions: [Int])],
                                   deletions: [Int], insertions: [Int], modifications: [Int]) -> SectionChanges {
    func paths(_ sections: [(key: Key, positions: [Int])]) -> [Int: IndexPath] {
        var result: [Int: IndexPath] = [:]
        for (section, entry) in sections.enumerated() {
            for (item, position) in entry.positions.enumerated() { result[position] = IndexPath(indexes: [section, item]) }
        }
        return result
    }
    let oldPaths = paths(old)
    let newPaths = paths(new)
    let oldKeys = Set(old.map(\.key))
    let newKeys = Set(new.map(\.key))
    var changes = SectionChanges()
    for (index, entry) in old.enumerated() where !newKeys.contains(entry.key) { changes.sectionsToDelete.insert(index) }
    for (index, entry) in new.enumerated() where !oldKeys.contains(entry.key) { changes.sectionsToInsert.insert(index) }
    let deleted = Set(deletions)
    let inserted = Set(insertions)
    let modified = Set(modifications)
    for position in deletions.sorted() {
        if let path = oldPaths[position], !changes.sectionsToDelete.contains(path[0]) { changes.deletions.append(path) }
    }
    for position in insertions.sorted() {
        if let path = newPaths[position], !changes.sectionsToInsert.contains(path[0]) { changes.insertions.append(path) }
    }
    // The objects in both versions, in order: the i-th kept old position is the i-th kept new one.
    let oldKept = (0..<oldPaths.count).filter { !deleted.contains($0) }
    let newKept = (0..<newPaths.count).filter { !inserted.contains($0) }
    for (oldPosition, newPosition) in zip(oldKept, newKept) {
        guard let from = oldPaths[oldPosition], let to = newPaths[newPosition] else { continue }
        if old[from[0]].key != new[to[0]].key {
            // The object changed section: it leaves one and enters the other.
            if !changes.sectionsToDelete.contains(from[0]) { changes.deletions.append(from) }
            if !changes.sectionsToInsert.contains(to[0]) { changes.insertions.append(to) }
        } else if modified.contains(oldPosition) {
            changes.modifications.append(from)
        }
    }
    changes.deletions.sort()
    changes.insertions.sort()
    changes.modifications.sort()
    return changes
}
