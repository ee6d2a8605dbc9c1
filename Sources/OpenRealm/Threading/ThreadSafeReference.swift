// ThreadSafeReference.swift — ThreadSafeReference: an object or collection passed to another
// thread and resolved there.

import Foundation

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
        /// Made in a write transaction: resolving it reads the latest version (realm-core's
        /// rule), so the write's changes are seen once it is committed.
        let madeInWrite: Bool
        init(_ value: RealmMovable, _ version: UInt64, madeInWrite: Bool) {
            self.value = value
            self.version = version
            self.madeInWrite = madeInWrite
        }
    }

    private let box: Box

    /// A reference to a managed object or collection, to resolve on another thread. An unmanaged
    /// value stops with Realm's message (pass it directly instead).
    ///
    ///     let reference = ThreadSafeReference(to: dog)
    public init(to threadConfined: Confined) {
        // A deleted object has no Realm any more: it is invalidated, not unmanaged.
        if threadConfined.isInvalidated { throwRealmException("Cannot construct reference to invalidated object") }
        guard let realm = threadConfined.realm else {
            throwRealmException("Cannot construct reference to unmanaged object, which can be passed across threads directly")
        }
        // An object created in the current write transaction has no committed version to freeze:
        // as Realm's, the reference holds its key, and resolves to it once the write is committed.
        if let object = threadConfined as Any as? ObjectBase, realm.isInWriteTransaction,
           realm.core.frozenCore().importObject(object) == nil {
            box = Box(NewObjectReference(objectClass: type(of: object), table: object._tableKey, key: object._key),
                      realm.core.readVersion, madeInWrite: true)
            return
        }
        guard let frozen = threadConfined.freeze() as Any as? RealmMovable else {
            throwRealmException("Only OpenRealm's objects and collections can be passed with a ThreadSafeReference")
        }
        box = Box(frozen, realm.core.frozenCore().frozen.unsafelyUnwrapped.version, madeInWrite: realm.isInWriteTransaction)
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

    /// The frozen value, its version, and whether it was made in a write transaction; the
    /// reference is spent. Stops if it was resolved already.
    func take() -> (value: RealmMovable, version: UInt64, madeInWrite: Bool) {
        box.lock.lock()
        let taken = box.value
        box.value = nil
        box.lock.unlock()
        guard let taken else { throwRealmException("Can only resolve a thread safe reference once.") }
        return (taken, box.version, box.madeInWrite)
    }
}

/// A reference to an object created in a write transaction not yet committed: its class, table
/// and key.
private struct NewObjectReference: RealmMovable {
    let objectClass: ObjectBase.Type
    let table: TableKey
    let key: ObjectKey

    func moved(to core: RealmCore) -> Any? { core.importObject(of: objectClass, table: table, key: key) }
}
