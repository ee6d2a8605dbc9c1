// ProjectionObservable+Actor.swift — the actor forms of a projection's `observe` (Realm Swift's
// declarations).

import Foundation

extension ProjectionObservable {
    /// Observes the projection with `block` isolated to `actor` (Realm's actor form of
    /// `observe`): the projection is resolved in the Realm of its file isolated to `actor`, and
    /// `block` gets `.change` or `.deleted` as `observe(keyPaths:on:_:)` describes, with the
    /// actor as its isolated parameter. The token may be used and invalidated from any actor.
    ///
    ///     let token = await projection.observe(keyPaths: ["lastName"], on: store) { store, change in print(change) }
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        let (reference, configuration) = prepareActorObservation(self)
        return await registerProjection(actor, reference, configuration, keyPaths, block)
    }

    /// The actor form of `observe` with Swift key paths of the projection.
    ///
    ///     let token = await projection.observe(keyPaths: [\PersonProjection.homeCity], on: store) { store, change in print(change) }
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: originPaths(of: keyPaths, in: self), on: actor, _isolation: _isolation, block)
    }
}

/// On the actor: registers `block` for the projection `reference` names.
private func registerProjection<A: Actor, P: ProjectionObservable>(
    _ actor: isolated A, _ reference: ThreadSafeReference<P>, _ configuration: Realm.Configuration,
    _ keyPaths: [String]?, _ block: @Sendable @escaping (isolated A, ObjectChange<P>) -> Void
) -> NotificationToken {
    guard let projection = resolveOnActor(actor, reference, configuration) else { return NotificationToken() }
    return projection.observe(keyPaths: keyPaths, on: nil) { (change: ObjectChange<P>) in deliverIsolated(actor, block, change) }
}
