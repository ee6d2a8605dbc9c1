// ActorObservation.swift — what the actor forms of `observe` share (Realm's `with(_:on:)`): the
// observed value handed to the actor as a ThreadSafeReference, resolved in the actor's Realm of
// the same file, and registered there.

import Foundation

/// The first half of an observation on an actor, where the call is: checks that `value` is
/// managed and observable (Realm's messages), and makes the reference that goes to the actor,
/// with the configuration of its Realm.
func prepareActorObservation<Value: ThreadConfined>(_ value: Value) -> (ThreadSafeReference<Value>, Realm.Configuration) {
    guard let realm = value.realm else { fatalError("Change notifications are only supported for managed objects") }
    checkCanObserve(realm.core)
    return (ThreadSafeReference(to: value), realm.configuration)
}

/// The second half, on the actor: the value resolved in the Realm of `configuration` isolated
/// to `actor` (opened there if needed); nil if the task was cancelled or the value deleted (the
/// caller then returns a token registered nowhere).
func resolveOnActor<A: Actor, Value: ThreadConfined>(
    _ actor: isolated A, _ reference: ThreadSafeReference<Value>, _ configuration: Realm.Configuration
) -> Value? {
    if Task.isCancelled { return nil }
    let realm: Realm
    do {
        realm = Realm(try RealmCore.instance(for: configuration, actor: actor))
    } catch {
        // The file was open a moment ago with this configuration (Realm stops here too).
        throwRealmException(error.message)
    }
    return realm.resolve(reference)
}

/// Calls `block` with `change`, isolated to `actor`, from a notification of a Realm isolated to
/// it (delivered on the actor's executor).
func deliverIsolated<A: Actor, Change>(_ actor: A, _ block: @Sendable (isolated A, Change) -> Void, _ change: Change) {
    // The change is read where it was delivered: on the actor.
    nonisolated(unsafe) let change = change
    actor.assumeIsolated { actor in block(actor, change) }
}

/// An AsyncStream of the changes an `observe` registration delivers: `observe` registers with
/// the given block (on the Realm's context: the caller's thread, queue or actor), the stream
/// yields each change, and ends (invalidating the token) when the iterating task is cancelled
/// or the stream is released.
func changeStream<Change>(_ observe: (@escaping (Change) -> Void) -> NotificationToken) -> AsyncStream<Change> {
    let (stream, continuation) = AsyncStream.makeStream(of: Change.self, bufferingPolicy: .unbounded)
    let token = observe { change in
        // Delivered on the Realm's context, where the iteration that reads it must run (the
        // values are live, confined as the Realm is).
        nonisolated(unsafe) let delivered = change
        continuation.yield(delivered)
    }
    continuation.onTermination = { _ in token.invalidate() }
    return stream
}
