// ResultsSection.swift — ResultsSection: one section of a SectionedResults, as in Realm Swift.

import Foundation

/// One section of a `SectionedResults` (Realm's `ResultsSection`): the objects whose section key
/// is `key`, in the results' order. Live: it follows its key, and is empty once no object has it.
///
///     let section = byInitial[0]
///     section.key          // "A"
///     section.map(\.name)  // ["Ada", "Ann"]
public struct ResultsSection<Key: _Persistable & Hashable, T: RealmCollectionValue>: RealmSectionedResult, Identifiable {
    /// The objects of the section.
    public typealias Element = T

    let layout: SectionLayout<Key, T>

    /// The key of the section.
    public let key: Key

    /// The key of the section (Identifiable).
    public var id: Key { key }

    init(layout: SectionLayout<Key, T>, key: Key) {
        self.layout = layout
        self.key = key
    }

    /// The positions in the results of the section's objects, now.
    private var positions: [Int] { layout.sections.first { $0.key == key }?.positions ?? [] }

    /// 0.
    public var startIndex: Int { 0 }

    /// The number of objects.
    public var endIndex: Int { positions.count }

    /// The number of objects.
    ///
    ///     section.count
    public var count: Int { positions.count }

    /// The object at `index`; past the end is a programmer error.
    ///
    ///     section[0].name
    public subscript(_ index: Int) -> T {
        let positions = self.positions
        guard index >= 0, index < positions.count else { indexFailure(index, positions.count) }
        return layout.results[positions[index]]
    }

    /// The Realm of the results.
    public var realm: Realm? { layout.results.realm }

    /// Whether the section can no longer be used.
    public var isInvalidated: Bool { layout.results.isInvalidated }

    /// Whether the section is frozen.
    public var isFrozen: Bool { layout.results.isFrozen }

    /// The section frozen at the Realm's current version, readable from any thread.
    ///
    ///     let frozen = section.freeze()
    public func freeze() -> ResultsSection {
        ResultsSection(layout: SectionLayout(results: layout.results.freeze(), sectionKey: layout.sectionKey), key: key)
    }

    /// The live section of a frozen one, in the calling thread's Realm.
    ///
    ///     let live = frozen.thaw()
    public func thaw() -> ResultsSection? {
        layout.results.thaw().map { ResultsSection(layout: SectionLayout(results: $0, sectionKey: layout.sectionKey), key: key) }
    }

    /// Observes the section: `.initial`, then `.update` after each commit that changed its
    /// objects, inserted it or deleted it (index paths and section indices name the section by
    /// its index among all sections: the old one for deletions and modifications, the new one
    /// for insertions), as Realm reports a section's changes.
    ///
    ///     let token = section.observe(keyPaths: nil, on: nil) { change in print(change) }
    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        let key = self.key
        return observeSections(layout, keyPaths: keyPaths, on: queue) { layout, change, previousKeys in
            let section = ResultsSection(layout: layout, key: key)
            guard let change else { return block(.initial(section)) }
            guard let own = sectionChanges(change, of: key, oldKeys: previousKeys, newKeys: layout.sections.map(\.key)) else { return }
            block(.update(section, deletions: own.deletions, insertions: own.insertions, modifications: own.modifications,
                          sectionsToInsert: own.sectionsToInsert, sectionsToDelete: own.sectionsToDelete))
        }
    }

    /// Whether two values are the same section of the same sectioned results.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool { lhs.layout === rhs.layout && lhs.key == rhs.key }
}

extension ResultsSection: RealmMovable {
    /// The section of the same key of the results read in `core` (for ThreadSafeReference).
    func moved(to core: RealmCore) -> Any? {
        layout.results.rebased(onto: core).map { ResultsSection(layout: SectionLayout(results: $0, sectionKey: layout.sectionKey), key: key) }
    }
}
