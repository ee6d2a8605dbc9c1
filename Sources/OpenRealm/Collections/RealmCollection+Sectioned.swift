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
    /// property (the first sort descriptor should order by it, or sections are built from
    /// objects that are apart).
    ///
    ///     let byAge = dogs.sectioned(by: \.age, sortDescriptors: ["age", "name"])
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        SectionedResults(results: sorted(by: sortDescriptors), sectionKey: { $0[keyPath: keyPath] })
    }
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
