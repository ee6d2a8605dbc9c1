// Projection.swift — Projection: a view of an object through some of its properties (and those
// of the objects it links to), as in Realm Swift.

import Foundation

/// A view of an object of `Root` through the properties its `@Projected` members name (Realm's
/// `Projection`): key paths of the object, through links, and `projectTo` of a list or set's
/// objects. Reads and writes go to the object, so a projection is as live as its object.
///
///     class PersonProjection: Projection<Person> {
///         @Projected(\Person.name) var name
///         @Projected(\Person.dog?.name) var dogName
///         @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
///     }
///     let people = realm.objects(PersonProjection.self)
///     people.first?.dogNames.first
open class Projection<Root: ObjectBase & RealmCollectionValue>: RealmCollectionValue, ThreadConfined, CustomStringConvertible, ProjectionObservable {
    /// The type a projection is stored as: its root object.
    public typealias PersistedType = Root
    /// The object the projection views.
    public let rootObject: Root

    /// A projection of `object`.
    ///
    ///     let projection = PersonProjection(projecting: person)
    public required init(projecting object: Root) {
        rootObject = object
        // As Realm: a @Projected key path that reads no persisted property stops here.
        _ = projectionSchema(of: self)
    }

    /// The Realm of the object; nil while it is unmanaged.
    public var realm: Realm? { rootObject.realm }

    /// Whether the object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// Whether the object is frozen.
    public var isFrozen: Bool { rootObject.isFrozen }

    /// A projection of the object frozen at its Realm's current version.
    ///
    ///     let frozen = projection.freeze()
    public func freeze() -> Self { Self(projecting: rootObject.freeze()) }

    /// A projection of the live object of a frozen one; nil if it was deleted.
    ///
    ///     let live = frozen.thaw()
    public func thaw() -> Self? { rootObject.thaw().map { Self(projecting: $0) } }

    /// The projected properties, each with the key path of the object it reads and its value,
    /// in Realm's format (the address is the object's; the first property is indented twice, as
    /// Realm prints it).
    ///
    ///     print(projection)   // PersonProjection<Person> <0x...> {\n\t\tname(\.name) = Ann;\n\tcity(\.address.city) = ...
    open var description: String {
        let properties = projectionSchema(of: self).map { property in
            "\t\(property.label)(\\.\(property.originPath)) = \(rootObject[keyPath: property.keyPath]!);"
        }
        return "\(type(of: self))<\(type(of: rootObject))> <\(Unmanaged.passUnretained(rootObject).toOpaque())> {\n\t"
            + properties.joined(separator: "\n") + "\n}"
    }

    /// Two projections are equal when they project the same object of the same Realm (as
    /// Realm compares them, whether or not the class has a primary key): a live and a frozen
    /// projection differ, two frozen at one version are equal.
    public static func == (lhs: Projection, rhs: Projection) -> Bool { lhs.rootObject.isSameObject(as: rhs.rootObject) }

    /// Hashes what `==` compares: the object's row, or the unmanaged instance.
    public func hash(into hasher: inout Hasher) {
        if let table = rootObject._table {
            hasher.combine(table.tableKey)
            hasher.combine(rootObject._key)
        } else {
            hasher.combine(ObjectIdentifier(rootObject))
        }
    }
}

extension Projection: RealmMovable {
    /// A projection of the object read in `core` (for ThreadSafeReference).
    func moved(to core: RealmCore) -> Any? { (rootObject.moved(to: core) as? Root).map { Self(projecting: $0) } }
}

/// How Results make a projection of each object they read.
protocol _ProjectionOfObject {
    static func _project(_ object: ObjectBase) -> Any
}

extension Projection: _ProjectionOfObject {
    static func _project(_ object: ObjectBase) -> Any {
        guard let root = object as? Root else { throwRealmException("Cannot project a '\(type(of: object))' as \(self).") }
        return Self(projecting: root)
    }
}

/// The element of a Results for the object `object`: the object, or a projection of it.
func resultsElement<Element>(_ object: ObjectBase, as type: Element.Type) -> Element {
    if let element = object as? Element { return element }
    guard let projection = Element.self as? any _ProjectionOfObject.Type else {
        throwRealmException("Cannot read a '\(Swift.type(of: object))' as \(Element.self).")
    }
    return projection._project(object) as! Element
}
