// ProjectionSchema.swift — the projected properties of a Projection class: each @Projected
// member's name, the key path of the object it reads and that key path's property path, found
// once per class (as Realm Swift's projection schema).

import Foundation
import Synchronization

/// One `@Projected` member of a projection class.
struct ProjectionProperty: @unchecked Sendable {
    /// The member's name (`lastNameCaps`).
    let label: String
    /// The key path of the object the member reads (`\Person.lastName.localizedUppercase`).
    let keyPath: AnyKeyPath
    /// The property path of the object that key path reads (`lastName`, `address.city`).
    let originPath: String
}

/// The projected properties of each projection class already read.
private let projectionSchemas = Mutex<[ObjectIdentifier: [ProjectionProperty]]>([:])

/// The projected properties of `projection`'s class, in declaration order (a superclass's
/// first). A `@Projected` key path that reads no persisted property stops with Realm's message.
func projectionSchema(of projection: AnyObject) -> [ProjectionProperty] {
    let id = ObjectIdentifier(type(of: projection))
    if let known = projectionSchemas.withLock({ $0[id] }) { return known }
    var mirrors: [Mirror] = []
    var mirror: Mirror? = Mirror(reflecting: projection)
    while let current = mirror {
        mirrors.insert(current, at: 0)
        mirror = current.superclassMirror
    }
    var properties: [ProjectionProperty] = []
    for child in mirrors.flatMap(\.children) {
        guard let label = child.label, let projected = child.value as? _AnyProjected else { continue }
        let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
        let names = projected._recordedNames()
        guard !names.isEmpty else { throwRealmException("@Projected property '\(name)' must be a part of Realm object") }
        properties.append(ProjectionProperty(label: name, keyPath: projected._keyPath, originPath: names.joined(separator: ".")))
    }
    projectionSchemas.withLock { $0[id] = properties }
    return properties
}

/// The property paths of the object that key paths of a projection read; nil for no key paths
/// (every projected property).
func originPaths<P: ProjectionObservable>(of keyPaths: [PartialKeyPath<P>], in projection: P) -> [String]? {
    guard !keyPaths.isEmpty else { return nil }
    _ = projectionSchema(of: projection)   // known before a recording projection is made
    return keyPaths.map(originPath(of:))
}

/// The property path of the object that a key path of a projection reads, as Realm names it
/// (`\PersonProjection.homeCity` is `address.city`, `\PersonProjection.lastNameCaps` is
/// `lastName`): the key path read on a projection of a recording object.
func originPath<P: ProjectionObservable>(of keyPath: PartialKeyPath<P>) -> String {
    let recorder = KeyPathRecorder()
    let recording = P(projecting: recorder.instance(of: P.Root.self) as! P.Root)
    withExtendedLifetime(recording) { _ = $0[keyPath: keyPath] }
    return recorder.names.joined(separator: ".")
}
