// ProjectionObservable.swift — ProjectionObservable: what can observe a projection's object, as
// in Realm Swift.

import Foundation

/// A projection, observable through its object (Realm's `ProjectionObservable`; `Projection`
/// conforms).
///
///     let token = projection.observe(keyPaths: ["name"]) { change in print(change) }
public protocol ProjectionObservable: AnyObject {
    /// The class of the projected object.
    associatedtype Root: ObjectBase
    /// The projected object.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

extension ProjectionObservable {
    /// The projected properties: each name with the property path of the object it reads
    /// (`"dogName"`, `"dog.name"`), and the wrapper.
    private var projectedProperties: [(name: String, path: String)] {
        Mirror(reflecting: self).children.compactMap { child in
            guard let label = child.label, let projected = child.value as? _AnyProjected else { return nil }
            return (label.hasPrefix("_") ? String(label.dropFirst()) : label, projected._path(Root.self))
        }
    }

    /// Observes the projection: `.change` with the projected properties that changed after each
    /// commit that changed what they read, `.deleted` when the object is deleted. `keyPaths`
    /// are property paths of the object (`"name"`, `"dog.name"`), as in Realm; empty: every
    /// projected property. Keep the token.
    ///
    ///     let token = projection.observe(keyPaths: ["name"]) { change in
    ///         if case .change(let projection, let properties) = change { print(projection.rootObject, properties.map(\.name)) }
    ///     }
    public func observe(keyPaths: [String] = [], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ProjectionChange<Self>) -> Void) -> NotificationToken {
        let all = projectedProperties
        let chosen = keyPaths.isEmpty ? all : all.filter { keyPaths.contains($0.path) }
        let handler: (ObjectChange<Root>) -> Void = { change in
            switch change {
            case .error(let error): block(.error(error))
            case .deleted: block(.deleted)
            case .change(let root, let properties):
                let projection = Self(projecting: root)
                let changed = Set(properties.map(\.name))
                let named = chosen.filter { changed.contains(String($0.path.split(separator: ".")[0])) }.map { entry in
                    let own = properties.first { $0.name == entry.path }
                    let current = Mirror(reflecting: projection).children
                        .first { $0.label == "_" + entry.name }
                        .flatMap { ($0.value as? _AnyProjected)?._value(of: root) }
                    return PropertyChange(name: entry.name, oldValue: own?.oldValue, newValue: own?.newValue ?? current)
                }
                if !named.isEmpty { block(.change(projection, named)) }
            }
        }
        let paths = chosen.map(\.path)
        if let embedded = rootObject as? EmbeddedObject { return embedded.observe(keyPaths: paths, on: queue, handler) }
        guard let object = rootObject as? Object else { throwRealmException("Only managed objects support change notifications") }
        return object.observe(keyPaths: paths, on: queue, handler)
    }
}
