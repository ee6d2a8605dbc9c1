// ResultsIterator.swift — ResultsIterator: the iterator of a Results.

import Foundation

/// The iterator of a `Results`: the objects whose keys it took when iteration started (or the
/// values, for results of values).
public struct ResultsIterator<Element: RealmCollectionValue>: IteratorProtocol {
    let core: RealmCore?
    let table: TableInfo?
    let keys: [ObjectKey]
    let values: [Element]
    var index = 0

    init(core: RealmCore, table: TableInfo?, keys: [ObjectKey]) {
        self.core = core
        self.table = table
        self.keys = keys
        self.values = []
    }

    init(values: [Element]) {
        self.core = nil
        self.table = nil
        self.keys = []
        self.values = values
    }

    /// The next object (or value), or nil at the end.
    public mutating func next() -> Element? {
        if index < values.count {
            defer { index += 1 }
            return values[index]
        }
        guard index < keys.count, let core, let table else { return nil }
        defer { index += 1 }
        return resultsElement(core.makeObject(table, keys[index]), as: Element.self)
    }
}
