// Freeze.swift — frozen Realms, objects and collections (freeze, thaw, isFrozen), ThreadConfined
// and ThreadSafeReference, as in Realm Swift. See RealmCore's comment for how threads read frozen
// data at once.

import CEngine
import Foundation

extension RealmCore {
    /// The version this (live) instance reads: its read transaction's, or in a write transaction
    /// the version the write began on (the latest committed one).
    fileprivate var readVersion: UInt64 {
        if let frozen { return frozen.version }
        if isInWriteTransaction {
            var latest: UInt64 = 0
            guard ce_db_latest_version(engine.handle, &latest) else { engineFailure() }
            return latest
        }
        return ce_txn_version(currentTxn())
    }

    /// A frozen instance at the version this one reads (itself if frozen).
    func frozenCore() -> RealmCore {
        if frozen != nil { return self }
        checkThread()
        let version = readVersion
        if let last = lastFrozen, last.frozen?.version == version { return last }
        let core = RealmCore(freezing: self)
        lastFrozen = core
        return core
    }

    /// The live instance of this thread for the file, at `version` or later (refreshed if it
    /// reads an older one).
    static func liveCore(_ configuration: Realm.Configuration, atLeast version: UInt64) -> RealmCore {
        let core: RealmCore
        do {
            core = try RealmCore.instance(for: configuration)
        } catch {
            throwRealmException(error.message)
        }
        if !core.isInWriteTransaction && core.readVersion < version { _ = core.refresh() }
        return core
    }

    /// The object of this instance that `object` (of another instance of the same file) is: the
    /// same row, if it exists in this instance's version.
    func importObject(_ object: ObjectBase) -> ObjectBase? {
        if object._core === self { return object }
        guard let table = tableInfo(for: type(of: object)),
            objectExists(epoch: epoch, table: table, key: object._key)
        else { return nil }
        return makeObject(table, object._key)
    }

    /// The live instance of this thread that thawed values of this frozen instance belong to.
    func thawedCore() -> RealmCore {
        guard let frozen else { return self }
        return RealmCore.liveCore(configuration, atLeast: frozen.version)
    }
}

// MARK: - Realm

extension Realm {
    /// Whether the Realm is frozen: it reads one version forever, on any thread, and cannot be
    /// written (`write`, `beginWrite` and any change stop with Realm's message).
    ///
    ///     realm.freeze().isFrozen    // true
    public var isFrozen: Bool { core.frozen != nil }

    /// A frozen snapshot of the Realm: the version it reads now (inside a write transaction, the
    /// version the write began on), readable from any thread, at the same time, until the last
    /// frozen Realm, object or collection of it goes away. It never changes: `refresh()` returns
    /// false. Keep frozen data short-lived: the file cannot reuse the space of newer versions
    /// while an older one is pinned.
    ///
    ///     let frozen = realm.freeze()
    ///     DispatchQueue.global().async {
    ///         print(frozen.objects(Dog.self).count)
    ///     }
    public func freeze() -> Realm { Realm(core.frozenCore()) }

    /// The live Realm of the calling thread for a frozen Realm's file (at the frozen version or
    /// later); a live Realm returns itself.
    ///
    ///     let live = frozen.thaw()
    ///     try live.write { live.deleteAll() }
    public func thaw() -> Realm { Realm(core.thawedCore()) }

    /// A frozen copy of a managed object of this Realm: as `Object.freeze()`.
    ///
    ///     let frozenDog = realm.freeze(dog)
    public func freeze<T: ObjectBase>(_ obj: T) -> T { obj.freeze() }

    /// A live copy, in this thread's Realm, of a frozen object: as `Object.thaw()`.
    ///
    ///     let liveDog = realm.thaw(frozenDog)
    public func thaw<T: ObjectBase>(_ obj: T) -> T? { obj.thaw() }

