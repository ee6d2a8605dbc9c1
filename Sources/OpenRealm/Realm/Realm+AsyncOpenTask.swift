// Realm+AsyncOpenTask.swift — Realm.AsyncOpenTask: the handle of a `Realm.asyncOpen`, which
// cancels it, as in Realm Swift.

import Synchronization

extension Realm {
    /// A task opening a Realm asynchronously (`Realm.asyncOpen(configuration:callbackQueue:callback:)`),
    /// which can cancel it (Realm's `AsyncOpenTask`).
    ///
    ///     let task = Realm.asyncOpen(configuration: configuration) { result in ... }
    ///     task.cancel()     // the callback is not called
    public struct AsyncOpenTask: Sendable {
        let state: State

        /// What the opening thread and `cancel()` share.
        final class State: Sendable {
            let cancelled = Atomic<Bool>(false)
        }

        init() { state = State() }

        /// Cancels the asynchronous open: the callback will not be called. (The file may still be
        /// opened and migrated in the background; the Realm is then released unused.)
        ///
        ///     task.cancel()
        public func cancel() {
            state.cancelled.store(true, ordering: .releasing)
        }
    }
}
