// SectionLayout.swift — the sections of a SectionedResults: the elements of its results grouped
// by the key a block gives each, computed again when the Realm reads another version.

import Foundation

/// The sections of a SectionedResults and its ResultsSections: the results (sorted), the block
/// that gives each element its section key, and the grouping of the results' positions by key
/// (sections in the order their first element comes), cached for the version the Realm reads.
/// In a write transaction (where the data changes without a new version) it is computed again
/// at each access.
final class SectionLayout<Key: _Persistable & Hashable, Element: RealmCollectionValue> {
    let results: Results<Element>
    let sectionKey: (Element) -> Key
    private var cachedStamp: (version: UInt64, epoch: UInt64)?
    private var cached: [(key: Key, positions: [Int])] = []

    init(results: Results<Element>, sectionKey: @escaping (Element) -> Key) {
        self.results = results
        self.sectionKey = sectionKey
    }

    /// The sections now: each key with the positions in the results of its elements.
    var sections: [(key: Key, positions: [Int])] {
        let core = results.core
        if core.isInWriteTransaction { return Self.group(results, sectionKey) }
        let stamp = (core.readVersion, core.epoch)
        if let cachedStamp, cachedStamp == stamp { return cached }
        cached = Self.group(results, sectionKey)
        cachedStamp = stamp
        return cached
    }

    /// The index of the section of `key`, nil if no element has that key now.
    func sectionIndex(of key: Key) -> Int? { sections.firstIndex { $0.key == key } }

    static func group(_ results: Results<Element>, _ sectionKey: (Element) -> Key) -> [(key: Key, positions: [Int])] {
        var sections: [(key: Key, positions: [Int])] = []
        var indexByKey: [Key: Int] = [:]
        for (position, element) in results.enumerated() {
            let key = sectionKey(element)
            if let index = indexByKey[key] {
                sections[index].positions.append(position)
            } else {
                indexByKey[key] = sections.count
                sections.append((key: key, positions: [position]))
            }
        }
        return sections
    }
}
