// PropertyChange.swift — PropertyChange: one changed property in an object notification, as in
// Realm Swift.

import Foundation

/// One property that changed, in an `ObjectChange.change` (Realm's `PropertyChange`).
///
/// `newValue` is the property's value after the change and `oldValue` its value before, filled
/// as Realm fills them:
/// - `oldValue` is nil when the change was committed by the observed object's own Realm
///   instance (a write on the same thread or queue): Realm never reads the old version again
///   once it wrote the new one. A change committed elsewhere (another thread, queue or process)
///   comes with its old value.
/// - For a `List`, `MutableSet` or `Map` property both are nil (Realm documents nil for `List`;
///   OpenRealm gives every collection the same).
/// - For a link, the values are the objects linked before and after, read with their current
///   values: an old object may be deleted (check `isInvalidated`).
/// - A property named because an object it links to changed (the observer's key paths go
///   through it, or none were given) has the same object as old and new value, or nil values for
///   a collection.
///
///     case .change(let dog, let properties):
///         for property in properties {
///             print(property.name, property.oldValue ?? "nil", property.newValue ?? "nil")
///         }
@frozen public struct PropertyChange {
    /// The name of the property that changed.
    ///
    ///     property.name == "age"
    public let name: String

    /// The value before the change; nil when the observed object's own Realm committed the
    /// change, and for collection properties (and for a nil value).
    ///
    ///     property.oldValue as? Int    // 3
    public let oldValue: Any?

    /// The value after the change; nil for collection properties (and for a nil value).
    ///
    ///     property.newValue as? Int    // 4
    public let newValue: Any?
}
