// ObservationSupport.swift — what the observers of objects and collections share: key-path
// filters (ce_key_path_filter), the checks Realm makes when an observer is registered, Realm's
// default key paths, and registration on another queue (`observe(on:)`).

import CEngine
import Dispatch
import Foundation

// MARK: - Key-path filters

/// A key-path filter of the engine, bound to one table: which changes of an object (and of the
/// objects it links to) an observer sees. Freed with its observer.
final class KeyPathFilter {
    let handle: OpaquePointer

    /// The filter of `keyPaths` (property names of the table's class, dotted through links:
    /// `"dogs.name"`); nil: Realm's default (every property, and those of linked objects to depth
    /// 4). An unknown property is a programmer error with the engine's (Realm's) message.
    init(_ txn: OpaquePointer, _ table: TableInfo, keyPaths: [String]?) {
        var raw: OpaquePointer?
        let ok: Bool
        if let keyPaths {
            let paths = keyPaths.map { engineKeyPath($0, table.schema) }
            ok = withCStrings(paths) { ce_key_path_filter_create(txn, table.tableKey, $0.baseAddress, $0.count, &raw) }
        } else {
            ok = ce_key_path_filter_create(txn, table.tableKey, nil, 0, &raw)
        }
        guard ok, let raw else { throwRealmException(String(cString: ce_last_error_message())) }
        handle = raw
    }

    /// The filter of a managed collection's linked objects: nil for values, or when `keyPaths` is
    /// nil or empty (Realm's default, which the engine applies for a nil filter).
    static func forElements(of managed: ManagedCollection, elementClass: ObjectBase.Type?,
                            keyPaths: [String]?) -> KeyPathFilter? {
        guard let elementClass, let keyPaths, !keyPaths.isEmpty else { return nil }
        guard let table = managed.core.tableInfo(for: elementClass) else {
            throwRealmException(String(cString: ce_last_error_message()))
        }
        return KeyPathFilter(managed.core.currentTxn(), table, keyPaths: keyPaths)
    }

    deinit { ce_key_path_filter_free(handle) }

    /// Whether `object` (present in both versions of `changes`) changed as the filter sees it.
    func matches(_ changes: OpaquePointer, _ object: ce_object_key) -> Bool {
        var changed = false
        guard ce_changes_object_matches(changes, handle, object, &changed) else { engineFailure() }
        return changed
    }
}

// MARK: - Registration checks

/// Stops with Realm's message unless observers may be registered on `core` now: not on a frozen
/// or read-only Realm, on its thread (the write-transaction check is `RealmCore.addObserver`'s;
/// made here too, these stop at the call even when the observer is registered on a queue).
func checkCanObserve(_ core: RealmCore) {
    if core.isFrozen { throwRealmException("Frozen Realms do not change and do not have change notifications.") }
    core.checkThread()
    if core.configuration.readOnly {
        throwRealmException("Read-only Realms do not change and do not have change notifications.")
    }
}

/// The key paths of Swift key paths, for `observe(keyPaths:)`.
func propertyPaths<Root: ObjectBase>(_ keyPaths: [PartialKeyPath<Root>]) -> [String] {
    keyPaths.map { propertyPath(of: $0) }
}

// MARK: - Delivering on another queue

/// A value handed to a queue's block: thread-confined values cross only in ways Realm allows
/// (frozen, or used on the queue alone).
struct QueueHandoff<Value>: @unchecked Sendable {
    let value: Value
}

/// The version of the transaction `core` reads now.
func currentVersion(_ core: RealmCore) -> UInt64 {
    ce_txn_version(core.currentTxn())
}

// MARK: - Registering

/// Registers a collection observer on `core` (the collection's Realm, live, outside a write
/// transaction: `addObserver` checks) and schedules its `.initial` on the Realm's context.
func registerCollectionObserver(_ observer: CollectionObserverBase, on core: RealmCore) -> NotificationToken {
    let token = core.addObserver(observer)
    // Weak: an invalidated or released token has released the observer, which then says nothing.
    core.perform { [weak observer, weak core] in
        guard let observer, let core else { return }
        observer.deliverInitial(core)
    }
    return token
}

/// What the token of an observation on another queue holds: the registration made on the
/// queue's Realm once the queue runs it. Invalidating (or releasing) the token releases this,
/// which ends that registration, or keeps it from being made.
final class QueueRegistration: RealmObserver, @unchecked Sendable {
    // @unchecked Sendable: `inner` is set on the queue and read where the token is released,
    // under `lock`.
    private let lock = NSLock()
    private var inner: NotificationToken?

    func realmDidChange(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer) {}

    /// The token of the registration on the queue's Realm.
    func attach(_ token: NotificationToken) {
        lock.lock()
        inner = token
        lock.unlock()
    }

    deinit {
        lock.lock()
        let token = inner
        lock.unlock()
        token?.invalidate()
    }
}

/// Observes on `queue` (Realm's `observe(on:)`): returns a token now; on the queue, opens the
/// Realm of `configuration` confined to it, brought to at least `version` (what the caller
/// read), and calls `register` there, whose token the returned one holds. If the Realm cannot be
/// opened, `failed` is called on the queue.
func observeOnQueue(_ queue: DispatchQueue, from core: RealmCore,
                    register: @escaping (RealmCore) -> NotificationToken?, failed: @escaping (Error) -> Void) -> NotificationToken {
    let registration = QueueRegistration()
    let token = NotificationToken(core: core, .observer(registration))
    let configuration = core.configuration
    let version = core.readVersion
    let work = QueueHandoff(value: (register, failed))
    queue.async { [weak registration] in
        guard let registration else { return }
        let realm: Realm
        do {
            realm = try Realm(configuration: configuration, queue: queue)
        } catch {
            work.value.1(error)
            return
        }
        let target = realm.core
        if target.readVersion < version { _ = target.refresh() }
        if let inner = work.value.0(target) { registration.attach(inner) }
    }
    return token
}
