// AnyRealmCollection.swift — AnyRealmCollection: a Results, List, MutableSet or LinkingObjects
// behind one type, as in Realm Swift. It forwards to the collection it wraps; its queries and
// aggregates are the shared ones of `RealmCollection` (RealmCollection.swift).

/// Any of Realm's collections — `Results`, `List`, `MutableSet`, `LinkingObjects` — as one type
/// (Realm's `AnyRealmCollection`): for a property or parameter that may hold any of them. It
/// reads the collection it wraps, live: no copy is made. Filtering, sorting and aggregating the
/// objects give `Results`, as on the wrapped collection.
///
///     let all = AnyRealmCollection(realm.objects(Dog.self))
///     let owned = AnyRealmCollection(person.dogs)
///     for dogs in [all, owned] {
///         print(dogs.count, dogs.filter("age > 2").count, dogs.max(ofProperty: "age") as Int?)
///     }
public struct AnyRealmCollection<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    /// The wrapped collection (never itself an `AnyRealmCollection`).
    let base: any RealmCollection<Element>

    /// Wraps a `Results`, `List`, `MutableSet` or `LinkingObjects` (an `AnyRealmCollection` is
    /// not wrapped again: the result wraps the same collection).
    ///
    ///     let dogs = AnyRealmCollection(person.dogs)
    ///     let owners = AnyRealmCollection(rex.owners)
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        if let erased = base as? AnyRealmCollection<Element> {
            self = erased
        } else {
            self.base = base
        }
    }

    /// Wraps a collection already erased (a frozen or thawed copy of `base`).
    private init(erased base: any RealmCollection<Element>) {
        self.base = base
    }

    /// The Realm of the collection; nil for an unmanaged list or set.
    ///
    ///     AnyRealmCollection(person.dogs).realm == realm    // true
    public var realm: Realm? { base.realm }

    /// Whether the collection can no longer be used (its object was deleted, or its Realm
    /// invalidated).
    ///
    ///     if dogs.isInvalidated { return }
    public var isInvalidated: Bool { base.isInvalidated }

    /// The number of elements.
    ///
    ///     AnyRealmCollection(person.dogs).count
    public var count: Int { base.count }

    /// Whether the collection has no elements.
    ///
    ///     AnyRealmCollection(rex.owners).isEmpty
    public var isEmpty: Bool { base.count == 0 }

    /// 0.
    ///
    ///     dogs[dogs.startIndex]
    public var startIndex: Int { 0 }

    /// `count`.
    ///
    ///     dogs.indices == 0..<dogs.endIndex
    public var endIndex: Int { base.count }

    /// The element at `position`. An index past the end is a programmer error.
    ///
    ///     let firstDog = AnyRealmCollection(person.dogs)[0]
    public subscript(position: Int) -> Element { base[position] }

    /// Iterates as the wrapped collection does (for `Results`, over the objects present when
    /// iteration starts).
    ///
    ///     for dog in AnyRealmCollection(person.dogs) { print(dog.name) }
    public func makeIterator() -> AnyIterator<Element> {
        var iterator = base.makeIterator()
        return AnyIterator { iterator.next() }
    }

    /// The position of `object` in the collection, or nil.
    ///
    ///     AnyRealmCollection(person.dogs).index(of: rex)    // 0
    public func index(of object: Element) -> Int? { base.index(of: object) }

    /// The wrapped collection's description (`Results<Dog> (...)`, `List<Dog> (...)`, ...).
    ///
    ///     print(AnyRealmCollection(person.dogs))
    public var description: String { base.description }
}

extension AnyRealmCollection {
    /// The wrapped collection's objects as `Results` (see `RealmCollectionBase`).
    ///
    ///     AnyRealmCollection(person.dogs)._resultsView().count
    public func _resultsView() -> Results<Element> { base._resultsView() }

    /// Whether the collection belongs to a frozen Realm.
    ///
    ///     AnyRealmCollection(person.dogs).freeze().isFrozen    // true
    public var isFrozen: Bool { base.isFrozen }

    /// A frozen copy: the wrapped collection frozen (as its own `freeze()`), readable from any
    /// thread.
    ///
    ///     let frozenDogs = AnyRealmCollection(person.dogs).freeze()
    ///     DispatchQueue.global().async { print(frozenDogs.count) }
    public func freeze() -> AnyRealmCollection {
        AnyRealmCollection(erased: base.freeze())
    }

    /// The live collection, in the calling thread's Realm, of a frozen one; nil if its object was
    /// deleted. A live collection returns itself.
    ///
    ///     let liveDogs = frozenDogs.thaw()
    public func thaw() -> AnyRealmCollection? {
        base.thaw().map { AnyRealmCollection(erased: $0) }
    }
}

extension AnyRealmCollection: RealmMovable {
    func moved(to core: RealmCore) -> Any? {
        guard let movable = base as? RealmMovable, let moved = movable.moved(to: core) else { return nil }
        return (moved as? any RealmCollection<Element>).map { AnyRealmCollection(erased: $0) }
    }
}
