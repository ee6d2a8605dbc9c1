// ObjectChange.swift — ObjectChange: what an object observer is told, as in Realm Swift.

import Foundation

/// What happened to an observed object (Realm's `ObjectChange`), delivered after each commit that
/// changed one of its properties (as the observer's key paths see it) or deleted it. There is no
/// initial notification.
///
///     let token = dog.observe { (change: ObjectChange<Dog>) in
///         switch change {
///         case .change(let dog, let properties):
///             print(dog.name, properties.map(\.name))    // "Rex" ["age"]
///         case .deleted:
///             print("deleted")
///         case .error(let error):
///             print(error)
///         }
///     }
@frozen public enum ObjectChange<T> {
    /// Delivered once, and nothing after, when the Realm of a notification queue (`on queue:`)
    /// cannot be opened (as in Realm).
    ///
    ///     case .error(let error): print(error.localizedDescription)
    case error(_ error: NSError)

    /// One or more properties of the object changed: the object, and each property's change.
    ///
    ///     case .change(let dog, let properties): print(dog.name, properties.count)
    case change(_: T, _: [PropertyChange])

    /// The object was deleted; no notification follows.
    ///
    ///     case .deleted: tableView.reloadData()
    case deleted
}
