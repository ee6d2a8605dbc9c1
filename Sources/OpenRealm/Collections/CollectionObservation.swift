// CollectionObservation.swift — `observe` on Results, List, MutableSet, LinkingObjects,
// AnyRealmCollection and Map: Realm Swift's signatures (key paths as strings or Swift key paths,
// an optional queue), with the observers of Impl/CollectionObservers.swift behind them.

import Dispatch
import Foundation

// How every collection's `observe` behaves (Realm's rules):
// - The block gets `.initial` asynchronously, on the Realm's context (the thread's run loop, or
//   its queue; a thread without a running run loop gets it at its next `refresh()` or write),
//   then an `.update` after each commit that changed the collection, delivered when the Realm
//   moves to it (autorefresh, `refresh()`, the next write; the Realm's own commits later on its
//   context). Commits the Realm moves to before `.initial` is delivered are part of the initial
//   state. A write begun right after registering delivers `.initial` first, then the write's
//   changes as an `.update` (Realm documents the initial state including such a write).
// - `keyPaths` name properties of the collection's objects (`["name"]`, `["dogs.name"]`): only
//   their changes mark an object modified; insertions and deletions are always reported. Nil or
//   empty: every property, and those of linked objects to depth 4.
// - `queue`: the block is called on that serial queue, with the collection as a Realm confined
//   to the queue reads it.
// - Registering on an unmanaged collection, on a frozen Realm, or (without a queue) inside a
//   write transaction stops with Realm's message; so does an unknown key path.

/// Registers `makeObserver` for `collection` on its Realm, or, with `queue`, for the collection
/// as the queue's Realm reads it (`error` is delivered if that Realm cannot be opened).
private func observeCollection<C: RealmMovable>(
    _ collection: C, _ core: RealmCore, on queue: DispatchQueue?, error: @escaping (Error) -> Void,
    _ makeObserver: @escaping (C, RealmCore) -> CollectionObserverBase
) -> NotificationToken {
    checkCanObserve(core)
    guard let queue else { return registerCollectionObserver(makeObserver(collection, core), on: core) }
    // Key paths are checked now, where the call is.
    _ = makeObserver(collection, core)
    let moving = QueueHandoff(value: collection)
    return observeOnQueue(queue, from: core, register: { target in
        guard let moved = moving.value.moved(to: target) as? C else { return nil }
        return registerCollectionObserver(makeObserver(moved, target), on: target)
    }, failed: error)
}

// MARK: - Results

extension Results {
    /// Observes the results: `.initial` with them, then `.update` with the positions of the
    /// objects removed and modified (in the previous version) and inserted (in the new one) after
    /// each commit that changed them. Keep the token: releasing it stops the notifications.
    ///
    ///     let token = realm.objects(Dog.self).filter("age > 2").sorted(byKeyPath: "name").observe { change in
    ///         switch change {
    ///         case .initial(let dogs): print(dogs.count)
    ///         case .update(_, let deletions, let insertions, let modifications): print(deletions, insertions, modifications)
    ///         case .error: break
    ///         }
    ///     }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results>) -> Void) -> NotificationToken {
        observeCollection(self, core, on: queue, error: { block(.error($0)) }) { results, core in
            switch results.source {
            case .values(let collection, let steps):
                return SortedValuesObserver(results, values: {
                    collection.isInvalidated ? nil : results.valuesElements(collection, steps)
                }, block)
            default:
                return ResultsObserver(results, core, results.resultsQuery, keyPaths: keyPaths, block)
            }
        }
    }
}

// MARK: - List and MutableSet

extension List {
    /// Observes the list: `.initial`, then `.update` with the positions removed, inserted and
    /// modified (an element replaced, or a linked object changed as `keyPaths` see it) after each
    /// commit that changed it. When its object is deleted, every element is reported deleted and
    /// nothing follows. The list must be managed.
    ///
    ///     let token = person.dogs.observe(keyPaths: ["name"]) { change in
    ///         if case .update(_, let deletions, let insertions, let modifications) = change {
    ///             print(deletions, insertions, modifications)
    ///         }
    ///     }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List>) -> Void) -> NotificationToken {
        guard let managed else { unmanagedQueryFailure("List") }
        return observeCollection(self, managed.core, on: queue, error: { block(.error($0)) }) { list, _ in
            guard let managed = list.managed else { unmanagedQueryFailure("List") }
            return ListObserver(list, managed, elementClass: Element._ceLinkTarget, keyPaths: keyPaths, block)
        }
    }
}

