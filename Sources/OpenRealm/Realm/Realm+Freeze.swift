// Realm+Freeze.swift — frozen Realms (freeze, thaw, isFrozen), as in Realm Swift.

import Foundation

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

    /// A frozen copy of a collection of this Realm (`collection.freeze()`).
    ///
    ///     let frozenDogs = realm.freeze(realm.objects(Dog.self))
    public func freeze<Collection: RealmCollection>(_ collection: Collection) -> Collection { collection.freeze() }

    /// The live collection of a frozen one (`collection.thaw()`); nil if its object was deleted.
    ///
    ///     let liveDogs = realm.thaw(frozenDogs)
    public func thaw<Collection: RealmCollection>(_ collection: Collection) -> Collection? { collection.thaw() }

    /// Resolves a `ThreadSafeReference` in this Realm: the object (nil if it was deleted) or
    /// collection it refers to, read in this Realm. A Realm that has not read anything yet (just
    /// opened, or invalidated) begins reading at the reference's version, as Realm's does, so
    /// an object deleted since the reference was made resolves until `refresh()`; a Realm that
    /// reads an older version is first refreshed (and for a reference made in a write
    /// transaction, one at the version the write began on: the write's changes are seen). A reference resolves once; a second
    /// `resolve` stops with Realm's message.
    ///
    ///     let reference = ThreadSafeReference(to: dog)
    ///     DispatchQueue.global().async {
    ///         let realm = try! Realm()
    ///         guard let dog = realm.resolve(reference) else { return }   // deleted meanwhile
    ///         try! realm.write { dog.age += 1 }
    ///     }
    public func resolve<Confined: ThreadConfined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        core.checkThread()
        let (value, version, madeInWrite) = reference.take()
        if core.frozen == nil && !core.isInWriteTransaction {
            // As realm-core's ThreadSafeReference (Payload::refresh_target_realm): a Realm that is
            // not reading yet begins at the reference's version (refresh() then shows what was
            // written since); one that reads an older version is refreshed, and so is one at the
            // version a reference made in a write transaction began on.
            if madeInWrite || !core.beginReadIfIdle(at: version) {
                let current = core.readVersion
                if current < version || (current == version && madeInWrite) { _ = core.refresh() }
            }
        }
        return value.moved(to: core) as! Confined?
    }
}