    /// Resolves a `ThreadSafeReference` in this Realm: the object (nil if it was deleted since
    /// the reference was made) or collection it refers to, read in this Realm, which is first
    /// refreshed if it reads an older version than the reference's. A reference resolves once;
    /// a second `resolve` stops with Realm's message.
    ///
    ///     let reference = ThreadSafeReference(to: dog)
    ///     DispatchQueue.global().async {
    ///         let realm = try! Realm()
    ///         guard let dog = realm.resolve(reference) else { return }   // deleted meanwhile
    ///         try! realm.write { dog.age += 1 }
    ///     }
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        core.checkThread()
        let (value, version) = reference.take()
        if core.frozen == nil && !core.isInWriteTransaction && core.readVersion < version { _ = core.refresh() }
        return value.moved(to: core) as! Confined?
    }
}

// MARK: - Objects

extension ObjectBase {
    /// Whether the object belongs to a frozen Realm: readable from any thread, never changing,
    /// and any change to it stops with Realm's message.
    ///
    ///     dog.freeze().isFrozen    // true
    public var isFrozen: Bool { _core?.frozen != nil }

    /// A frozen copy of the managed object: its values at the Realm's current version, readable
    /// from any thread. A frozen object returns itself. An unmanaged object, or one created in
    /// the current write transaction, cannot be frozen (Realm's messages).
    ///
    ///     let frozen = dog.freeze()
    ///     Thread { print(frozen.name) }.start()
    public func freeze() -> Self {
        guard let core = _core, _table != nil else { throwRealmException("Unmanaged objects cannot be frozen.") }
        if core.frozen != nil { return self }
        if isInvalidated { throwRealmException(invalidatedObjectMessage) }
        guard let frozen = core.frozenCore().importObject(self) else {
            throwRealmException("Cannot freeze an object in the same write transaction as it was created in.")
        }
        return frozen as! Self
    }

    /// The live object, in the calling thread's Realm, of a frozen object; nil if it was deleted
    /// since. A live or unmanaged object returns itself.
    ///
    ///     if let live = frozenDog.thaw() {
    ///         try live.realm!.write { live.age += 1 }
    ///     }
    public func thaw() -> Self? {
        guard let core = _core, core.frozen != nil else { return self }
        return core.thawedCore().importObject(self) as? Self
    }
}

// MARK: - Collections

extension Results {
    /// Whether the results belong to a frozen Realm.
    ///
    ///     dogs.freeze().isFrozen    // true
    public var isFrozen: Bool { core.frozen != nil }

    /// Frozen results: the same objects, in the same order, as the Realm's current version has
    /// them, readable from any thread. Frozen results return themselves.
    ///
    ///     let frozen = realm.objects(Dog.self).filter("age > 2").freeze()
    ///     DispatchQueue.global().async { print(frozen.count) }
    public func freeze() -> Results {
        if core.frozen != nil { return self }
        guard let frozen = rebased(onto: core.frozenCore()) else { throwRealmException(invalidatedObjectMessage) }
        return frozen
    }

    /// Live results, in the calling thread's Realm, of frozen results; nil if the object whose
    /// list or linking objects they are was deleted. Live results return themselves.
    ///
    ///     let live = frozenDogs.thaw()
    public func thaw() -> Results? {
        guard core.frozen != nil else { return self }
        return rebased(onto: core.thawedCore())
    }

    /// The same results read in `target` (another instance of the file).
    func rebased(onto target: RealmCore) -> Results? {
        switch source {
        case .table(let objectClass):
            return Results(core: target, objectClass: objectClass)
        case .query(let query):
            return query.rebased(onto: target).map { Results(core: target, query: $0) }
        case .sortedValues(let collection, let ascending):
            return collection.rebased(onto: target).map { Results(sortedValues: $0, ascending: ascending) }
        }
    }
}

extension LinkingObjects {
    /// Whether the linking objects belong to a frozen Realm.
    ///
    ///     dog.freeze().owners.isFrozen    // true
    public var isFrozen: Bool { owner?.isFrozen ?? false }

    /// The linking objects of the frozen copy of the object (see `Object.freeze()`).
    ///
    ///     let frozenOwners = dog.owners.freeze()
    public func freeze() -> LinkingObjects {
        guard let owner else { throwRealmException("Unmanaged objects cannot be frozen.") }
        return LinkingObjects(propertyName: propertyName, owner: owner.freeze())
    }

