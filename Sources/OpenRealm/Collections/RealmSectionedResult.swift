// RealmSectionedResult.swift — RealmSectionedResult: what SectionedResults and ResultsSection
// share, as in Realm Swift.

import Foundation

/// What `SectionedResults` and `ResultsSection` share (Realm's `RealmSectionedResult`): a live,
/// thread-confined, observable collection.
///
///     func total<S: RealmSectionedResult>(_ sectioned: S) -> Int { sectioned.count }
public protocol RealmSectionedResult: RandomAccessCollection, Equatable, ThreadConfined where Index == Int {
    /// The Realm of the collection.
    ///
    ///     sections.realm == realm
    var realm: Realm? { get }

    /// Whether the collection can no longer be used (its Realm was invalidated).
    ///
    ///     if sections.isInvalidated { return }
    var isInvalidated: Bool { get }

    /// The number of elements (sections of a SectionedResults, objects of a section).
    ///
    ///     sections.count
    var count: Int { get }

    /// Whether the collection is frozen.
    ///
    ///     sections.freeze().isFrozen    // true
    var isFrozen: Bool { get }

    /// A frozen copy, readable from any thread.
    ///
    ///     let frozen = sections.freeze()
    func freeze() -> Self

    /// The live collection of a frozen one, in the calling thread's Realm.
    ///
    ///     let live = frozen.thaw()
    func thaw() -> Self?

    /// Observes the collection: `.initial`, then `.update` with the index paths deleted,
    /// inserted and modified and the sections inserted and deleted after each commit that
    /// changed it. Keep the token.
    ///
    ///     let token = sections.observe(keyPaths: nil, on: nil) { change in print(change) }
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken
}

extension RealmSectionedResult {
    /// Observes the collection, every property (or those of `keyPaths`), on the Realm's thread
    /// (or `queue`).
    ///
    ///     let token = sections.observe { change in
    ///         if case .update(_, let deletions, let insertions, _, let newSections, _) = change { print(deletions, insertions, newSections) }
    ///     }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension RealmSectionedResult where Element: RealmSectionedResult, Element.Element: ObjectBase {
    /// Observes the sections, the properties of `keyPaths` (Swift key paths of the objects)
    /// only, on the Realm's thread (or `queue`).
    ///
    ///     let token = sections.observe(keyPaths: [\Dog.name]) { change in print(change) }
    public func observe(keyPaths: [PartialKeyPath<Element.Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: propertyPaths(keyPaths), on: queue, block)
    }
}

extension RealmSectionedResult where Element: ObjectBase {
    /// Observes the section, the properties of `keyPaths` (Swift key paths of the objects)
    /// only, on the Realm's thread (or `queue`).
    ///
    ///     let token = sections[0].observe(keyPaths: [\Dog.name]) { change in print(change) }
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: propertyPaths(keyPaths), on: queue, block)
    }
}

// MARK: - Actors

extension RealmSectionedResult {
    /// Observes the sections (or the section) with `block` isolated to `actor` (Realm's actor
    /// form of `observe`): resolved in the Realm of its file isolated to `actor`, `block` gets
    /// `.initial`, then an `.update` after each commit that changed it, with the actor as its
    /// isolated parameter. The token may be used and invalidated from any actor.
    ///
    ///     let token = await sections.observe(on: store) { store, change in print(change) }
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, SectionedResultsChange<Self>) -> Void) async -> NotificationToken {
        let (reference, configuration) = prepareActorObservation(self)
        return await registerSections(actor, reference, configuration, keyPaths, block)
    }
}

extension RealmSectionedResult where Element: RealmSectionedResult, Element.Element: ObjectBase {
    /// The actor form of `observe` with Swift key paths of the objects.
    ///
    ///     let token = await sections.observe(keyPaths: [\Dog.name], on: store) { store, change in print(change) }
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element.Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, SectionedResultsChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: propertyPaths(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension RealmSectionedResult where Element: ObjectBase {
    /// The actor form of a section's `observe` with Swift key paths of the objects.
    ///
    ///     let token = await sections[0].observe(keyPaths: [\Dog.name], on: store) { store, change in print(change) }
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, SectionedResultsChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: propertyPaths(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

/// On the actor: registers `block` for the sections `reference` names.
private func registerSections<A: Actor, S: RealmSectionedResult>(
    _ actor: isolated A, _ reference: ThreadSafeReference<S>, _ configuration: Realm.Configuration,
    _ keyPaths: [String]?, _ block: @Sendable @escaping (isolated A, SectionedResultsChange<S>) -> Void
) -> NotificationToken {
    guard let sections = resolveOnActor(actor, reference, configuration) else { return NotificationToken() }
    return sections.observe(keyPaths: keyPaths, on: nil) { (change: SectionedResultsChange<S>) in deliverIsolated(actor, block, change) }
}
