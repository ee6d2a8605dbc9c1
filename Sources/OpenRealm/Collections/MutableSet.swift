// MutableSet.swift — MutableSet: a collection of distinct values or objects, as in Realm Swift.

import Foundation

// MARK: - MutableSet

/// A collection of distinct values or objects: a `@Persisted` property of a model class, as
/// Realm's `MutableSet`. Managed sets read in value order.
///
///     class Person: Object {
///         @Persisted var tags: MutableSet<String>
///     }
///     try realm.write {
///         person.tags.insert("admin")
///         person.tags.formUnion(["a", "b"])
///     }
///     person.tags.contains("admin")    // true
public final class MutableSet<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible, Hashable {
    var unmanaged: [Element] { didSet { _writeBack?() } }
    /// Set on the collections a migration's new objects give (DynamicObject+Collections.swift):
    /// writes the contents back to the object after each change.
    var _writeBack: (() -> Void)?
    /// Set on the collections of a migration object's link property (DynamicObject+Collections.swift):
    /// the class their DynamicObjects are of, which the description names.
    var _dynamicClassName: String?
    /// Set once: by the initialiser, or when the object holding the unmanaged collection is
    /// added to a Realm (`_rlmPromote`).
    var managed: ManagedCollection?

    /// An empty unmanaged set.
    ///
    ///     let tags = MutableSet<String>()
    public init() {
        unmanaged = []
        managed = nil
    }

    init(managed: ManagedCollection) {
        unmanaged = []
        self.managed = managed
    }

    /// The Realm of a managed set; nil for an unmanaged one.
    public var realm: Realm? { managed?.realm }

    /// Whether the set's object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { managed?.isInvalidated ?? false }

    /// The number of elements.
    public var count: Int { managed?.count ?? unmanaged.count }

    /// 0.
    public var startIndex: Int { 0 }

    /// `count`.
    public var endIndex: Int { count }

    /// An iterator as Realm's enumeration (`RLMIterator`): the objects, or an unmanaged
    /// collection's elements, as they are now (a snapshot); a managed collection's values live.
    public func makeIterator() -> RLMIterator<Element> {
        guard let managed else {
            let elements = unmanaged
            return RLMIterator(snapshotCount: elements.count) { elements[$0] }
        }
        if Element._ceLinkTarget != nil { return managed.objectsIterator(as: Element.self) }
        return RLMIterator(self)
    }

    /// The element at `position` (value order when managed).
    public subscript(position: Int) -> Element {
        if let managed { return Element._ceRead(managed.get(position), managed.realm) }
        guard position >= 0, position < unmanaged.count else { indexFailure(position, unmanaged.count) }
        return unmanaged[position]
    }

    /// Whether the set holds `object`.
    ///
    ///     person.tags.contains("admin")
    public func contains(_ object: Element) -> Bool { index(of: object) != nil }

    /// The position of `object` in the set (value order when managed), or nil.
    ///
    ///     person.tags.index(of: "admin")    // 0
    public func index(of object: Element) -> Int? {
        guard let managed else { return unmanaged.firstIndex(of: object) }
        if let linked = object as Any as? ObjectBase, !linked.isManaged(by: managed.core) { return nil }
        return managed.find(object)
    }

    /// Inserts `object` if the set does not hold it. An unmanaged object inserted into a managed
    /// set is added to the Realm.
    ///
    ///     person.tags.insert("admin")
    public func insert(_ object: Element) {
        guard let managed else {
            if !unmanaged.contains(object) { unmanaged.append(object) }
            return
        }
        managed.setInsert(object)
    }

    /// Inserts every element of a sequence.
    ///
    ///     person.tags.insert(objectsIn: ["a", "b"])
    public func insert<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for object in objects { insert(object) }
    }

    /// Removes `object` if the set holds it.
    ///
    ///     person.tags.remove("admin")
    public func remove(_ object: Element) {
        guard let managed else {
            unmanaged.removeAll { $0 == object }
            return
        }
        if let linked = object as Any as? ObjectBase, !linked.isManaged(by: managed.core) { return }
        managed.setErase(object)
    }

    /// Removes every element.
    public func removeAll() {
        guard let managed else {
            unmanaged.removeAll()
            return
        }
        managed.clear()
    }

    /// Inserts every element of `other` (the set becomes the union).
    ///
    ///     set.formUnion(["a", "b"])
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element {
        for object in Array(other) { insert(object) }
    }

    /// Keeps only the elements that `other` holds too (the set becomes the intersection).
    ///
    ///     set.formIntersection(["a"])
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        let keep = Self.membership(in: other)
        for object in Array(self) where !keep(object) { remove(object) }
    }

    /// Removes every element that `other` holds.
    ///
    ///     set.subtract(["a"])
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for object in Array(other) { remove(object) }
    }

    /// The same as `formUnion(_:)` (Realm's older name).
    public func union<S: Sequence>(_ other: S) where S.Element == Element { formUnion(other) }

    /// The same as `formIntersection(_:)` (Realm's older name).
    public func intersect<S: Sequence>(_ other: S) where S.Element == Element { formIntersection(other) }

    /// Whether every element of the set is in `other`.
    ///
    ///     set.isSubset(of: ["a", "b", "c"])
    public func isSubset<S: Sequence>(of other: S) -> Bool where S.Element == Element {
        allSatisfy(Self.membership(in: other))
    }

    /// Whether the set and `other` have an element in common.
    ///
    ///     set.intersects(["a"])
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        contains(where: Self.membership(in: other))
    }

    /// Whether `other` holds an element, as the set algebra compares them: a managed set by its
    /// stored values (as realm-core compares two managed sets), so two accessors of one object
    /// are one element; otherwise a value by `==` and an object also by `isSameObject(as:)`.
    private static func membership<S: Sequence>(in other: S) -> (Element) -> Bool where S.Element == Element {
        if let set = other as? MutableSet<Element>, set.managed != nil { return set.contains }
        let elements = Array(other)
        guard Element._ceLinkTarget != nil else { return { elements.contains($0) } }
        return { element in
            let object = element as Any as? ObjectBase
            return elements.contains { $0 == element || ($0 as Any as? ObjectBase)?.isSameObject(as: object) == true }
        }
    }

    /// Realm's form: `MutableSet<string> <0x...> (\n\t[0] a\n)`.
    public var description: String {
        realmDescription(depth: realmDescriptionMaxDepth)
    }

    /// As Realm's `isEqual`: two unmanaged sets are equal when they hold the same elements (in
    /// any order); two managed sets when they are the same set (of the same object) of the same
    /// Realm instance; a managed and an unmanaged set never.
    ///
    ///     MutableSet<Int>() == MutableSet<Int>()    // true
    public static func == (lhs: MutableSet, rhs: MutableSet) -> Bool {
        switch (lhs.managed, rhs.managed) {
        case (nil, nil):
            lhs.unmanaged.count == rhs.unmanaged.count && lhs.unmanaged.allSatisfy { rhs.unmanaged.contains($0) }
        case let (left?, right?): left.isSameCollection(as: right)
        default: false
        }
    }

    /// Whether `object` is a set equal to this one (see `==`), as Realm's `NSObject.isEqual(_:)`.
    ///
    ///     set1.isEqual(set2)
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? MutableSet else { return false }
        return self == other
    }

    /// Hashes what `==` compares: a managed set's identity, an unmanaged set's count.
    public func hash(into hasher: inout Hasher) {
        if let managed { managed.hashIdentity(into: &hasher) } else { hasher.combine(unmanaged.count) }
    }
}

