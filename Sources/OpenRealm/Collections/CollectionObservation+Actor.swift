// CollectionObservation+Actor.swift — the actor forms of the collections' `observe` (Realm
// Swift's declarations) and `changes`, an AsyncSequence of their changes (OpenRealm's).

import Foundation

extension RealmCollection {
    /// Observes the collection with `block` isolated to `actor` (Realm's actor form of
    /// `observe`): the collection is resolved in the Realm of its file isolated to `actor`, and
    /// `block` gets `.initial`, then an `.update` after each commit that changed it, as
    /// `observe(keyPaths:on:_:)` describes, with the actor as its isolated parameter. The token
    /// may be used and invalidated from any actor. The collection must be managed, and the call
    /// is made where its Realm is usable.
    ///
    ///     let token = await realm.objects(Dog.self).observe(on: store) { store, change in
    ///         if case .update(let dogs, _, _, _) = change { store.count = dogs.count }
    ///     }
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken {
        let (reference, configuration) = prepareActorObservation(self)
        return await registerCollection(actor, reference, configuration, keyPaths, block)
    }

    /// The changes of the collection as an AsyncSequence (OpenRealm's; Realm Swift offers
    /// Combine publishers, which Linux lacks): `.initial`, then an `.update` after each commit
    /// that changed it, as `observe(keyPaths:on:_:)` delivers them. The observation is registered
    /// when `changes` is read, and ends when the iterating task is cancelled or the sequence is
    /// released. Read it and iterate where the collection's Realm is usable (its actor, queue or
    /// thread): the collections it yields are live.
    ///
    ///     for await change in realm.objects(Dog.self).changes {
    ///         if case .update(let dogs, let deletions, let insertions, _) = change { print(dogs.count, deletions, insertions) }
    ///     }
    public var changes: AsyncStream<RealmCollectionChange<Self>> {
        changes(keyPaths: nil)
    }

    /// The changes of the collection as an AsyncSequence, as `changes`, with the key paths of
    /// `observe(keyPaths:on:_:)`.
    ///
    ///     for await change in dogs.changes(keyPaths: ["name"]) { print(change) }
    public func changes(keyPaths: [String]?) -> AsyncStream<RealmCollectionChange<Self>> {
        changeStream { yield in observe(keyPaths: keyPaths, on: nil, yield) }
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The actor form of `observe` with Swift key paths of the collection's objects.
    ///
    ///     let token = await dogs.observe(keyPaths: [\Dog.name], on: store) { store, change in print(change) }
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: propertyPaths(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension Map {
    /// Observes the map with `block` isolated to `actor`, as `RealmCollection`'s actor form
    /// does: `.initial`, then an `.update` with the keys changed.
    ///
    ///     let token = await person.scores.observe(on: store) { store, change in print(change) }
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, RealmMapChange<Map>) -> Void) async -> NotificationToken {
        let (reference, configuration) = prepareActorObservation(self)
        return await registerMap(actor, reference, configuration, keyPaths, block)
    }

    /// The changes of the map as an AsyncSequence, as `RealmCollection.changes` describes.
    ///
    ///     for await change in person.scores.changes { print(change) }
    public var changes: AsyncStream<RealmMapChange<Map>> {
        changes(keyPaths: nil)
    }

    /// The changes of the map as an AsyncSequence, with the key paths of `observe`.
    ///
    ///     for await change in person.pets.changes(keyPaths: ["name"]) { print(change) }
    public func changes(keyPaths: [String]?) -> AsyncStream<RealmMapChange<Map>> {
        changeStream { yield in observe(keyPaths: keyPaths, on: nil, yield) }
    }
}

/// On the actor: registers `block` for the collection `reference` names.
private func registerCollection<A: Actor, C: RealmCollection>(
    _ actor: isolated A, _ reference: ThreadSafeReference<C>, _ configuration: Realm.Configuration, _ keyPaths: [String]?,
    _ block: @Sendable @escaping (isolated A, RealmCollectionChange<C>) -> Void
) -> NotificationToken {
    guard let collection = resolveOnActor(actor, reference, configuration) else { return NotificationToken() }
    return collection.observe(keyPaths: keyPaths, on: nil) { change in deliverIsolated(actor, block, change) }
}

/// On the actor: registers `block` for the map `reference` names.
private func registerMap<A: Actor, Key, Value>(
    _ actor: isolated A, _ reference: ThreadSafeReference<Map<Key, Value>>, _ configuration: Realm.Configuration,
    _ keyPaths: [String]?, _ block: @Sendable @escaping (isolated A, RealmMapChange<Map<Key, Value>>) -> Void
) -> NotificationToken {
    guard let map = resolveOnActor(actor, reference, configuration) else { return NotificationToken() }
    return map.observe(keyPaths: keyPaths, on: nil) { change in deliverIsolated(actor, block, change) }
}
