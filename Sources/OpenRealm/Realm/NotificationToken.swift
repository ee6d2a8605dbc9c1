// NotificationToken.swift — NotificationToken: a change notification registration.

import Foundation

/// The registration of a notification block (Realm's `NotificationToken`), returned by
/// `observe` on a Realm, a collection or an object. Keep it for as long as you want the
/// notifications: releasing the token, or calling `invalidate()`, stops them.
///
///     let token = realm.observe { notification, realm in
///         print("changed")
///     }
///     ...
///     token.invalidate()
///
/// Pass tokens to `write(withoutNotifying:_:)` or `commitWrite(withoutNotifying:)` to skip their
/// blocks for that one commit (the changes are still seen by later notifications' data).
public final class NotificationToken: @unchecked Sendable {
    // @unchecked Sendable: `registration` is guarded by `lock` (`invalidate()` may be called from
    // any thread); `core` is a constant whose only use off the Realm's context is reading its
    // constant delivery context to release it there.

    /// What the token registered: a block of `Realm.observe`, or an observer of the instance.
    enum Registration {
        case realm((Realm.Notification, Realm) -> Void)
        case observer(any RealmObserver)
    }

    private let lock = NSLock()
    private var registration: Registration?
    /// The Realm instance the token was registered on (kept alive by the token, as in Realm).
    let core: RealmCore?
    /// `write(withoutNotifying:)`: skip the Realm-level notification of the commit in progress.
    var skipNextRealmNotification = false

    /// A token that is registered nowhere (its `invalidate()` does nothing).
    public init() {
        core = nil
    }

    init(core: RealmCore, _ registration: Registration) {
        self.core = core
        self.registration = registration
    }

    deinit {
        // A token may be released anywhere; the instance and the registration (an observation
        // holds collections and queries of the instance) go away on the instance's context.
        guard let core, !core.context.isCurrent else { return }
        let box = UncheckedBox((core, registration))
        registration = nil
        core.context.schedule { withExtendedLifetime(box) {} }
    }

    /// Stops the notifications of this token. Idempotent; callable from any thread (a delivery
    /// already running on the Realm's thread may still call the block once).
    ///
    ///     token.invalidate()
    public func invalidate() {
        lock.lock()
        let released = registration
        registration = nil
        lock.unlock()
        // The block or observer goes away outside the lock, on the instance's context.
        guard let released, let core, !core.context.isCurrent else {
            withExtendedLifetime(released) {}
            return
        }
        let box = UncheckedBox(released)
        core.context.schedule { withExtendedLifetime(box) {} }
    }

    /// Whether the token still has its registration.
    var isValid: Bool {
        lock.lock()
        defer { lock.unlock() }
        return registration != nil
    }

    /// The observer registered, unless invalidated.
    var observer: (any RealmObserver)? {
        lock.lock()
        defer { lock.unlock() }
        if case .observer(let observer) = registration { return observer }
        return nil
    }

    /// The `Realm.observe` block registered, unless invalidated.
    var realmBlock: ((Realm.Notification, Realm) -> Void)? {
        lock.lock()
        defer { lock.unlock() }
        if case .realm(let block) = registration { return block }
        return nil
    }
}

/// A value sent to the context that owns it, to be used or released there only.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
