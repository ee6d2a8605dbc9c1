// ThreadConfined.swift — ThreadConfined: what is confined to a thread unless frozen; and how
// OpenRealm's confined types move to another instance of their file.

import Foundation

// MARK: - Thread confinement

/// What is confined to a thread unless frozen: objects, results, lists, sets, maps and linking
/// objects (Realm's `ThreadConfined`). Pass one to another thread as a `ThreadSafeReference`, or
/// frozen. Only OpenRealm's types conform.
///
///     func send<T: ThreadConfined>(_ value: T) -> ThreadSafeReference<T> { ThreadSafeReference(to: value) }
public protocol ThreadConfined {
    /// The Realm the value belongs to; nil while unmanaged.
    ///
    ///     dog.realm?.isFrozen
    var realm: Realm? { get }
    /// Whether the value can no longer be used.
    ///
    ///     if dog.isInvalidated { return }
    var isInvalidated: Bool { get }
    /// Whether the value is frozen.
    ///
    ///     dog.freeze().isFrozen    // true
    var isFrozen: Bool { get }
    /// A frozen copy of the value.
    ///
    ///     let frozen = dogs.freeze()
    func freeze() -> Self
    /// The live value, in the calling thread's Realm, of a frozen one.
    ///
    ///     let live = frozenDogs.thaw()
    func thaw() -> Self?
}

/// How OpenRealm's thread-confined types move to another instance of their file.
protocol RealmMovable {
    /// The same value read in `core`; nil if what it is (an object, a collection's owner) does
    /// not exist there.
    func moved(to core: RealmCore) -> Any?
}