    /// The live linking objects, in the calling thread's Realm, of frozen ones; nil if the object
    /// was deleted.
    ///
    ///     let liveOwners = frozenOwners.thaw()
    public func thaw() -> LinkingObjects? {
        guard let owner, owner.isFrozen else { return self }
        return owner.thaw().map { LinkingObjects(propertyName: propertyName, owner: $0) }
    }
}

extension ManagedCollection {
    /// The collection frozen at its Realm's current version.
    func frozen() -> ManagedCollection {
        if core.frozen != nil { return self }
        guard let moved = rebased(onto: core.frozenCore()) else { throwRealmException(invalidatedObjectMessage) }
        return moved
    }
}

extension List {
    /// Whether the list belongs to a frozen Realm.
    ///
    ///     person.dogs.freeze().isFrozen    // true
    public var isFrozen: Bool { managed?.core.frozen != nil }

    /// A frozen copy of the managed list: its elements at the Realm's current version, readable
    /// from any thread. Unmanaged lists cannot be frozen (Realm's message).
    ///
    ///     let frozenDogs = person.dogs.freeze()
    public func freeze() -> List {
        guard let managed else { throwRealmException("This method may only be called on RLMArray instances retrieved from an RLMRealm") }
        if managed.core.frozen != nil { return self }
        return List(managed: managed.frozen())
    }

    /// The live list, in the calling thread's Realm, of a frozen one; nil if its object was
    /// deleted. A live list returns itself.
    ///
    ///     let liveDogs = frozenDogs.thaw()
    public func thaw() -> List? {
        guard let managed, managed.core.frozen != nil else { return self }
        return managed.rebased(onto: managed.core.thawedCore()).map { List(managed: $0) }
    }
}

extension MutableSet {
    /// Whether the set belongs to a frozen Realm.
    ///
    ///     person.tags.freeze().isFrozen    // true
    public var isFrozen: Bool { managed?.core.frozen != nil }

    /// A frozen copy of the managed set, readable from any thread.
    ///
    ///     let frozenTags = person.tags.freeze()
    public func freeze() -> MutableSet {
        guard let managed else { throwRealmException("This method may only be called on RLMSet instances retrieved from an RLMRealm") }
        if managed.core.frozen != nil { return self }
        return MutableSet(managed: managed.frozen())
    }

    /// The live set, in the calling thread's Realm, of a frozen one; nil if its object was
    /// deleted. A live set returns itself.
    ///
    ///     let liveTags = frozenTags.thaw()
    public func thaw() -> MutableSet? {
        guard let managed, managed.core.frozen != nil else { return self }
        return managed.rebased(onto: managed.core.thawedCore()).map { MutableSet(managed: $0) }
    }
}

extension Map {
    /// Whether the map belongs to a frozen Realm.
    ///
    ///     person.scores.freeze().isFrozen    // true
    public var isFrozen: Bool { managed?.core.frozen != nil }

    /// A frozen copy of the managed map, readable from any thread.
    ///
    ///     let frozenScores = person.scores.freeze()
    public func freeze() -> Map {
        guard let managed else { throwRealmException("This method may only be called on RLMDictionary instances retrieved from an RLMRealm") }
        if managed.core.frozen != nil { return self }
        return Map(managed: managed.frozen())
    }

    /// The live map, in the calling thread's Realm, of a frozen one; nil if its object was
    /// deleted. A live map returns itself.
    ///
    ///     let liveScores = frozenScores.thaw()
    public func thaw() -> Map? {
        guard let managed, managed.core.frozen != nil else { return self }
        return managed.rebased(onto: managed.core.thawedCore()).map { Map(managed: $0) }
    }
}

// MARK: - Thread confinement

