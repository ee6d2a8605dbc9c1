// MapIndex.swift — MapIndex: the position of an entry of a Map, as in Realm Swift.

/// The position of an entry of a `Map`, in the map's key order: what `Map.index(of:)` gives and
/// `map[index]` reads, as Realm's `MapIndex`.
///
///     if let position = person.scores.index(of: 90) {
///         let (key, value) = person.scores[position]
///     }
public struct MapIndex: Hashable, Sendable {
    /// The position of the entry in the map.
    public var offset: UInt

    /// The index of the entry at `offset`.
    ///
    ///     let first = MapIndex(offset: 0)
    public init(offset: UInt) {
        self.offset = offset
    }
}
