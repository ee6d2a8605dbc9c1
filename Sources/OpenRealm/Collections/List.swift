// List.swift — List: an ordered collection of values or objects, as in Realm Swift.

import Foundation

// MARK: - List

/// An ordered collection of values or objects: a `@Persisted` property of a model class, as
/// Realm's `List`. Unmanaged, it is an array; managed, each call reads or writes the database.
///
///     class Person: Object {
///         @Persisted var dogs: List<Dog>
///         @Persisted var nicknames: List<String>
///     }
///     try realm.write {
///         person.nicknames.append("Ada")
///         person.dogs.append(Dog(value: ["name": "Rex"]))   // the dog is added to the Realm
///         person.nicknames.move(from: 0, to: 1)
///     }
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection,
    CustomStringConvertible, Hashable
{
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

    /// An empty unmanaged list.
    ///
    ///     let tags = List<String>()
    public init() {
        unmanaged = []
        managed = nil
    }

    init(managed: ManagedCollection) {
        unmanaged = []
        self.managed = managed
    }

    /// The Realm of a managed list; nil for an unmanaged one.
    public var realm: Realm? { managed?.realm }

    /// Whether the list's object was deleted or its Realm invalidated.
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

    /// The element at `position`; setting it replaces that element (in a write transaction when
    /// managed). An index past the end is a programmer error.
    ///
    ///     person.nicknames[0] = "Countess"
    public subscript(position: Int) -> Element {
        get {
            if let managed { return managed.element(managed.get(position), at: .index(position), as: Element.self) }
            guard position >= 0, position < unmanaged.count else { indexFailure(position, unmanaged.count) }
            return unmanaged[position]
        }
        set { replace(index: position, object: newValue) }
    }

    /// The position of the first element equal to `object`, or nil. A value of a
    /// `CustomPersistable` type stored as an embedded object is found by its value (its embedded
    /// object is a new one each time, not one the list holds).
    ///
    ///     person.nicknames.index(of: "Ada")    // 0
    public func index(of object: Element) -> Int? {
        guard let managed else { return unmanaged.firstIndex(of: object) }
        if let linked = object as Any as? ObjectBase {
            if !linked.isManaged(by: managed.core) { return nil }
        } else if isEmbedded(Element.self) {
            return indices.first { self[$0] == object }
        }
        return managed.find(object)
    }

    /// Appends an element. An unmanaged object appended to a managed list is added to the Realm.
    ///
    ///     person.nicknames.append("Ada")
    public func append(_ object: Element) {
        insert(object, at: managed?.count ?? unmanaged.count)
    }

    /// Appends every element of a sequence.
    ///
    ///     person.nicknames.append(objectsIn: ["Ada", "Countess"])
    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for object in objects { append(object) }
    }

    /// Inserts an element at `index` (0...count).
    ///
    ///     person.nicknames.insert("First", at: 0)
    public func insert(_ object: Element, at index: Int) {
        guard let managed else {
            guard index >= 0, index <= unmanaged.count else { indexFailure(index, unmanaged.count + 1) }
            unmanaged.insert(object, at: index)
            return
        }
        let list = managed.write()
        if isEmbedded(Element.self) {
            let key = managed.listInsertEmbedded(list, at: index)
            fillEmbedded(managed.core, object, key)
            return
        }
        let contents = nestedContents(object)
        managed.listInsert(list, object, at: index)
        contents?(ManagedCollection(parent: managed, at: .index(index)))
    }

    /// Replaces the element at `index`.
    ///
    ///     person.nicknames.replace(index: 0, object: "Ada")
    public func replace(index: Int, object: Element) {
        guard let managed else {
            guard index >= 0, index < unmanaged.count else { indexFailure(index, unmanaged.count) }
            unmanaged[index] = object
            return
        }
        let list = managed.write()
        if isEmbedded(Element.self) {
            let key = managed.listSetEmbedded(list, at: index)
            fillEmbedded(managed.core, object, key)
            return
        }
        let contents = nestedContents(object)
        managed.listSet(list, object, at: index)
        contents?(ManagedCollection(parent: managed, at: .index(index)))
    }

    /// Removes the element at `index` (an embedded object is deleted; an object stays in the
    /// Realm).
    ///
    ///     person.nicknames.remove(at: 0)
    public func remove(at index: Int) {
        guard let managed else {
            guard index >= 0, index < unmanaged.count else { indexFailure(index, unmanaged.count) }
            unmanaged.remove(at: index)
            return
        }
        managed.listErase(at: index)
    }

    /// Removes the first element.
    public func removeFirst() {
        guard count > 0 else { throwRealmException("It is not possible to remove an object from an empty list.") }
        remove(at: 0)
    }

    /// Removes the last element.
    public func removeLast() {
        let count = self.count
        guard count > 0 else { throwRealmException("It is not possible to remove an object from an empty list.") }
        remove(at: count - 1)
    }

    /// Removes every element.
    ///
    ///     person.nicknames.removeAll()
    public func removeAll() {
        guard let managed else {
            unmanaged.removeAll()
            return
        }
        managed.clear()
    }

    /// Moves the element at `from` so that it ends up at `to`.
    ///
    ///     list.move(from: 0, to: 2)    // [a, b, c] -> [b, c, a]
    public func move(from: Int, to: Int) {
        if from < 0 { indexFailure(from, count, parameter: "from") }
        if to < 0 { indexFailure(to, count, parameter: "to") }
        guard let managed else {
            guard from >= 0, from < unmanaged.count else { indexFailure(from, unmanaged.count) }
            guard to >= 0, to < unmanaged.count else { indexFailure(to, unmanaged.count) }
            let element = unmanaged.remove(at: from)
            unmanaged.insert(element, at: to)
            return
        }
        managed.listMove(from: from, to: to)
    }

    /// Exchanges the elements at two positions.
    ///
    ///     list.swapAt(0, 1)
    public func swapAt(_ index1: Int, _ index2: Int) {
        if index1 < 0 { indexFailure(index1, count, parameter: "index1") }
        if index2 < 0 { indexFailure(index2, count, parameter: "index2") }
        guard let managed else {
            guard index1 >= 0, index1 < unmanaged.count else { indexFailure(index1, unmanaged.count) }
            guard index2 >= 0, index2 < unmanaged.count else { indexFailure(index2, unmanaged.count) }
            unmanaged.swapAt(index1, index2)
            return
        }
        managed.listSwap(index1, index2)
    }

    /// Realm's form: `List<string> <0x...> (\n\t[0] Ada\n)`.
    public var description: String { realmDescription(depth: realmDescriptionMaxDepth) }

    /// As Realm's `isEqual`: two unmanaged lists are equal when they hold equal elements in the
    /// same order; two managed lists when they are the same list (of the same object) of the same
    /// Realm instance; a managed and an unmanaged list never.
    ///
    ///     List<Int>() == List<Int>()          // true
    ///     person.nicknames == person.nicknames // true
    public static func == (lhs: List, rhs: List) -> Bool {
        switch (lhs.managed, rhs.managed) {
        case (nil, nil): lhs.unmanaged == rhs.unmanaged
        case let (left?, right?): left.isSameCollection(as: right)
        default: false
        }
    }

    /// Whether `object` is a list equal to this one (see `==`), as Realm's `NSObject.isEqual(_:)`.
    ///
    ///     list1.isEqual(list2)
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? List else { return false }
        return self == other
    }

    /// Hashes what `==` compares: a managed list's identity, an unmanaged list's count.
    public func hash(into hasher: inout Hasher) {
        if let managed { managed.hashIdentity(into: &hasher) } else { hasher.combine(unmanaged.count) }
    }
}

