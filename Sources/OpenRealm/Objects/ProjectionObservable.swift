// ProjectionObservable.swift — ProjectionObservable: what can observe a projection's object, as
// in Realm Swift.

import Foundation

/// A projection, observable through its object (Realm's `ProjectionObservable`; `Projection`
/// conforms).
///
///     let token = projection.observe(keyPaths: ["name"]) { change in print(change) }
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the projected object.
    associatedtype Root: ObjectBase
    /// The projected object.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

extension ProjectionObservable {
    /// Observes the projection: after each commit that changed a projected property of the
    /// object, `.change` with a `PropertyChange` for each projected property whose object
    /// property (the first name of its key path) changed, named as the projection names it, its
    /// values read through the projected key path (the old value when the commit came from
    /// another thread); `.deleted` when the object is deleted. `keyPaths` are property paths of
    /// the object (`"lastName"`, `"address.city"`), as in Realm; nil or empty: every projected
    /// property. No initial notification. Keep the token.
    ///
    ///     let token = projection.observe(keyPaths: ["lastName"]) { change in
    ///         if case .change(let projection, let properties) = change { print(projection.rootObject, properties.map(\.name)) }
    ///     }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        let schema = projectionSchema(of: self)
        let filter = keyPaths?.isEmpty == false ? keyPaths : nil
        let paths = schema.map(\.originPath).filter { filter?.contains($0) ?? true }
        // Without a queue the projection delivered is this one, as in Realm.
        let same: Self? = queue == nil ? self : nil
        let handler: (ObjectChange<Root>) -> Void = { change in
            switch change {
            case .error(let error): block(.error(error))
            case .deleted: block(.deleted)
            case .change(let root, let properties):
                let changes = projectedChanges(root, properties, schema, filter)
                if !changes.isEmpty { block(.change(same ?? Self(projecting: root), changes)) }
            }
        }
        if let object = rootObject as? Object { return object.observe(keyPaths: paths, on: queue, handler) }
        if let embedded = rootObject as? EmbeddedObject { return embedded.observe(keyPaths: paths, on: queue, handler) }
        throwRealmException("Only objects which are managed by a Realm support change notifications")
    }

    /// Observes the projection through Swift key paths of the projection
    /// (`[\PersonProjection.lastNameCaps]` observes the object's `lastName`); empty: every
    /// projected property.
    ///
    ///     let token = projection.observe(keyPaths: [\PersonProjection.homeCity]) { change in print(change) }
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: originPaths(of: keyPaths, in: self), on: queue, block)
    }
}

/// The projection's changes for the object's `properties` (as Realm builds them): for each
/// changed property, a change of each projected property whose path starts with it (and is in
/// `keyPaths`), its old value read on an unmanaged object holding the old values (when the
/// change has them), its new value on the object.
private func projectedChanges<Root: ObjectBase>(_ root: Root, _ properties: [PropertyChange],
                                                _ schema: [ProjectionProperty], _ keyPaths: [String]?) -> [PropertyChange] {
    var oldRoot: Root?
    if properties.contains(where: { $0.oldValue != nil }) {
        let old = Root()
        for property in properties {
            if let value = property.oldValue { old.setValue(value, forKey: property.name) }
        }
        oldRoot = old
    }
    var changes: [PropertyChange] = []
    for property in properties {
        for projected in schema where projected.originPath.split(separator: ".").first.map(String.init) == property.name
            && keyPaths?.contains(projected.originPath) ?? true {
            changes.append(PropertyChange(name: projected.label, oldValue: oldRoot.flatMap { $0[keyPath: projected.keyPath] },
                                          newValue: root[keyPath: projected.keyPath]))
        }
    }
    return changes
}
