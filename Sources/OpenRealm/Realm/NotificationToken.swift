// NotificationToken.swift — NotificationToken: a change notification registration.

import Foundation

/// A token of a change notification registration (Realm's `NotificationToken`). Notifications
/// are not built yet; the type exists for `write(withoutNotifying:_:)`.
///
///     token.invalidate()
public final class NotificationToken: @unchecked Sendable {
    /// A token that notifies nothing.
    public init() {}

    /// Stops the notifications of this token.
    public func invalidate() {}
}
