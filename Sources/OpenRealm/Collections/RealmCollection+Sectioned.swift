// RealmCollection+Sectioned.swift — sectioned(by:): a collection's objects grouped in sections,
// as in Realm Swift.

import Foundation

extension RealmCollection where Element: ObjectBase {
    /// The objects sorted by a property and grouped in sections by its value.
    ///
    ///     let byAge = realm.objects(Dog.self).sectioned(by: \.age, ascending: true)
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: keyPath, ascending: ascending), sectionKey: { $0[keyPath: keyPath] })
    }

    /// The objects sorted by `sortDescriptors` and grouped in sections by the value of a
    /// property; the first sort descriptor must sort by that property (Realm's rule: else
    /// sections would be built from objects that are apart).
    ///
    ///     let byAge = dogs.sectioned(by: \.age, sortDescriptors: ["age", "name"])
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        checkSectionSort(propertyPath(of: keyPath), sortDescriptors)
        return SectionedResults(results: sorted(by: sortDescriptors), sectionKey: { $0[keyPath: keyPath] })
    }
}

extension RealmCollection {
    /// Projections sorted by the object property a key path of the projection reads and grouped
    /// in sections by its value.
    ///
    ///     let byInitial = realm.objects(PersonProjection.self).sectioned(by: \.initial, ascending: true)
    public func sectioned<Key: _Persistable & Hashable, O: ObjectBase & RealmCollectionValue>(
        by keyPath: KeyPath<Element, Key>, ascending: Bool = true
    ) -> SectionedResults<Key, Element> where Element: Projection<O> {
        SectionedResults(results: sorted(by: [SortDescriptor(keyPath: originPath(of: keyPath), ascending: ascending)]),
                         sectionKey: { $0[keyPath: keyPath] })
    }

    /// Projections sorted by `sortDescriptors` (whose first must sort by the object property the
    /// key path reads) and grouped in sections by the key path's value.
    ///
    ///     let byInitial = people.sectioned(by: \.initial, sortDescriptors: [SortDescriptor(keyPath: "name")])
    public func sectioned<Key: _Persistable & Hashable, O: ObjectBase & RealmCollectionValue>(
        by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> where Element: Projection<O> {
        checkSectionSort(originPath(of: keyPath), sortDescriptors)
        return SectionedResults(results: sorted(by: sortDescriptors), sectionKey: { $0[keyPath: keyPath] })
    }
}

/// Realm's rules for sectioning by a key path with sort descriptors: there is one, and the first
/// sorts by the key path's property.
private func checkSectionSort(_ path: String, _ sortDescriptors: [SortDescriptor]) {
    guard let first = sortDescriptors.first else {
        throwRealmException("Can not section Results with empty sortDescriptor parameter.")
    }
    if first.keyPath != path { throwRealmException("The section key path must match the primary sort descriptor.") }
}

extension RealmCollection {
    /// The objects sorted by `sortDescriptors` and grouped in sections by the key `block` gives
    /// each.
    ///
    ///     let byInitial = people.sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: ["name"])
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping ((Element) -> Key),
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: sortDescriptors), sectionKey: block)
    }

    /// The values sorted (ascending or descending) and grouped in sections by the key `block`
    /// gives each: for collections of values.
    ///
    ///     let byTens = person.scores.sectioned(by: { $0 / 10 }, ascending: true)
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping ((Element) -> Key),
                                                        ascending: Bool = true) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: [SortDescriptor(keyPath: "self", ascending: ascending)]), sectionKey: block)
    }
}
