// ProjectedCollection.swift — ProjectedCollection: the values of one property of a list's or
// set's objects, for `@Projected(\Person.dogs.projectTo.name)`, as in Realm Swift.

import Foundation

/// The values of one key path of the objects of a list or set, in its order (Realm's
/// `ProjectedCollection`): what `@Projected(\Person.dogs.projectTo.name)` holds. Live: it reads
/// the collection at each access; setting a value writes the object's property.
///
///     projection.dogNames.count
///     projection.dogNames.first
///     try realm.write { projection.dogNames[0] = "Rex" }
public struct ProjectedCollection<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible, ThreadConfined {
    /// Positions are Ints.
    public typealias Index = Int

    private let size: () -> Int
    private let read: (Int) -> Element
    private let write: (Int, Element) -> Void
    private let source: any ThreadConfined
    private let frozen: () -> ProjectedCollection
    private let thawed: () -> ProjectedCollection?
    private let observeBacking: ([String]?, DispatchQueue?, @escaping (RealmCollectionChange<ProjectedCollection>) -> Void) -> NotificationToken

    init<C: RealmCollection & RandomAccessCollection, Root>(_ collection: C, _ keyPath: KeyPath<Root, Element>)
        where C.Element == Root, C.Index == Int, Root: ObjectBase
    {
        size = { collection.count }
        read = { collection[$0][keyPath: keyPath] }
        write = { index, value in
            guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Element> else {
                throwRealmException("Cannot set a value of ProjectedCollection<\(Element.self)>: its key path cannot be written.")
            }
            collection[index][keyPath: writable] = value
        }
        source = collection
        frozen = { ProjectedCollection(collection.freeze(), keyPath) }
        thawed = { collection.thaw().map { ProjectedCollection($0, keyPath) } }
        observeBacking = { keyPaths, queue, block in
            collection.observe(keyPaths: keyPaths, on: queue) { change in
                switch change {
                case .initial(let collection): block(.initial(ProjectedCollection(collection, keyPath)))
                case .update(let collection, let deletions, let insertions, let modifications):
                    block(.update(ProjectedCollection(collection, keyPath), deletions: deletions, insertions: insertions,
                                  modifications: modifications))
                case .error(let error): block(.error(error))
                }
            }
        }
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// The number of values.
    public var endIndex: Int { size() }

    /// The value at `position`; setting it writes the property of the object there (in a write
    /// transaction).
    ///
    ///     projection.dogNames[0]
    ///     try realm.write { projection.dogNames[0] = "Rex" }
    public subscript(position: Int) -> Element {
        get { read(position) }
        set { write(position, newValue) }
    }

    /// The position of the first value equal to `object`, or nil.
    ///
    ///     projection.dogNames.index(of: "Rex")
    public func index(of object: Element) -> Int? { firstIndex(of: object) }

    /// The Realm of the collection.
    public var realm: Realm? { source.realm }

    /// Whether the collection's object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { source.isInvalidated }

    /// Whether the collection is frozen.
    public var isFrozen: Bool { source.isFrozen }

    /// The values as Realm prints them.
    ///
    ///     print(projection.dogNames)   // ProjectedCollection<String> {\n\t[0] Rex\n}
    public var description: String {
        var description = "ProjectedCollection<\(Element.self)> {\n"
        for (index, value) in enumerated() { description += "\t[\(index)] \(value)\n" }
        return description + "}"
    }

    /// The values of the frozen collection.
    ///
    ///     let frozen = projection.dogNames.freeze()
    public func freeze() -> ProjectedCollection { frozen() }

    /// The values of the live collection of a frozen one; nil if its object was deleted.
    ///
    ///     let live = frozen.thaw()
    public func thaw() -> ProjectedCollection? { thawed() }

    /// Observes the collection of objects: `.initial`, then `.update` after each commit that
    /// changed it, as the list's or set's `observe` reports it. Keep the token.
    ///
    ///     let token = projection.dogNames.observe(on: nil) { change in print(change) }
    public func observe(on queue: DispatchQueue?,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        observeBacking(nil, queue, block)
    }

    /// Observes the collection of objects, their properties of `keyPaths` only (`["name"]`):
    /// `.initial`, then `.update` after each commit that changed it. Keep the token.
    ///
    ///     let token = projection.dogNames.observe(keyPaths: ["name"]) { change in print(change) }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        observeBacking(keyPaths, queue, block)
    }
}

extension List where Element: ObjectBase {
    /// The list's objects, to project one of their properties:
    /// `@Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>`.
    public var projectTo: CollectionElementMapper<Element> { CollectionElementMapper(self) }
}

extension MutableSet where Element: ObjectBase {
    /// The set's objects, to project one of their properties:
    /// `@Projected(\Person.friends.projectTo.name) var friendNames: ProjectedCollection<String>`.
    public var projectTo: CollectionElementMapper<Element> { CollectionElementMapper(self) }
}
