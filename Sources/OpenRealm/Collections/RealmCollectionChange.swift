// RealmCollectionChange.swift — RealmCollectionChange: what a collection observer is told, as in
// Realm Swift.

import Foundation

/// What changed in an observed collection (`Results`, `List`, `MutableSet`, `LinkingObjects`,
/// `AnyRealmCollection`), as Realm's `RealmCollectionChange`: first `.initial` with the
/// collection, delivered asynchronously after the observer is registered, then `.update` after
/// each commit that changed which objects are in the collection or modified one of them (as the
/// observer's key paths see it).
///
/// The indices follow `UITableView`'s batch conventions: `deletions` and `modifications` are
/// positions in the collection as it was before the commit, `insertions` positions in the new
/// one; each array is sorted ascending. An element that moved is a deletion and an insertion.
///
///     let token = realm.objects(Dog.self).sorted(byKeyPath: "name").observe { change in
///         switch change {
///         case .initial(let dogs):
///             print("\(dogs.count) dogs")
///         case .update(let dogs, let deletions, let insertions, let modifications):
///             print(dogs.count, deletions, insertions, modifications)
///         case .error(let error):
///             print(error)
///         }
///     }
@frozen public enum RealmCollectionChange<CollectionType> {
    /// The collection as it is when the observer starts: evaluated, ready to read.
    ///
    ///     case .initial(let dogs): tableView.reloadData()
    case initial(CollectionType)

    /// A commit changed the collection: the positions, in the previous version, of the elements
    /// that left it (`deletions`) and of those that were modified (`modifications`), and the
    /// positions in the new version of those that entered it (`insertions`).
    ///
    ///     case .update(_, let deletions, let insertions, let modifications):
    ///         tableView.deleteRows(at: deletions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])

    /// Delivered once, and nothing after, when the Realm of a notification queue (`on queue:`)
    /// cannot be opened. (Realm keeps the case but no longer delivers it.)
    ///
    ///     case .error(let error): print(error)
    case error(Error)
}
