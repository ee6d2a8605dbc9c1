// RealmCollection.swift — the RealmCollection protocol of Realm Swift: what Results, List,
// MutableSet, LinkingObjects and AnyRealmCollection share, so that code can be written once for
// any of them. Filtering, sorting and aggregating go through one path: the collection's objects
// as a live `Results` (`_resultsView()`, of _ResultsViewable), which each collection provides.

import Foundation

/// The collections whose objects can be read as a live `Results` (`RealmCollection`s and `Map`):
/// filtering, sorting and the `ofProperty:` aggregates go through that view. Internal machinery
/// of OpenRealm: applications call those methods on the collections.
///
///     person.dogs._resultsView().count == person.dogs.count
public protocol _ResultsViewable {
    /// The type of the objects of the view: the collection's elements, or a map's values.
    ///
    ///     let pets: Results<Map<String, Dog?>._ViewElement> = person.pets.filter("age > 2")   // Results<Dog?>
    associatedtype _ViewElement: RealmCollectionValue

    /// A live `Results` of the collection's objects, in the collection's order: the results
    /// themselves, or a view of a managed list, set, map (its non-nil values, in key order) or
    /// linking objects. Filtering and sorting a collection require it to be managed, as in Realm.
    ///
    ///     person.dogs._resultsView().count == person.dogs.count
    func _resultsView() -> Results<_ViewElement>
}

/// A collection of Realm objects or values that can be read, filtered, sorted and aggregated:
/// `Results`, `List`, `MutableSet`, `LinkingObjects` and `AnyRealmCollection` (Realm's
/// `RealmCollection`). Write a function once for all of them:
///
///     func names<C: RealmCollection>(_ dogs: C) -> [String] where C.Element == Dog {
///         dogs.sorted(byKeyPath: "name").map(\.name)
///     }
///     names(realm.objects(Dog.self))
///     names(person.dogs)
///     names(rex.owners.first!.dogs)
///
/// Filtering, sorting, `distinct` and the `ofProperty:` aggregates apply to collections of
/// objects; a `List` or `MutableSet` must be managed for them (Realm's rule).
public protocol RealmCollection<Element>: RealmCollectionBase {
    /// The Realm that manages the collection; nil for an unmanaged `List` or `MutableSet`.
    ///
    ///     person.dogs.realm == realm    // true
    var realm: Realm? { get }

    /// Whether the collection can no longer be used (its object was deleted, or its Realm
    /// invalidated).
    ///
    ///     if dogs.isInvalidated { return }
    var isInvalidated: Bool { get }

    /// The number of elements.
    ///
    ///     person.dogs.count
    var count: Int { get }

    /// Realm's description of the collection and its first elements.
    ///
    ///     print(person.dogs)
    var description: String { get }

    /// The first element, nil if the collection is empty.
    ///
    ///     person.dogs.first?.name
    var first: Element? { get }

    /// The last element, nil if the collection is empty.
    ///
    ///     person.dogs.last?.name
    var last: Element? { get }

    /// The position of `object` in the collection, or nil.
    ///
    ///     person.dogs.index(of: rex)    // 0
    func index(of object: Element) -> Int?

    /// The position of the first object that matches a predicate, or nil.
    ///
    ///     person.dogs.index(matching: "name == %@", "Rex")
    func index(matching predicateFormat: String, _ args: Any...) -> Int?

    /// The elements at `indexes`, in index order; an index past the end is a programmer error.
    ///
    ///     person.dogs.objects(at: [0, 2])
    func objects(at indexes: IndexSet) -> [Element]

    /// The objects that match a predicate (Realm's NSPredicate format), as live `Results` in
    /// the collection's order.
    ///
    ///     let oldDogs = person.dogs.filter("age > %@", 10)
    func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element>

    /// The objects sorted by several key paths, the first one first.
    ///
    ///     dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"])
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor

    /// The objects with one kept of each distinct combination of the key paths' values.
    ///
    ///     let oneDogPerAge = dogs.distinct(by: ["age"])
    func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String

    /// The smallest value of a property of the objects, nil if there are none.
    ///
    ///     let youngest: Int? = dogs.min(ofProperty: "age")
    func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType

    /// The largest value of a property of the objects, nil if there are none.
    ///
    ///     let oldest: Int? = dogs.max(ofProperty: "age")
    func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType

    /// The sum of a numeric property of the objects (0 if there are none).
    ///
    ///     let years: Int = dogs.sum(ofProperty: "age")
    func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType

