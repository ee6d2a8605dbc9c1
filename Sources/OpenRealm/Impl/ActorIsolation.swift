// ActorIsolation.swift — what an actor-isolated Realm needs from Swift concurrency: whether the
// caller runs isolated to an actor, and running a block isolated to one.
//
// Owns: the isolation check of an actor (the runtime's current-executor test) and scheduling a
// synchronous block on an actor.
// Never: touches a RealmCore (DeliveryContext and the blocks it schedules do).

import COpenRealmSupport


/// Whether the caller runs isolated to `actor` (on its executor), whatever thread that is: the
/// runtime's test behind `Actor.assumeIsolated`. Public Swift has no non-trapping form of it
/// (`preconditionIsolated` stops the program with Swift's message; a Realm stops with Realm's).
///
///     isIsolated(to: myActor)    // true in myActor's methods
@inline(__always)
func isIsolated(to actor: any Actor) -> Bool {
    // An UnownedSerialExecutor is the runtime's SerialExecutorRef: two words.
    let words = unsafeBitCast(actor.unownedExecutor, to: (UnsafeRawPointer?, UInt).self)
    return openrealm_is_current_executor(words.0, words.1)
}

/// Runs `body` isolated to `actor`: `runIsolated(on: actor) { ... }` from a task.
private func runIsolated(on actor: isolated any Actor, _ body: @Sendable () -> Void) {
    body()
}

/// Runs `body` later, isolated to `actor` (a new task that hops to it). Callable from any thread.
///
///     schedule(on: myActor) { print("isolated to myActor") }
func schedule(on actor: any Actor, _ body: @escaping @Sendable () -> Void) {
    Task { await runIsolated(on: actor, body) }
}