extension MutableSet {
    /// Observes the set: `.initial`, then `.update` with the positions (in the set's order)
    /// removed, inserted and modified after each commit that changed it. The set must be
    /// managed.
    ///
    ///     let token = person.tags.observe { change in print(change) }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet>) -> Void) -> NotificationToken {
        guard let managed else { unmanagedQueryFailure("MutableSet") }
        return observeCollection(self, managed.core, on: queue, error: { block(.error($0)) }) { set, _ in
            guard let managed = set.managed else { unmanagedQueryFailure("MutableSet") }
            return ListObserver(set, managed, elementClass: Element._ceLinkTarget, keyPaths: keyPaths, block)
        }
    }
}

// MARK: - LinkingObjects

extension LinkingObjects where Element: RealmCollectionValue {
    /// Observes the objects linking to the object: `.initial`, then `.update` after each commit
    /// that changed which objects link to it, or one of them (as `keyPaths` see it). The object
    /// must be managed; when it is deleted, every linking object is reported deleted.
    ///
    ///     let token = dog.owners.observe { change in print(change) }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects>) -> Void) -> NotificationToken {
        let view = _resultsView()
        return observeCollection(self, view.core, on: queue, error: { block(.error($0)) }) { linking, core in
            ResultsObserver(linking, core, linking._resultsView().resultsQuery, keyPaths: keyPaths, block)
        }
    }
}

// MARK: - AnyRealmCollection

extension AnyRealmCollection {
    /// Observes the wrapped collection, as its own `observe` does, with the changes given for
    /// this `AnyRealmCollection`.
    ///
    ///     let token = AnyRealmCollection(person.dogs).observe { change in print(change) }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection>) -> Void) -> NotificationToken {
        func forward<C: RealmCollection>(_ base: C) -> NotificationToken where C.Element == Element {
            base.observe(keyPaths: keyPaths, on: queue) { change in
                switch change {
                case .initial(let collection):
                    block(.initial(AnyRealmCollection(collection)))
                case .update(let collection, let deletions, let insertions, let modifications):
                    block(.update(AnyRealmCollection(collection), deletions: deletions, insertions: insertions, modifications: modifications))
                case .error(let error):
                    block(.error(error))
                }
            }
        }
        return forward(base)
    }
}

// MARK: - RealmCollection

extension RealmCollection {
    /// Observes the collection (see `Results.observe(keyPaths:on:_:)`), for generic code.
    ///
    ///     func watch<C: RealmCollection>(_ dogs: C) -> NotificationToken { dogs.observe { print($0) } }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension RealmCollection where Element: ObjectBase {
    /// Observes the collection with Swift key paths of its objects: `[\Dog.name]`,
    /// `[\Person.dogs[0].name]` (`"dogs.name"`), `[\Person.dog?.name]` (`"dog.name"`).
    ///
    ///     let token = realm.objects(Person.self).observe(keyPaths: [\Person.dogs[0].name]) { change in
    ///         print(change)    // a dog's name changed, not its age
    ///     }
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: propertyPaths(keyPaths), on: queue, block)
    }
}

// MARK: - Map

extension Map: RealmKeyedCollection {
    /// Observes the map: `.initial`, then `.update` with the keys removed, inserted and modified
    /// (a value replaced, or its object changed as `keyPaths` see it) after each commit that
    /// changed it. `keyPaths` name properties of the values' objects. The map must be managed;
    /// when its object is deleted, every key is reported deleted and nothing follows.
    ///
    ///     let token = person.scores.observe { change in
    ///         if case .update(_, let deletions, let insertions, let modifications) = change {
    ///             print(deletions, insertions, modifications)    // ["art"] ["math"] []
    ///         }
    ///     }
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        guard let managed else { throwRealmException("This method may only be called on RLMDictionary instances retrieved from an RLMRealm") }
        return observeCollection(self, managed.core, on: queue, error: { block(.error($0)) }) { map, _ in
            guard let managed = map.managed else { unmanagedQueryFailure("Map") }
            return MapObserver(map, managed, elementClass: Value._ceLinkTarget, keyPaths: keyPaths, block)
        }
    }

    /// Observes the map (every property of its values' objects).
    ///
    ///     let token = person.scores.observe(on: DispatchQueue(label: "scores")) { change in print(change) }
    public func observe(on queue: DispatchQueue?, _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken {
        observe(keyPaths: nil, on: queue, block)
    }

    /// Observes a map of objects with Swift key paths of the objects.
    ///
    ///     let token = person.pets.observe(keyPaths: [\Dog.name]) { change in print(change) }
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                       _ block: @escaping (RealmMapChange<Map>) -> Void) -> NotificationToken where Value == T? {
        observe(keyPaths: propertyPaths(keyPaths), on: queue, block)
    }
}