    /// The average of a numeric property of the objects, nil if there are none.
    ///
    ///     let meanAge: Double? = dogs.average(ofProperty: "age")
    func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType

    /// Sets the property `key` of every object of the collection to `value` (key-value coding,
    /// as `Object.setValue(_:forKey:)` sets one object's), in a write transaction.
    ///
    ///     try realm.write { realm.objects(Dog.self).filter("age < 2").setValue(person, forKey: "owner") }
    func setValue(_ value: Any?, forKey key: String)

    /// Whether the collection belongs to a frozen Realm.
    ///
    ///     dogs.freeze().isFrozen    // true
    var isFrozen: Bool { get }

    /// A frozen copy of the collection, readable from any thread.
    ///
    ///     let frozenDogs = person.dogs.freeze()
    func freeze() -> Self

    /// The live collection, in the calling thread's Realm, of a frozen one; nil if its object was
    /// deleted. A live collection returns itself.
    ///
    ///     let liveDogs = frozenDogs.thaw()
    func thaw() -> Self?

    /// Observes the collection: `.initial`, then `.update` after each commit that changed it,
    /// with the positions removed, inserted and modified (see `RealmCollectionChange` and
    /// CollectionObservation.swift). Keep the token for as long as you want the notifications.
    ///
    ///     let token = person.dogs.observe(keyPaths: ["name"], on: nil) { change in print(change) }
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken
}

// MARK: - setValue(_:forKey:)

extension RealmCollection {
    /// Sets the property `key` of every object of the collection to `value`, as Realm does: the
    /// objects the collection holds when it is called, each set as `Object.setValue(_:forKey:)`
    /// sets it; an unmanaged `List` or `MutableSet` sets each of its objects. A property of one
    /// value given a value of its type is written by one engine call for all the objects. In a
    /// write transaction (for a managed collection).
    ///
    ///     try realm.write {
    ///         realm.objects(Person.self).setValue(30, forKey: "age")
    ///         person.dogs.setValue("Rex", forKey: "name")
    ///     }
    public func setValue(_ value: Any?, forKey key: String) {
        guard Element._ceLinkTarget != nil else {
            throwRealmException("[<\(type(of: self))> setValue:forUndefinedKey:]: this class is not key value coding-compliant "
                + "for the key \(key).")
        }
        if realm == nil {
            for element in self { (element as? ObjectBase)?.setValue(value, forKey: key) }
            return
        }
        _resultsView().setValueOfEveryObject(value, forKey: key)
    }
}

// MARK: - Shared implementations (through the collection's Results view)

// Filtering, sorting and the aggregates of a property, for every collection (and Map): on its
// objects as `Results`.

/// Realm's message for `objects(at:)` with an index past the end.
private func indexesFailure() -> Never {
    throwRealmException("Indexes for collection are out of bounds.")
}

extension _ResultsViewable {
    /// The objects of the collection that match a predicate (as `Results.filter(_:_:)`), in the
    /// collection's order.
    ///
    ///     let oldDogs = person.dogs.filter("age > %@", 10)
    ///     let ownersNamedA = dog.owners.filter("name BEGINSWITH 'A'")
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<_ViewElement> {
        _resultsView().filtered(predicateFormat, args)
    }

    /// The objects of the collection for which a type-safe query holds, in the collection's order.
    ///
    ///     let oldDogs = person.dogs.where { $0.age > 10 }
    public func `where`(_ isIncluded: (Query<_ViewElement>) -> Query<Bool>) -> Results<_ViewElement> {
        _resultsView().where(isIncluded)
    }

    /// The objects sorted by a key path.
    ///
    ///     let byName = person.dogs.sorted(byKeyPath: "name")
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<_ViewElement> {
        _resultsView().sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects sorted by several key paths, the first one first.
    ///
    ///     person.dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"])
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<_ViewElement> where S.Iterator.Element == SortDescriptor {
        _resultsView().sorted(by: sortDescriptors)
    }

    /// The smallest value of a property of the objects, nil if there are none.
    ///
    ///     let youngest: Int? = person.dogs.min(ofProperty: "age")
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        if property == "self", let values = (self as? UnmanagedValuesHolder)?.unmanagedValues(as: _ViewElement.self) {
            return valuesMin(nil, values, as: T.self)
        }
        if let objects = (self as? UnmanagedObjectsHolder)?.unmanagedObjects {
            return unmanagedPropertyAggregateMin(objects, property, as: T.self)
        }
        return _resultsView().min(ofProperty: property)
    }

