// CollectionElementMapper.swift — CollectionElementMapper: a list's or set's objects, whose
// members make a ProjectedCollection (`\Person.dogs.projectTo.name`), as in Realm Swift.

import Foundation

/// The objects of a list or set, whose members (key paths of the objects) make a
/// `ProjectedCollection` (Realm's `CollectionElementMapper`): `\Person.dogs.projectTo.name`.
@dynamicMemberLookup
public struct CollectionElementMapper<Element: ObjectBase & RealmCollectionValue> {
    /// The list or set.
    private let collection: Any

    init(_ collection: List<Element>) { self.collection = collection }
    init(_ collection: MutableSet<Element>) { self.collection = collection }

    /// The values of `member` of the collection's objects.
    ///
    ///     @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
    public subscript<V: RealmCollectionValue>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        if let list = collection as? List<Element> { return ProjectedCollection(list, member) }
        return ProjectedCollection(collection as! MutableSet<Element>, member)
    }
}
