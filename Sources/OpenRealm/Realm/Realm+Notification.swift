// Realm+Notification.swift — Realm-level notifications: Realm.Notification and Realm.observe.

import Foundation

extension Realm {
    /// A notification that a Realm changed (Realm's `Realm.Notification`), given to the blocks of
    /// `observe(_:)`.
    ///
    ///     let token = realm.observe { notification, realm in
    ///         switch notification {
    ///         case .didChange: print("now at the latest version")
    ///         case .refreshRequired: realm.refresh()
    ///         }
    ///     }
    @frozen public enum Notification: String, Sendable {
        /// The Realm's data changed: it was refreshed to a new version (by `autorefresh`,
        /// `refresh()`, or the refresh that `write`/`beginWrite()` does first), or a write
        /// transaction of this Realm instance was committed.
        case didChange = "RLMRealmDidChangeNotification"

        /// Another thread or process committed a write transaction while `autorefresh` is false:
        /// call `refresh()` to see it. Not posted when `autorefresh` is true, nor when the Realm
        /// was refreshed before the notification could run. A Realm that stays at an old
        /// version keeps it in the file, which then grows.
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// Registers `block` to be called after each write transaction committed to this Realm's
    /// file, by this or another thread or process, and returns the token that keeps the
    /// registration (releasing it or calling `invalidate()` ends it). The block gets
    /// `.didChange`, or `.refreshRequired` when `autorefresh` is false; it receives no detail of
    /// the change (observe a collection or an object for that).
    ///
    /// Where and when blocks run:
    /// - on the Realm's serial queue, for a Realm opened with `Realm(configuration:queue:)`;
    /// - on the main queue, for a Realm of the main thread (`RunLoop.main` or `dispatchMain()`
    ///   runs them);
    /// - on the thread's run loop, for a Realm of another thread, when the thread runs it
    ///   (`RunLoop.current.run()`). A thread that never runs its run loop gets them when it calls
    ///   `refresh()`, `beginWrite()` or `write` (Realm refuses to register on such a thread;
    ///   OpenRealm delivers there instead). Never on another thread.
    /// - A commit of this Realm instance calls the blocks before `commitWrite()` returns.
    ///
    /// While the queue or run loop is busy, several commits may arrive as one notification.
    /// On a frozen or read-only Realm, registering stops with Realm's message.
    ///
    ///     let token = realm.observe { notification, realm in
    ///         print(realm.objects(Dog.self).count)
    ///     }
    ///     try realm.write { realm.add(Dog()) }    // prints 1 before `write` returns
    ///     token.invalidate()
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        core.addRealmBlock(block)
    }
}

/// The block type of `Realm.observe(_:)`: the notification and the Realm it is about.
public typealias NotificationBlock = (_ notification: Realm.Notification, _ realm: Realm) -> Void
