// Map+KeyPaths.swift — the aggregates and the sort of a Map of objects by Swift key path, as
// Realm's extensions of RealmKeyedCollection where the values are optional objects.

import Foundation

extension Map {
    /// The smallest value of a property of the map's objects, nil if there are none.
    ///
    ///     let youngest = person.pets.min(of: \.age)    // Map<String, Dog?>
    public func min<Wrapped: ObjectBase, T: _HasPersistedType>(of keyPath: KeyPath<Wrapped, T>) -> T?
    where Value == Wrapped?, T.PersistedType: MinMaxType {
        min(ofProperty: propertyPath(of: keyPath))
    }

    /// The largest value of a property of the map's objects, nil if there are none.
    ///
    ///     let oldest = person.pets.max(of: \.age)
    public func max<Wrapped: ObjectBase, T: _HasPersistedType>(of keyPath: KeyPath<Wrapped, T>) -> T?
    where Value == Wrapped?, T.PersistedType: MinMaxType {
        max(ofProperty: propertyPath(of: keyPath))
    }

    /// The sum of a numeric property of the map's objects (0 if there are none).
    ///
    ///     let years = person.pets.sum(of: \.age)
    public func sum<Wrapped: ObjectBase, T: _HasPersistedType>(of keyPath: KeyPath<Wrapped, T>) -> T
    where Value == Wrapped?, T.PersistedType: AddableType {
        sum(ofProperty: propertyPath(of: keyPath))
    }

    /// The average of a numeric property of the map's objects, nil if there are none.
    ///
    ///     let meanAge = person.pets.average(of: \.age)
    public func average<Wrapped: ObjectBase, T: _HasPersistedType>(of keyPath: KeyPath<Wrapped, T>) -> T?
    where Value == Wrapped?, T.PersistedType: AddableType {
        average(ofProperty: propertyPath(of: keyPath))
    }

    /// The map's objects sorted by a property (a managed map only, as in Realm).
    ///
    ///     let byAge = person.pets.sorted(by: \.age, ascending: true)
    public func sorted<Wrapped: ObjectBase, T: _HasPersistedType>(by keyPath: KeyPath<Wrapped, T>, ascending: Bool)
        -> Results<Value> where Value == Wrapped?, T.PersistedType: SortableType {
        sorted(byKeyPath: propertyPath(of: keyPath), ascending: ascending)
    }
}
