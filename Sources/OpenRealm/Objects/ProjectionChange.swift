// ProjectionChange.swift — ProjectionChange: what a projection observer is told, as in Realm
// Swift.

import Foundation

/// What happened to an observed projection's object (Realm's `ProjectionChange`): `.change`
/// with the projected properties that changed (named as the projection names them), or
/// `.deleted`.
///
///     case .change(let projection, let properties): print(projection.name, properties.map(\.name))
@frozen public enum ProjectionChange<T> {
    /// The Realm of a notification queue could not be opened.
    case error(_ error: NSError)

    /// Projected properties changed: the projection, and each property's change.
    case change(_: T, _: [PropertyChange])

    /// The object was deleted; no notification follows.
    case deleted
}
