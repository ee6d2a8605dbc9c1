// ObjectObservation.swift — `observe` on Object and EmbeddedObject: Realm Swift's signatures
// (key paths as strings or Swift key paths, an optional queue), with ObjectObserver behind them.

import Dispatch
import Foundation

/// Registers an ObjectObserver for `object` on its Realm, or with `queue`, for the object as the
/// queue's Realm reads it.
private func observeObject<T: ObjectBase>(_ object: ObjectBase, keyPaths: [String]?, on queue: DispatchQueue?,
                                          _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
    guard let core = object._core, object._table != nil else {
        throwRealmException("Only objects which are managed by a Realm support change notifications")
    }
    checkCanObserve(core)
    guard let typed = object as? T else {
        throwRealmException("Cannot observe an object of type '\(type(of: object))' as '\(T.self)'.")
    }
    guard let queue else { return core.addObserver(ObjectObserver(typed, core, keyPaths: keyPaths, block)) }
    // Checked now, where the call is (unknown key paths, a deleted object).
    _ = ObjectObserver(typed, core, keyPaths: keyPaths, block)
    let objectClass = type(of: object)
    let key = object._key
    let tableKey = object._tableKey
    return observeOnQueue(queue, from: core, register: { target in
        let table = objectClass == DynamicObject.self ? target.dynamicTableInfo(forKey: tableKey) : target.tableInfo(for: objectClass)
        guard let table, target.objectExists(epoch: target.epoch, table: table, key: key),
            let moved = target.makeObject(table, key) as? T
        else {
            // Deleted before the queue's Realm could read it.
            block(.deleted)
            return nil
        }
        return target.addObserver(ObjectObserver(moved, target, keyPaths: keyPaths, block))
    }, failed: { block(.error($0 as NSError)) })
}

// How an object's `observe` behaves (Realm's rules): no initial notification; after each commit
// that deleted the object, `.deleted` (and nothing after), or that changed one of its properties
// as `keyPaths` see them, `.change` with the object and each changed property (see
// `PropertyChange` for the values). Delivered when the Realm moves to the commit (autorefresh,
// `refresh()`, the next write; its own commits later on its context), or on `queue`. `keyPaths`:
// `["name"]` (only that property), `["dogs"]` (the list itself, not its dogs), `["dogs.name"]`
// (the list, and its dogs' names); nil: every property of the object itself (a link or list
// set or changed, not a change inside the objects it reaches: Realm's documented default).
// An unmanaged or deleted object, a frozen Realm, a write transaction (without a queue), an
// unknown key path: Realm's message.

extension Object {
    /// Observes the object: `.change` with the properties that changed after each commit that
    /// changed it (as `keyPaths` see it), `.deleted` when it is deleted. Keep the token.
    ///
    ///     let token = dog.observe(keyPaths: ["age"]) { (change: ObjectChange<Dog>) in
    ///         if case .change(_, let properties) = change {
    ///             print(properties[0].oldValue as? Int, properties[0].newValue as? Int)
    ///         }
    ///     }
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observeObject(self, keyPaths: keyPaths, on: queue, block)
    }

    /// Observes the object through Swift key paths: `[\Dog.age]`, `[\Person.dogs[0].name]`.
    ///
    ///     let token = person.observe(keyPaths: [\Person.dogs[0].name]) { change in print(change) }
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observeObject(self, keyPaths: propertyPaths(keyPaths), on: queue, block)
    }
}

extension EmbeddedObject {
    /// Observes the embedded object, as `Object.observe(keyPaths:on:_:)` does.
    ///
    ///     let token = person.address!.observe { (change: ObjectChange<Address>) in print(change) }
    public func observe<T: ObjectBase>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observeObject(self, keyPaths: keyPaths, on: queue, block)
    }

    /// Observes the embedded object through Swift key paths.
    ///
    ///     let token = person.address!.observe(keyPaths: [\Address.city]) { change in print(change) }
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        observeObject(self, keyPaths: propertyPaths(keyPaths), on: queue, block)
    }
}

// MARK: - Actors and AsyncSequence

extension Object {
    /// Observes the object with `block` isolated to `actor` (Realm's actor form of `observe`):
    /// the object is resolved in the Realm of its file isolated to `actor`, and `block` gets
    /// `.change` or `.deleted` as `observe(keyPaths:on:_:)` describes, with the actor as its
    /// isolated parameter. The token may be used and invalidated from any actor.
    ///
    ///     let token = await dog.observe(keyPaths: ["age"], on: store) { (store, change: ObjectChange<Dog>) in
    ///         print(change)
    ///     }
    public func observe<A: Actor, T: Object>(keyPaths: [String]? = nil, on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken {
        let (reference, configuration) = prepareActorObservation(self as Object)
        return await registerObject(actor, reference, configuration, keyPaths, block)
    }

    /// The actor form of `observe` with Swift key paths.
    ///
    ///     let token = await dog.observe(keyPaths: [\Dog.age], on: store) { store, change in print(change) }
    public func observe<A: Actor, T: Object>(keyPaths: [PartialKeyPath<T>], on actor: A,
                                             _isolation: isolated (any Actor)? = #isolation,
                                             _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void) async -> NotificationToken {
        await observe(keyPaths: propertyPaths(keyPaths), on: actor, _isolation: _isolation, block)
    }
}

extension ThreadConfined where Self: ObjectBase {
    /// The changes of the object as an AsyncSequence (OpenRealm's; Realm Swift offers Combine
    /// publishers, which Linux lacks): `.change` after each commit that changed it, `.deleted`
    /// when it is deleted, as `observe(keyPaths:on:_:)` delivers them. Registered when `changes`
    /// is read; ends when the iterating task is cancelled or the sequence is released. Read it
    /// and iterate where the object's Realm is usable: the objects it yields are live.
    ///
    ///     for await change in dog.changes {
    ///         if case .change(_, let properties) = change { print(properties.map(\.name)) }
    ///     }
    public var changes: AsyncStream<ObjectChange<Self>> {
        changes(keyPaths: nil)
    }

    /// The changes of the object as an AsyncSequence, with the key paths of `observe`.
    ///
    ///     for await change in dog.changes(keyPaths: ["age"]) { print(change) }
    public func changes(keyPaths: [String]?) -> AsyncStream<ObjectChange<Self>> {
        changeStream { yield in observeObject(self, keyPaths: keyPaths, on: nil, yield) }
    }
}

/// On the actor: registers `block` for the object `reference` names.
private func registerObject<A: Actor, T: Object>(
    _ actor: isolated A, _ reference: ThreadSafeReference<Object>, _ configuration: Realm.Configuration,
    _ keyPaths: [String]?, _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void
) -> NotificationToken {
    guard let object = resolveOnActor(actor, reference, configuration) else { return NotificationToken() }
    return object.observe(keyPaths: keyPaths, on: nil) { (change: ObjectChange<T>) in deliverIsolated(actor, block, change) }
}