extension MutableSet {
    /// A live `Results` of the set's objects in its order (see `RealmCollectionBase`).
    ///
    ///     collections.dogSet._resultsView().count
    public func _resultsView() -> Results<Element> { objectsView(managed, "MutableSet") }
}

extension MutableSet where Element: MinMaxType {
    /// The smallest element (nil elements skipped), nil if there is none.
    ///
    ///     person.luckyNumbers.min()    // MutableSet<Int>
    public func min() -> Element? { valuesMin(managed, unmanaged, as: Element.self) }

    /// The largest element (nil elements skipped), nil if there is none.
    ///
    ///     person.luckyNumbers.max()
    public func max() -> Element? { valuesMax(managed, unmanaged, as: Element.self) }
}

extension MutableSet where Element: AddableType {
    /// The sum of the elements (0 for none; nil elements skipped).
    ///
    ///     let total = person.luckyNumbers.sum()
    public func sum() -> Element {
        valuesSum(managed, unmanaged, as: Element.self) ?? Element._ceFromAny(0)!
    }

    /// The average of the elements, nil for none (nil elements skipped).
    ///
    ///     let mean: Double? = person.luckyNumbers.average()
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        valuesAverage(managed, unmanaged, as: T.self)
    }
}

extension MutableSet where Element: OptionalProtocol, Element.Wrapped: MinMaxType {
    /// The smallest element (nil elements skipped) as the wrapped type, nil if there is none; as
    /// Realm's, a bare `let m = person.optionalScores.min()` is ambiguous between this and the optional form.
    ///
    ///     let lowest: Int? = person.optionalScores.min()    // MutableSet<Int?>
    public func min() -> Element.Wrapped? { valuesMin(managed, unmanaged, as: Element.self)?._rlmOptional }

    /// The largest element (nil elements skipped) as the wrapped type, nil if there is none.
    ///
    ///     let highest: Int? = person.optionalScores.max()
    public func max() -> Element.Wrapped? { valuesMax(managed, unmanaged, as: Element.self)?._rlmOptional }
}

extension MutableSet where Element: OptionalProtocol, Element.Wrapped: AddableType {
    /// The sum of the elements as the wrapped type (0 for none; nil elements skipped).
    ///
    ///     let total: Int = person.optionalScores.sum()
    public func sum() -> Element.Wrapped {
        let zero = Element._ceFromAny(0)!
        return (valuesSum(managed, unmanaged, as: Element.self) ?? zero)._rlmOptional ?? zero._rlmOptional!
    }
}

extension MutableSet {
    /// Whether the set belongs to a frozen Realm.
    ///
    ///     person.tags.freeze().isFrozen    // true
    public var isFrozen: Bool { managed?.core.frozen != nil }

    /// A frozen copy of the managed set, readable from any thread.
    ///
    ///     let frozenTags = person.tags.freeze()
    public func freeze() -> MutableSet {
        guard let managed else { throwRealmException("This method may only be called on RLMSet instances retrieved from an RLMRealm") }
        if managed.core.frozen != nil { return self }
        return MutableSet(managed: managed.frozen())
    }

    /// The live set, in the calling thread's Realm, of a frozen one; nil if its object was
    /// deleted. A live set returns itself.
    ///
    ///     let liveTags = frozenTags.thaw()
    public func thaw() -> MutableSet? {
        guard let managed, managed.core.frozen != nil else { return self }
        return managed.rebased(onto: managed.core.thawedCore()).map { MutableSet(managed: $0) }
    }
}

extension MutableSet: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { managed?.rebased(onto: core).map { MutableSet(managed: $0) } }
}
