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

    /// The projected properties and their values, as Realm prints a projection.
    ///
    ///     print(projection)   // PersonProjection<Person> <0x...> { name = Ann; ... }
    open var description: String {
        var lines = ["\(type(of: self))<\(Root.self)> <\(Unmanaged.passUnretained(self).toOpaque())> {"]
        for child in Mirror(reflecting: self).children {
            guard let label = child.label, let projected = child.value as? _AnyProjected else { continue }
            let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
            lines.append("\t\(name) = \(projected._value(of: rootObject));")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// Two projections are equal when they project the same object.
    public static func == (lhs: Projection, rhs: Projection) -> Bool { lhs.rootObject == rhs.rootObject }

    /// Hashes the object.
    public func hash(into hasher: inout Hasher) { hasher.combine(rootObject) }
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
