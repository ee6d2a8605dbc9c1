// RealmMapChange.swift — RealmMapChange: what a Map observer is told, as in Realm Swift.

import Foundation

/// What changed in an observed `Map`, as Realm's `RealmMapChange`: first `.initial` with the map,
/// delivered asynchronously after the observer is registered, then `.update` after each commit
/// that changed the map's keys or values, or an object one of its values links to (as the
/// observer's key paths see it). Changes are named by key, not position.
///
///     let token = person.scores.observe { change in
///         switch change {
///         case .initial(let scores):
///             print(scores.count)
///         case .update(let scores, let deletions, let insertions, let modifications):
///             print(deletions, insertions, modifications)    // keys: ["art"], ["math"], []
///         case .error(let error):
///             print(error)
///         }
///     }
@frozen public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The map as it is when the observer starts.
    ///
    ///     case .initial(let scores): print(scores.keys)
    case initial(Collection)

    /// A commit changed the map: the keys removed (`deletions`), added (`insertions`), and those
    /// whose value changed or whose object was modified (`modifications`).
    ///
    ///     case .update(_, let deletions, let insertions, let modifications):
    ///         print(deletions, insertions, modifications)
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])

    /// Delivered once, and nothing after, when the Realm of a notification queue (`on queue:`)
    /// cannot be opened.
    ///
    ///     case .error(let error): print(error)
    case error(Error)
}