extension List {
    /// A live `Results` of the list's objects in its order (see `RealmCollectionBase`).
    ///
    ///     person.dogs._resultsView().count
    public func _resultsView() -> Results<Element> { objectsView(managed, "List") }
}

extension List where Element: MinMaxType {
    /// The smallest element (nil elements skipped), nil if there is none.
    ///
    ///     person.scores.min()    // List<Int>
    public func min() -> Element? { valuesMin(managed, unmanaged, as: Element.self) }

    /// The largest element (nil elements skipped), nil if there is none.
    ///
    ///     person.scores.max()
    public func max() -> Element? { valuesMax(managed, unmanaged, as: Element.self) }
}

extension List where Element: AddableType {
    /// The sum of the elements (0 for none; nil elements skipped).
    ///
    ///     let total = person.scores.sum()
    public func sum() -> Element {
        valuesSum(managed, unmanaged, as: Element.self) ?? Element._ceFromAny(0)!
    }

    /// The average of the elements, nil for none (nil elements skipped).
    ///
    ///     let mean: Double? = person.scores.average()
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        valuesAverage(managed, unmanaged, as: T.self)
    }
}

extension List where Element: OptionalProtocol, Element.Wrapped: MinMaxType {
    /// The smallest element (nil elements skipped) as the wrapped type, nil if there is none; as
    /// Realm's, a bare `let m = person.optionalScores.min()` is ambiguous between this and the optional form.
    ///
    ///     let lowest: Int? = person.optionalScores.min()    // List<Int?>
    public func min() -> Element.Wrapped? { valuesMin(managed, unmanaged, as: Element.self)?._rlmOptional }

    /// The largest element (nil elements skipped) as the wrapped type, nil if there is none.
    ///
    ///     let highest: Int? = person.optionalScores.max()
    public func max() -> Element.Wrapped? { valuesMax(managed, unmanaged, as: Element.self)?._rlmOptional }
}

extension List where Element: OptionalProtocol, Element.Wrapped: AddableType {
    /// The sum of the elements as the wrapped type (0 for none; nil elements skipped).
    ///
    ///     let total: Int = person.optionalScores.sum()
    public func sum() -> Element.Wrapped {
        let zero = Element._ceFromAny(0)!
        return (valuesSum(managed, unmanaged, as: Element.self) ?? zero)._rlmOptional ?? zero._rlmOptional!
    }
}

extension List {
    /// Whether the list belongs to a frozen Realm.
    ///
    ///     person.dogs.freeze().isFrozen    // true
    public var isFrozen: Bool { managed?.core.frozen != nil }

    /// A frozen copy of the managed list: its elements at the Realm's current version, readable
    /// from any thread. Unmanaged lists cannot be frozen (Realm's message).
    ///
    ///     let frozenDogs = person.dogs.freeze()
    public func freeze() -> List {
        guard let managed else { throwRealmException("This method may only be called on RLMArray instances retrieved from an RLMRealm") }
        if managed.core.frozen != nil { return self }
        return List(managed: managed.frozen())
    }

    /// The live list, in the calling thread's Realm, of a frozen one; nil if its object was
    /// deleted. A live list returns itself.
    ///
    ///     let liveDogs = frozenDogs.thaw()
    public func thaw() -> List? {
        guard let managed, managed.core.frozen != nil else { return self }
        return managed.rebased(onto: managed.core.thawedCore()).map { List(managed: $0) }
    }
}

extension List: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { managed?.rebased(onto: core).map { List(managed: $0) } }
}