    /// The largest value of a property of the objects, nil if there are none.
    ///
    ///     let oldest: Int? = person.dogs.max(ofProperty: "age")
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        if property == "self", let values = (self as? UnmanagedValuesHolder)?.unmanagedValues(as: _ViewElement.self) {
            return valuesMax(nil, values, as: T.self)
        }
        if let objects = (self as? UnmanagedObjectsHolder)?.unmanagedObjects {
            return unmanagedPropertyAggregateMax(objects, property, as: T.self)
        }
        return _resultsView().max(ofProperty: property)
    }

    /// The sum of a numeric property of the objects (0 if there are none).
    ///
    ///     let years: Int = person.dogs.sum(ofProperty: "age")
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        if property == "self", let values = (self as? UnmanagedValuesHolder)?.unmanagedValues(as: _ViewElement.self) {
            return valuesSum(nil, values, as: T.self) ?? T._ceFromAny(0)!
        }
        if let objects = (self as? UnmanagedObjectsHolder)?.unmanagedObjects {
            return unmanagedPropertySum(objects, property, as: T.self)
        }
        return _resultsView().sum(ofProperty: property)
    }

    /// The average of a numeric property of the objects, nil if there are none.
    ///
    ///     let meanAge: Double? = person.dogs.average(ofProperty: "age")
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        if property == "self", let values = (self as? UnmanagedValuesHolder)?.unmanagedValues(as: _ViewElement.self) {
            return valuesAverage(nil, values, as: T.self)
        }
        if let objects = (self as? UnmanagedObjectsHolder)?.unmanagedObjects {
            return unmanagedPropertyAggregateAverage(objects, property, as: T.self)
        }
        return _resultsView().average(ofProperty: property)
    }
}

extension RealmCollection {
    /// The elements at `indexes`, in index order; an index past the end is a programmer error
    /// (Realm's message).
    ///
    ///     person.dogs.objects(at: IndexSet([0, 2]))
    public func objects(at indexes: IndexSet) -> [Element] {
        let count = self.count
        if let last = indexes.last, last >= count { indexesFailure() }
        return indexes.map { self[$0] }
    }

    /// The objects with one kept of each distinct combination of the key paths' values.
    ///
    ///     let oneDogPerAge = person.dogs.distinct(by: ["age"])
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        _resultsView().distinct(by: keyPaths)
    }

    /// The position in the collection of the first object that matches a predicate, or nil.
    ///
    ///     person.dogs.index(matching: "name == %@", "Rex")
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        let view = _resultsView()
        return view.firstIndex(matching: view.filtered(predicateFormat, args))
    }

    /// The position in the collection of the first object for which a type-safe query holds.
    ///
    ///     person.dogs.index(matching: { $0.name == "Rex" })
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        _resultsView().index(matching: isIncluded)
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The objects sorted by a Swift key path.
    ///
    ///     let byAge = person.dogs.sorted(by: \.age, ascending: false)
    public func sorted<Value>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        _resultsView().sorted(by: keyPath, ascending: ascending)
    }

    /// The objects with one kept of each distinct combination of the Swift key paths' values.
    ///
    ///     let oneDogPerAge = person.dogs.distinct(by: [\Dog.age])
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == PartialKeyPath<Element> {
        _resultsView().distinct(by: keyPaths)
    }

    /// The smallest value of a property by key path, nil if there are no objects.
    ///
    ///     let youngest = person.dogs.min(of: \.age)
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        min(ofProperty: propertyPath(of: keyPath))
    }

    /// The largest value of a property by key path, nil if there are no objects.
    ///
    ///     let oldest = person.dogs.max(of: \.age)
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        max(ofProperty: propertyPath(of: keyPath))
    }

    /// The sum of a numeric property by key path (0 if there are no objects).
    ///
    ///     let years = person.dogs.sum(of: \.age)
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        sum(ofProperty: propertyPath(of: keyPath))
    }

    /// The average of a numeric property by key path, nil if there are no objects.
    ///
    ///     let meanAge = person.dogs.average(of: \.age)
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: AddableType {
        average(ofProperty: propertyPath(of: keyPath))
    }
}

// MARK: - Conformances

extension Results: RealmCollection {
    /// The results themselves (see `_ResultsViewable`).
    ///
    ///     realm.objects(Dog.self)._resultsView().count
    public func _resultsView() -> Results<Element> { self }
}

extension List: RealmCollection {}
extension MutableSet: RealmCollection {}
extension LinkingObjects: _ResultsViewable, RealmCollectionBase, RealmCollection where Element: RealmCollectionValue {}
extension AnyRealmCollection: RealmCollection {}