/// What is confined to a thread unless frozen: objects, results, lists, sets, maps and linking
/// objects (Realm's `ThreadConfined`). Pass one to another thread as a `ThreadSafeReference`, or
/// frozen. Only OpenRealm's types conform.
///
///     func send<T: ThreadConfined>(_ value: T) -> ThreadSafeReference<T> { ThreadSafeReference(to: value) }
public protocol ThreadConfined {
    /// The Realm the value belongs to; nil while unmanaged.
    ///
    ///     dog.realm?.isFrozen
    var realm: Realm? { get }
    /// Whether the value can no longer be used.
    ///
    ///     if dog.isInvalidated { return }
    var isInvalidated: Bool { get }
    /// Whether the value is frozen.
    ///
    ///     dog.freeze().isFrozen    // true
    var isFrozen: Bool { get }
    /// A frozen copy of the value.
    ///
    ///     let frozen = dogs.freeze()
    func freeze() -> Self
    /// The live value, in the calling thread's Realm, of a frozen one.
    ///
    ///     let live = frozenDogs.thaw()
    func thaw() -> Self?
}

/// How OpenRealm's thread-confined types move to another instance of their file.
protocol RealmMovable {
    /// The same value read in `core`; nil if what it is (an object, a collection's owner) does
    /// not exist there.
    func moved(to core: RealmCore) -> Any?
}

extension ObjectBase: RealmMovable {
    func moved(to core: RealmCore) -> Any? { core.importObject(self) }
}
extension Object: ThreadConfined {}
extension EmbeddedObject: ThreadConfined {}
extension Results: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { rebased(onto: core) }
}
extension LinkingObjects: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? {
        guard let owner, let moved = core.importObject(owner) else { return nil }
        return LinkingObjects(propertyName: propertyName, owner: moved)
    }
}
extension List: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { managed?.rebased(onto: core).map { List(managed: $0) } }
}
extension MutableSet: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { managed?.rebased(onto: core).map { MutableSet(managed: $0) } }
}
extension Map: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { managed?.rebased(onto: core).map { Map(managed: $0) } }
}

/// A reference to an object or collection that can be passed to another thread and resolved
/// there, once, with `Realm.resolve(_:)` (Realm's `ThreadSafeReference`). It holds the version it
/// was made at until it is resolved: resolve it soon.
///
///     let reference = ThreadSafeReference(to: realm.objects(Dog.self).filter("age > 2"))
///     DispatchQueue.global().async {
///         let realm = try! Realm()
///         let dogs = realm.resolve(reference)!
///         print(dogs.count)
///     }
public struct ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    /// What the reference holds until resolved: the value frozen at the version it was made at
    /// (a frozen value is readable from any thread and pins its version).
    /// The value is frozen, so any thread may hold it; `lock` guards taking it.
    private final class Box: @unchecked Sendable {
        let lock = NSLock()
        var value: RealmMovable?
        let version: UInt64
        init(_ value: RealmMovable, _ version: UInt64) {
            self.value = value
            self.version = version
        }
    }

    private let box: Box

    /// A reference to a managed object or collection, to resolve on another thread. An unmanaged
    /// value stops with Realm's message (pass it directly instead).
    ///
    ///     let reference = ThreadSafeReference(to: dog)
    public init(to threadConfined: Confined) {
        guard let realm = threadConfined.realm else {
            throwRealmException("Cannot construct reference to unmanaged object, which can be passed across threads directly")
        }
        if threadConfined.isInvalidated { throwRealmException("Cannot construct reference to invalidated object") }
        guard let frozen = threadConfined.freeze() as Any as? RealmMovable else {
            throwRealmException("Only OpenRealm's objects and collections can be passed with a ThreadSafeReference")
        }
        box = Box(frozen, realm.core.frozenCore().frozen.unsafelyUnwrapped.version)
    }

    /// Whether the reference was resolved (it can no longer be).
    ///
    ///     _ = realm.resolve(reference)
    ///     reference.isInvalidated    // true
    public var isInvalidated: Bool {
        box.lock.lock()
        defer { box.lock.unlock() }
        return box.value == nil
    }

    /// The frozen value and its version; the reference is spent. Stops if it was resolved already.
    fileprivate func take() -> (RealmMovable, UInt64) {
        box.lock.lock()
        let taken = box.value
        box.value = nil
        box.lock.unlock()
        guard let taken else { throwRealmException("Can only resolve a thread safe reference once.") }
        return (taken, box.version)
    }
}
