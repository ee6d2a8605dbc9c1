// ProjectedCollection.swift — ProjectedCollection and ElementMapper: the values of one property
// of a list's or set's objects, for `@Projected(\Person.dogs.projectTo.name)`, as in Realm
// Swift.

import Foundation

/// The values of one key path of the objects of a list or set, in its order (Realm's
/// `ProjectedCollection`): what `@Projected(\Person.dogs.projectTo.name)` holds. Live: it reads
/// the collection at each access.
///
///     projection.dogNames.count
///     projection.dogNames.first
public struct ProjectedCollection<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible, ThreadConfined {
    private let size: () -> Int
    private let read: (Int) -> Element
    private let source: any ThreadConfined
    private let rebuild: (any ThreadConfined) -> ProjectedCollection

    init<C: RandomAccessCollection & ThreadConfined, Root>(_ collection: C, _ keyPath: KeyPath<Root, Element>)
        where C.Element == Root, C.Index == Int
    {
        size = { collection.count }
        read = { collection[$0][keyPath: keyPath] }
        source = collection
        rebuild = { ProjectedCollection($0 as! C, keyPath) }
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// The number of values.
    public var endIndex: Int { size() }

    /// The value at `position`.
    ///
    ///     projection.dogNames[0]
    public subscript(position: Int) -> Element { read(position) }

    /// The position of the first value equal to `element`, or nil.
    ///
    ///     projection.dogNames.index(of: "Rex")
    public func index(of element: Element) -> Int? { firstIndex(of: element) }

    /// The Realm of the collection.
    public var realm: Realm? { source.realm }

    /// Whether the collection's object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { source.isInvalidated }

    /// Whether the collection is frozen.
    public var isFrozen: Bool { source.isFrozen }

    /// The values as Realm prints a collection.
    public var description: String { "ProjectedCollection<\(Element.self)> (\n" + map { "\t\($0)" }.joined(separator: ",\n") + "\n)" }

    /// The values of the frozen collection.
    ///
    ///     let frozen = projection.dogNames.freeze()
    public func freeze() -> ProjectedCollection { rebuild(source.freeze()) }

    /// The values of the live collection of a frozen one; nil if its object was deleted.
    ///
    ///     let live = frozen.thaw()
    public func thaw() -> ProjectedCollection? { source.thaw().map(rebuild) }
}

/// The objects of a list or set, whose members (key paths of the objects) make a
/// `ProjectedCollection` (Realm's `ElementMapper`): `\Person.dogs.projectTo.name`.
@dynamicMemberLookup
public struct ElementMapper<Element: ObjectBase & RealmCollectionValue> {
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

extension List where Element: ObjectBase {
    /// The list's objects, to project one of their properties:
    /// `@Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>`.
    public var projectTo: ElementMapper<Element> { ElementMapper(self) }
}

extension MutableSet where Element: ObjectBase {
    /// The set's objects, to project one of their properties:
    /// `@Projected(\Person.friends.projectTo.name) var friendNames: ProjectedCollection<String>`.
    public var projectTo: ElementMapper<Element> { ElementMapper(self) }
}
