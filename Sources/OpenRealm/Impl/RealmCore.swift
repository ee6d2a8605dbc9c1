// RealmCore.swift — the state behind a Realm instance: its database handle, its transaction, the
// tables of its model classes; opening (schema check and update), adding, deleting.

import CEngine
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One open database per file (or in-memory identifier) and mode in the process, shared by the
/// Realm instances of every thread; closed when the last one goes away.
private struct WeakEngine: Sendable {
    weak var engine: StorageEngine?
    /// The key it was opened with: another key for the same file is refused.
    var encryptionKey: Data?
}

private let openEngines = LockedValue<[String: WeakEngine]>([:])

/// The per-thread cache of Realm instances: one per configuration and thread while in use. (A
/// queue's instances are in its `QueueMarker`.)
private final class ThreadRealms {
    var realms: [String: WeakRealmCore] = [:]
}

private let threadRealmsKey = "io.openrealm.threadRealms"

/// The instances isolated to actors, by actor and configuration (an instance keeps its actor
/// alive, so an actor's identifier is not reused while its entry's instance lives). Each entry
/// is read and written only by code isolated to its actor; the lock guards the dictionary.
private let actorRealms = LockedValue<[String: UncheckedBox<WeakRealmCore>]>([:])

/// The state of one Realm instance (a `Realm` is a handle on it). Confined to its thread, unless
/// frozen.
///
/// Frozen instances (`Realm.freeze()`): one RealmCore, shared by every thread that reads frozen
/// data of it, reads one version forever. The engine's transactions belong to one thread at a
/// time (a read mutates the transaction's caches), so each thread reads with its own: the
/// creating thread with `txn`, which pins the version for as long as the instance lives; any
/// other thread with a transaction of its own begun at the same version
/// (`ce_txn_begin_read_at`), kept in `FrozenState` by thread and ended with the instance. The
/// thread check of every access is what routes there: on the owning thread nothing changes (the
/// fast path stays one comparison); on another thread, a live instance stops with Realm's
/// message and a frozen one looks up its thread's transaction. The rest of the instance's
/// mutable state is either never changed once frozen (`epoch`, `isInWriteTransaction`), or,
/// when frozen, only touched under `FrozenState.lock` (the resolved tables) or kept per thread
/// (collection handles and query views, which belong to a transaction).
final class RealmCore {
    let configuration: Realm.Configuration
    let engine: StorageEngine
    /// The thread that opened the instance (the one it is confined to, unless `queueMarker`).
    private let thread: pthread_t
    /// Whether being on `thread` is enough: a thread-confined instance, or one of the main queue
    /// opened on the main thread (which may always use it).
    private let threadIsOwner: Bool
    /// For a Realm confined to a serial queue (`Realm(configuration:queue:)`): the queue's
    /// marker, which says whether the caller runs a block of the queue.
    private let queueMarker: QueueMarker?
    /// Whether the instance is isolated to an actor (`Realm(configuration:actor:)`): usable in
    /// code isolated to it, on any thread.
    private let isActorIsolated: Bool
    /// Where the instance is used and its notifications run.
    let context: DeliveryContext
    /// Notifications: observers, Realm.observe blocks, pending deliveries.
    let notify = NotificationState()
    /// Asynchronous writes: queued blocks and tasks, the write lock's grants, completions.
    let asyncWrites = AsyncWriteState()
    /// Set for a frozen instance: the per-thread transactions and the lock of its shared state.
    let frozen: FrozenState?
    var isFrozen: Bool { frozen != nil }
    /// The frozen instance made last from this one (`freeze()` of many objects of one version
    /// shares it, and so its engine transactions).
    weak var lastFrozen: RealmCore?

    // The vars read by every property access or add are marked @exclusivity(unchecked): a
    // dynamic exclusivity check is a runtime call per access, and the instance is confined to
    // its thread.

    /// The current transaction: a read transaction pinning a version, or the write transaction.
    @exclusivity(unchecked) private(set) var txn: OpaquePointer?
    @exclusivity(unchecked) private(set) var isInWriteTransaction = false {
        // In a write transaction the instance keeps itself, so that the thread's next `Realm()`
        // gets it: `try Realm().beginWrite()`, then `try Realm().create(...)` and
        // `try Realm().commitWrite()` are one transaction, as in Realm (whose instances live
        // on in the thread's autorelease pool). Released when the transaction ends.
        didSet { keptForWrite = isInWriteTransaction ? self : nil }
    }
    /// Self while in a write transaction (see `isInWriteTransaction`).
    private var keptForWrite: RealmCore?
    /// Incremented by `invalidate()`: objects bound before are invalidated.
    @exclusivity(unchecked) private(set) var epoch: UInt64 = 0

    /// Incremented whenever the transaction ends or advances: collection handles opened before
    /// are closed and must be reopened.
    private(set) var collectionGeneration: UInt64 = 0
    private var openCollections: [OpaquePointer] = []

    /// The tables of model classes, resolved once per class.
    private var tables: [ObjectIdentifier: TableInfo] = [:]
    private var tablesByKey: [ce_table_key: TableInfo] = [:]
    /// The tables read as DynamicObjects (`Realm.dynamicObjects(_:)`), by key: RealmCore+Dynamic.swift.
    var dynamicTables: [ce_table_key: TableInfo] = [:]
    /// With `objectTypes`: the classes the Realm may hold (their links included).
    private let allowedClasses: Set<ObjectIdentifier>?
    /// What the thread's or queue's instance cache refers to (see `RealmCoreCacheHandle`).
    fileprivate let cacheHandle = RealmCoreCacheHandle()

    /// The update policy of the `add` in progress (linked objects are added with it).
    @exclusivity(unchecked) private var addPolicy: ce_update_policy = CE_UPDATE_ERROR

    /// Reused by `add` (not by an add nested in another): the bytes of the new object's strings.
    private let scratchArena = _CArena()
    @exclusivity(unchecked) private var scratchArenaInUse = false

    /// An arena for one write: the reused one, or a new one while the reused one is lent out
    /// (a write that adds a linked object nests). Give it back with `returnArena`.
    func borrowArena() -> _CArena {
        if scratchArenaInUse { return _CArena() }
        scratchArenaInUse = true
        return scratchArena
    }

    func returnArena(_ arena: _CArena) {
        guard arena === scratchArena else { return }
        arena.reset()
        scratchArenaInUse = false
    }

    /// The table looked up last (adding many objects of one class looks up the same one).
    @exclusivity(unchecked) private var lastTable: TableInfo?

    // MARK: Opening

    /// The Realm instance of this thread (or, with `queue`, of this serial queue, which the
    /// caller must be running a block of) for `configuration`: the cached one, or a new one.
    static func instance(for configuration: Realm.Configuration, queue: DispatchQueue? = nil) throws(Realm.Error) -> RealmCore {
        validate(configuration)
        let key = configuration.storageKey
        var marker: QueueMarker?
        var queue = queue
        if let confining = queue {
            // A global queue is concurrent (its label names it; a concurrent queue of the
            // program's own cannot be told from a serial one on Linux).
            if confining.label.hasPrefix("com.apple.root.") {
                throwRealmException(
                    "Invalid queue '\(confining.label)' (OS_dispatch_queue_global): Realms can only be confined to serial queues or the main queue.")
            }
            let queueMarker = QueueMarker.of(confining)
            if !queueMarker.isCurrent { throwRealmException("Realm opened from incorrect dispatch queue.") }
            marker = queueMarker
        } else if QueueMarker.main.isCurrent {
            // The main thread, or a block of the main queue: confined to the main queue (see
            // DeliveryContext).
            queue = DispatchQueue.main
            marker = QueueMarker.main
        }
        let cached: RealmCore?
        if let marker {
            cached = marker.realms[key]?.core
        } else if let cache = Thread.current.threadDictionary[threadRealmsKey] as? ThreadRealms {
            cached = cache.realms[key]?.core
        } else {
            cached = nil
        }
        if let core = cached {
            try checkSameOptions(core, configuration)
            return core
        }
        let core = try RealmCore(configuration: configuration, queue: queue, marker: marker)
        core.cacheHandle.core = core
        if let marker {
            marker.realms[key] = WeakRealmCore(handle: core.cacheHandle)
        } else {
            let cache: ThreadRealms
            if let existing = Thread.current.threadDictionary[threadRealmsKey] as? ThreadRealms {
                cache = existing
            } else {
                cache = ThreadRealms()
                Thread.current.threadDictionary[threadRealmsKey] = cache
            }
            cache.realms[key] = WeakRealmCore(handle: core.cacheHandle)
        }
        core.startObservingCommits()
        return core
    }

    /// Stops with Realm's message for a configuration Realm refuses as a programmer error, in the
    /// order Realm applies the settings: no file and no identifier, an empty path or identifier,
    /// a key that is not 64 bytes, `deleteRealmIfMigrationNeeded` with `readOnly`, the schema
    /// version Realm reserves (`UInt64.max`), `shouldCompactOnLaunch` with `readOnly`.
    static func validate(_ configuration: Realm.Configuration) {
        if let fileURL = configuration.fileURL {
            if fileURL.path.isEmpty { throwRealmException("Realm path must not be empty") }
        } else if let identifier = configuration.inMemoryIdentifier {
            if identifier.isEmpty { throwRealmException("In-memory identifier must not be empty") }
        } else {
            throwRealmException("A Realm Configuration must specify a path or an in-memory identifier.")
        }
        validateEncryptionKey(configuration.encryptionKey)
        if configuration.readOnly && configuration.deleteRealmIfMigrationNeeded {
            throwRealmException("Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
        }
        if configuration.schemaVersion == UInt64.max {
            throwRealmException("Cannot set schema version to \(UInt64.max) (RLMNotVersioned)")
        }
        if configuration.readOnly && configuration.shouldCompactOnLaunch != nil {
            throwRealmException("Cannot set `shouldCompactOnLaunch` when `readOnly` is set.")
        }
    }

    /// Stops with Realm's message unless `key` is nil or 64 bytes long.
    static func validateEncryptionKey(_ key: Data?) {
        if let key, key.count != 64 {
            throwRealmException("Encryption key must be exactly 64 bytes long")
        }
    }

    private static func differentKeyError(_ path: String) -> Realm.Error {
        Realm.Error(code: .fail, message: "Realm at path '\(path)' already opened with a different encryption key.")
    }

    private convenience init(configuration: Realm.Configuration, queue: DispatchQueue?, marker: QueueMarker?) throws(Realm.Error) {
        let context: DeliveryContext
        if let queue, let marker {
            context = DeliveryContext(queue: queue, marker: marker)
        } else {
            context = DeliveryContext()
        }
        try self.init(configuration: configuration, context: context, marker: marker,
                      threadIsOwner: marker == nil || Thread.isMainThread, isActor: false)
    }

    private init(configuration: Realm.Configuration, context: DeliveryContext, marker: QueueMarker?,
                 threadIsOwner: Bool, isActor: Bool) throws(Realm.Error) {
        self.configuration = configuration
        self.thread = pthread_self()
        self.threadIsOwner = threadIsOwner
        self.queueMarker = marker
        self.isActorIsolated = isActor
        self.context = context
        self.frozen = nil
        let (engine, allowed) = try RealmCore.openPrepared(configuration)
        allowedClasses = allowed
        self.engine = engine
    }

    /// Opens the file of `configuration` and brings its schema to the model classes (creating,
    /// checking, migrating; deleting the file first when `deleteRealmIfMigrationNeeded` says
    /// so): what opening an instance does before it has a context. Also the work
    /// `Realm.asyncOpen` does on a background thread. Returns the engine (open while it is
    /// referenced) and, with `objectTypes`, the classes the Realm may hold.
    static func openPrepared(_ configuration: Realm.Configuration) throws(Realm.Error) -> (StorageEngine, Set<ObjectIdentifier>?) {
        if configuration.readOnly && configuration.inMemoryIdentifier != nil {
            throw Realm.Error(code: .fail, message: "Realm cannot be both read-only and in-memory.")
        }
        var allowed: Set<ObjectIdentifier>?
        var modelClasses: [ObjectSchemaInfo]
        if let types = configuration.objectTypes {
            modelClasses = RealmCore.closure(types.map(ObjectSchemaInfo.of))
            allowed = Set(modelClasses.map { ObjectIdentifier($0.objectClass) })
        } else {
            modelClasses = ObjectSchemaInfo.defaultSchema
        }
        var engine: StorageEngine? = try RealmCore.openEngine(configuration)
        do {
            try RealmCore.prepareSchema(engine!, modelClasses, configuration)
        } catch let error where error.code == .schemaMismatch && configuration.deleteRealmIfMigrationNeeded
            && configuration.inMemoryIdentifier == nil && !configuration.readOnly
        {
            // Start again with an empty file, closed first; not while another Realm of this
            // process has it open (its handle would go on with a deleted file).
            let path = engine!.path
            engine = nil
            if RealmCore.isOpen(configuration) { throw error }
            engine = try RealmCore.reopenEmpty(path: path, configuration)
            try RealmCore.prepareSchema(engine!, modelClasses, configuration)
        }
        return (engine!, allowed)
    }

    /// The Realm instance isolated to `actor` for `configuration` (the caller runs isolated to
    /// it): the cached one, or a new one.
    static func instance(for configuration: Realm.Configuration, actor: any Actor) throws(Realm.Error) -> RealmCore {
        validate(configuration)
        let key = "\(ObjectIdentifier(actor))|" + configuration.storageKey
        if let core = actorRealms.withLock({ $0[key]?.value.core }) {
            try checkSameOptions(core, configuration)
            return core
        }
        let core = try RealmCore(configuration: configuration, context: DeliveryContext(actor: actor), marker: nil,
                                 threadIsOwner: false, isActor: true)
        core.cacheHandle.core = core
        let handle = UncheckedBox(WeakRealmCore(handle: core.cacheHandle))
        actorRealms.withLock { realms in
            // Entries of instances gone (their handle, weak, is nil; read from any thread safely).
            realms = realms.filter { $0.value.value.handle != nil }
            realms[key] = handle
        }
        core.startObservingCommits()
        return core
    }

    /// Checks a configuration against the instance `core` this thread (queue, actor) has cached
    /// for its file. As Realm's cache of a thread's Realms, other read permissions or another key
    /// are programmer errors (Realm's messages, with its `fileURL.path`); another schema version
    /// is thrown.
    private static func checkSameOptions(_ core: RealmCore, _ configuration: Realm.Configuration) throws(Realm.Error) {
        let path = configuration.fileURL?.path ?? "(null)"
        if core.configuration.readOnly != configuration.readOnly {
            throwRealmException("Realm at path '\(path)' already opened with different read permissions")
        }
        if core.configuration.encryptionKey != configuration.encryptionKey {
            throwRealmException("Realm at path '\(path)' already opened with different encryption key")
        }
        if core.configuration.schemaVersion != configuration.schemaVersion {
            throw Realm.Error(code: .fail, message: "Realm at path '\(core.engine.path)' already opened with different schema version.")
        }
    }

    /// A frozen instance reading the version `live` reads (in a write transaction: the version the
    /// write began on, the latest committed one). Its `txn` pins the version while it lives.
    init(freezing live: RealmCore) {
        live.checkThread()
        configuration = live.configuration
        engine = live.engine
        thread = pthread_self()
        threadIsOwner = true
        queueMarker = nil
        isActorIsolated = false
        context = live.context
        allowedClasses = live.allowedClasses
        var raw: OpaquePointer?
        let ok: Bool
        if live.isFrozen {
            ok = ce_txn_begin_read_at(engine.handle, live.frozen.unsafelyUnwrapped.version, &raw)
        } else if live.isInWriteTransaction {
            ok = ce_txn_begin_read(engine.handle, &raw)
        } else {
            ok = ce_txn_begin_read_at(engine.handle, ce_txn_version(live.currentTxn()), &raw)
        }
        guard ok, let raw else { engineFailure("Cannot freeze the Realm") }
        txn = raw
        frozen = FrozenState(version: ce_txn_version(raw))
    }

    /// Whether a Realm of `configuration`'s file is open in this process (on any thread).
    static func isOpen(_ configuration: Realm.Configuration) -> Bool {
        openEngines.withLock { engines in
            [configuration.storageKey, configuration.storageKey + "#ro"].contains { engines[$0]?.engine != nil }
        }
    }

    /// Serializes the opening of files in this process: two threads opening one file at once
    /// (two async opens) would otherwise both miss `openEngines` and open two handles, racing to
    /// create it.
    private static let openLock = NSLock()

    private static func openEngine(_ configuration: Realm.Configuration) throws(Realm.Error) -> StorageEngine {
        openLock.lock()
        defer { openLock.unlock() }
        let key = configuration.storageKey + (configuration.readOnly ? "#ro" : "")
        let open = openEngines.withLock { engines -> WeakEngine? in
            // Either mode's handle has the key of the file.
            for name in [key, configuration.storageKey, configuration.storageKey + "#ro"] {
                if let entry = engines[name], entry.engine != nil { return entry }
            }
            return nil
        }
        if let open, let engine = open.engine {
            if open.encryptionKey != configuration.encryptionKey { throw differentKeyError(engine.path) }
            if let same = openEngines.withLock({ $0[key]?.engine }) { return same }
        }
        let engine: StorageEngine
        let maxVersions = UInt64(configuration.maximumNumberOfActiveVersions ?? 0)
        let encryptionKey = configuration.encryptionKey.map { [UInt8]($0) }
        let url = configuration.fileURL ?? Realm.Configuration.defaultFileURL
        try configuration.copySeedFileIfNeeded()
        do {
            if let identifier = configuration.inMemoryIdentifier {
                engine = try StorageEngine(inMemoryIdentifier: identifier, maxActiveVersions: maxVersions, encryptionKey: encryptionKey)
            } else {
                engine = try StorageEngine(path: url.path, options: .init(
                    readOnly: configuration.readOnly, createIfMissing: !configuration.readOnly,
                    durability: .full, maxActiveVersions: maxVersions, encryptionKey: encryptionKey))
            }
        } catch {
            throw Realm.Error(opening: error, path: configuration.inMemoryIdentifier == nil ? url.path : nil,
                              fileURL: configuration.fileURL)
        }
        // The first open of the file in this process (no handle of either mode is open).
        if open == nil, configuration.inMemoryIdentifier == nil, let shouldCompact = configuration.shouldCompactOnLaunch {
            // The process's previous engine of the file may still be closing on another thread.
            StorageEngine.waitForClosing(path: engine.path)
            try compactOnLaunch(engine, shouldCompact, configuration)
        }
        openEngines.withLock { $0[key] = WeakEngine(engine: engine, encryptionKey: configuration.encryptionKey) }
        return engine
    }

    /// Asks `shouldCompact` with the file's total and used bytes, and compacts the file when it
    /// says so, unless another process has the file open (then it opens as it is, as in Realm).
    private static func compactOnLaunch(
        _ engine: StorageEngine, _ shouldCompact: @Sendable (Int, Int) -> Bool, _ configuration: Realm.Configuration
    ) throws(Realm.Error) {
        do {
            let (total, used) = try engine.sizeInfo()
            guard shouldCompact(Int(clamping: total), Int(clamping: used)) else { return }
            try engine.compact()
        } catch where error.code == .alreadyOpen {
            return
        } catch {
            throw Realm.Error(error, fileURL: configuration.fileURL)
        }
    }

    /// Deletes the file at `path` (it must not be open elsewhere) and opens it anew.
    private static func reopenEmpty(path: String, _ configuration: Realm.Configuration) throws(Realm.Error) -> StorageEngine {
        let key = configuration.storageKey
        openEngines.withLock { _ = $0.removeValue(forKey: key) }
        // The previous engine was released by the caller; make sure it is gone from the registry.
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + ".lock")
        return try openEngine(configuration)
    }

    deinit {
        // The thread's cache must stop handing this instance out before anything else (its
        // reference is unowned(unsafe), see RealmCoreCacheHandle). A live Realm is released on its own
        // thread or queue unless the program sends one to another thread, which Realm forbids; only then
        // could a lookup on its thread race with this line.
        cacheHandle.core = nil
        stopNotifications()
        closeCollections()
        // The other threads' transactions first: `txn` pins the version they began at. Nothing
        // uses them any more (the instance is going away).
        frozen?.endTransactions()
        if let txn { ce_txn_end(txn) }
        // A write transaction from the write lock's thread: it may serve the next request.
        if asyncWrites.lockHeld { asyncWrites.lock?.released() }
    }

    // MARK: Threads and transactions

    /// Stops unless called on the thread the Realm was opened on, or, for a queue-confined
    /// Realm, in a block of its queue (a frozen Realm may be used on any thread).
    @inline(__always)
    func checkThread() {
        if !isOnOwnThread && frozen == nil {
            wrongThread()
        }
    }

    /// Whether the caller is on the instance's thread (or in a block of its queue). The common
    /// case, an instance on the thread that opened it (the main thread included), is one
    /// comparison.
    @inline(__always)
    var isOnOwnThread: Bool {
        (threadIsOwner && pthread_equal(thread, pthread_self()) != 0) || isOnOwnQueue
    }

    private var isOnOwnQueue: Bool {
        if let queueMarker { return queueMarker.isCurrent }
        return isActorIsolated && context.isCurrent
    }

    private func wrongThread() -> Never {
        throwRealmException("Realm accessed from incorrect thread.")
    }

    /// The current transaction, beginning a read transaction if there is none. On another thread
    /// than the instance's: the thread's own transaction of a frozen instance.
    func currentTxn() -> OpaquePointer {
        if !isOnOwnThread { return otherThreadTxn() }
        if let txn { return txn }
        var raw: OpaquePointer?
        guard ce_txn_begin_read(engine.handle, &raw), let raw else { engineFailure("Cannot begin a read transaction") }
        txn = raw
        return raw
    }

    /// Begins the read transaction at `version` when the (live) instance has none; whether it did.
    /// For `resolve(_:)`: a Realm that is not reading yet reads a reference's version. The engine
    /// begins at an older version only while a transaction of the same handle pins it (the
    /// reference's frozen Realm does when both share the handle); otherwise the Realm reads the
    /// latest version, as if the reference had been made there.
    func beginReadIfIdle(at version: UInt64) -> Bool {
        guard frozen == nil, !isInWriteTransaction, isOnOwnThread, txn == nil else { return false }
        var raw: OpaquePointer?
        guard ce_txn_begin_read_at(engine.handle, version, &raw), let raw else { return false }
        txn = raw
        return true
    }

    /// The transaction of a frozen instance for a thread other than its own; stops for a live one.
    private func otherThreadTxn() -> OpaquePointer {
        guard let frozen else { wrongThread() }
        return frozen.transaction(engine)
    }

    /// Stops with Realm's message for a change to frozen data (called when not in a write).
    private func checkNotFrozen() {
        if frozen != nil {
            throwRealmException("Attempting to modify a frozen object - call thaw on the Object instance first.")
        }
    }

    /// The transaction to read a property of `object` in; stops if the object is invalidated.
    @inline(__always)
    func txn(for object: ObjectBase) -> OpaquePointer {
        txn(epoch: object._epoch)
    }

    /// The transaction to read in, for something bound at `boundEpoch`.
    @inline(__always)
    func txn(epoch boundEpoch: UInt64) -> OpaquePointer {
        if boundEpoch != epoch { throwRealmException(invalidatedObjectMessage) }
        return currentTxn()
    }

    /// The write transaction, for something bound at `boundEpoch`.
    @inline(__always)
    func writeTxn(epoch boundEpoch: UInt64) -> OpaquePointer {
        checkThread()
        if boundEpoch != epoch { throwRealmException(invalidatedObjectMessage) }
        if !isInWriteTransaction {
            checkNotFrozen()
            throwRealmException(writeOutsideTransactionMessage)
        }
        return txn.unsafelyUnwrapped
    }

    /// The write transaction to change `object` in; stops outside a write transaction.
    @inline(__always)
    func writeTxn(for object: ObjectBase) -> OpaquePointer {
        checkWrite(object)
        return txn.unsafelyUnwrapped
    }

    /// Stops unless a change to `object` is allowed now.
    func checkWrite(_ object: ObjectBase) {
        checkThread()
        if object._epoch != epoch { throwRealmException(invalidatedObjectMessage) }
        if !isInWriteTransaction {
            checkNotFrozen()
            throwRealmException(writeOutsideTransactionMessage)
        }
    }

    /// Stops unless in a write transaction (adding, creating, deleting).
    @inline(__always)
    func checkInWrite() {
        checkThread()
        if !isInWriteTransaction {
            throwRealmException(
                "Can only add, remove, or create objects in a Realm in a write transaction - call beginWriteTransaction on an RLMRealm instance first.")
        }
    }

    /// Whether the object still exists (its Realm not invalidated, its row not deleted).
    func objectExists(_ object: ObjectBase, _ table: TableInfo) -> Bool {
        objectExists(epoch: object._epoch, table: table, key: object._key)
    }

    /// Whether the row `key` of `table`, bound at `boundEpoch`, still exists.
    func objectExists(epoch boundEpoch: UInt64, table: TableInfo, key: ce_object_key) -> Bool {
        if boundEpoch != epoch { return false }
        var exists = false
        guard ce_object_exists(currentTxn(), table.tableKey, key, &exists) else { return false }
        return exists
    }

    /// A collection handle, closed when the transaction ends or advances. (Frozen instances
    /// keep their handles per thread: see `FrozenState.collection`.)
    func register(_ collection: OpaquePointer) {
        openCollections.append(collection)
    }

    private func closeCollections() {
        for collection in openCollections { ce_collection_close(collection) }
        openCollections.removeAll(keepingCapacity: true)
        collectionGeneration &+= 1
    }

    private func endTransaction() {
        closeCollections()
        if let txn {
            // A write transaction ends at once (it holds the writer lock; no change set borrows it).
            if isInWriteTransaction { ce_txn_end(txn) } else { endRead(txn) }
        }
        txn = nil
        isInWriteTransaction = false
    }

    /// Ends the read transaction `transaction`, or, while notifications are being delivered (a
    /// change set may borrow it), once the delivery is over.
    func endRead(_ transaction: OpaquePointer) {
        if notify.isDelivering {
            notify.deferredEnds.append(transaction)
        } else {
            ce_txn_end(transaction)
        }
    }

    /// Begins a write transaction. As in Realm, the Realm first moves to the latest version and
    /// delivers the notifications of that (unless called from a notification block). The
    /// asynchronous writes queued before it run first (see `takeWriteAfterAsyncWrites`).
    func beginWrite() throws(Realm.Error) {
        if frozen != nil { throwRealmException("Can't perform transactions on a frozen Realm") }
        checkThread()
        if isInWriteTransaction { throwRealmException("The Realm is already in a write transaction") }
        if configuration.readOnly { throwRealmException("Can't perform transactions on read-only Realms.") }
        if !notify.isDelivering {
            deliverPending(runningWork: false)
            _ = advance()
            // A notification block may have begun a write of its own.
            if isInWriteTransaction { throwRealmException("The Realm is already in a write transaction") }
        }
        if let granted = try takeWriteAfterAsyncWrites() {
            enterWrite(granted, fromLock: true)
            return
        }
        if isInWriteTransaction { throwRealmException("The Realm is already in a write transaction") }
        var raw: OpaquePointer?
        guard ce_txn_begin_write(engine.handle, &raw), let raw else {
            throw Realm.Error.last(fileURL: configuration.fileURL)
        }
        enterWrite(raw, fromLock: false)
    }

    /// Makes `raw`, a write transaction begun at the latest version, the instance's transaction.
    /// `fromLock`: it came from the write lock's thread, which is told when it ends.
    func enterWrite(_ raw: OpaquePointer, fromLock: Bool) {
        // With observers, the read transaction stays open: the version they heard of last, for
        // the delivery of the commit.
        if let read = txn, hasObservers {
            closeCollections()
            notify.writeBase = read
            txn = nil
        } else {
            endTransaction()
        }
        txn = raw
        isInWriteTransaction = true
        asyncWrites.lockHeld = fromLock
    }

    /// Commits the write transaction; then the `Realm.observe` blocks get `.didChange`, at once
    /// (as in Realm), except those of `tokens`. The observers hear of the commit later on the
    /// instance's context (as Realm schedules collection notifications), or at the next refresh
    /// or write if that comes first.
    ///
    /// `allowGrouping` (`commitAsyncWrite(allowGrouping: true)`): the commit may share its durable
    /// sync with other commits: it is then visible at once and durable once `ce_db_sync` returns
    /// for `asyncWrites.groupedVersion` (`commitAsyncWrite` waits for that).
    func commitWrite(withoutNotifying tokens: [NotificationToken] = [], allowGrouping: Bool = false) throws(Realm.Error) {
        checkThread()
        guard isInWriteTransaction, let txn else { throwRealmException("Can't commit a non-existing write transaction") }
        for token in tokens where token.core !== self {
            throwRealmException("Incorrect Realm: only notifications for the Realm being modified can be skipped.")
        }
        closeCollections()
        self.txn = nil
        isInWriteTransaction = false
        var version: UInt64 = 0
        asyncWrites.groupedVersion = 0
        guard allowGrouping ? ce_txn_commit_grouped(txn, &version) : ce_txn_commit(txn) else {
            // A failed commit leaves the transaction to be ended (rolled back).
            let error = Realm.Error.last(fileURL: configuration.fileURL)
            ce_txn_end(txn)
            self.txn = notify.writeBase
            notify.writeBase = nil
            writeTransactionEnded()
            throw error
        }
        if allowGrouping { asyncWrites.groupedVersion = version }
        writeTransactionEnded()
        // The instance reads the new version now and stays there until it refreshes, as Realm's
        // does (another thread's later commit must not show before that); the observers will
        // hear of base -> it.
        var raw: OpaquePointer?
        guard ce_txn_begin_read(engine.handle, &raw), let raw else { engineFailure("Cannot begin a read transaction") }
        self.txn = raw
        if let base = notify.writeBase {
            notify.writeBase = nil
            keepPendingVersion(base, skipping: tokens, schedule: true, ownCommit: true)
        }
        sendRealmNotification(.didChange, skipping: tokens)
    }

    func cancelWrite() {
        checkThread()
        guard isInWriteTransaction else { throwRealmException("Can't cancel a non-existing write transaction") }
        // Back to the version the write began on, which the instance reads until it refreshes
        // (as Realm's does): with observers the read transaction kept for them; without, one
        // begun while the write lock still holds that version the newest.
        var pinned = notify.writeBase
        if pinned == nil {
            var raw: OpaquePointer?
            guard ce_txn_begin_read(engine.handle, &raw), let raw else { engineFailure("Cannot begin a read transaction") }
            pinned = raw
        }
        endTransaction()
        writeTransactionEnded()
        txn = pinned
        notify.writeBase = nil
        // Tables created in the cancelled transaction are gone.
        tables.removeAll()
        tablesByKey.removeAll()
        dynamicTables.removeAll()
        lastTable = nil
    }

    /// Writes a compacted copy of the version this Realm reads (in a write transaction: with its
    /// changes) to a new file at `url`, encrypted with `encryptionKey` or plain (see
    /// `Realm.writeCopy(toFile:encryptionKey:)`).
    func writeCopy(to url: URL, encryptionKey: Data?) throws(Realm.Error) {
        checkThread()
        RealmCore.validateEncryptionKey(encryptionKey)
        do {
            try StorageEngine.writeCopy(of: currentTxn(), to: url.path, encryptionKey: encryptionKey.map { [UInt8]($0) })
        } catch where error.code == .fileExists {
            throw Realm.Error(code: .fileExists, message: "File at path '\(url.path)' already exists.", fileURL: url)
        } catch {
            throw Realm.Error(error, fileURL: url)
        }
    }

    /// Moves the read transaction to the latest version and delivers the notifications of that;
    /// whether the version changed. A notification block that refreshes gets false (as in Realm).
    func refresh() -> Bool {
        checkThread()
        // A frozen Realm reads its version forever.
        guard frozen == nil, !isInWriteTransaction, !notify.isDelivering else { return false }
        deliverPending()
        return advance()
    }

    /// Moves the read transaction to the latest version, then sends `.didChange` to the
    /// `Realm.observe` blocks if it changed; whether it did. No read transaction: nothing to move
    /// (the next read begins at the latest version).
    func advance() -> Bool {
        guard frozen == nil, !isInWriteTransaction, let txn else { return false }
        let before = ce_txn_version(txn)
        var latest: UInt64 = 0
        guard ce_db_latest_version(engine.handle, &latest) else { engineFailure("Cannot refresh the Realm") }
        if latest == before { return false }
        // The observers need the version they heard of: a read transaction kept there.
        var old: OpaquePointer?
        if hasObservers {
            guard ce_txn_begin_read_at(engine.handle, before, &old) else { engineFailure("Cannot refresh the Realm") }
        }
        closeCollections()
        guard ce_txn_advance(txn) else {
            if let old { ce_txn_end(old) }
            engineFailure("Cannot refresh the Realm")
        }
        // Read before the observers run: one may begin a write, which moves `txn` away.
        let moved = ce_txn_version(txn) != before
        if let old {
            if moved { notifyObservers(old: old, skipping: []) }
            endRead(old)
        }
        guard moved else { return false }
        sendRealmNotification(.didChange)
        return true
    }

    func invalidate() {
        checkThread()
        // A frozen Realm keeps its version (frozen objects stay readable, as in Realm).
        if frozen != nil { return }
        if isInWriteTransaction { cancelWrite() }
        if let read = txn, hasObservers {
            // The version the observers heard of last stays, for their next delivery.
            closeCollections()
            txn = nil
            keepPendingVersion(read, skipping: [], schedule: false)
        } else {
            endTransaction()
        }
        epoch &+= 1
    }

    // MARK: Tables of classes

    /// The table of `cls`, or nil if the file has none (yet). In a write transaction, a missing
    /// table is created.
    func tableInfo(for cls: ObjectBase.Type) -> TableInfo? {
        if let frozen {
            return frozen.lock.withLock { tables[ObjectIdentifier(cls)] ?? resolveTable(for: cls) }
        }
        if let lastTable, lastTable.schema.objectClass == cls { return lastTable }
        if let known = tables[ObjectIdentifier(cls)] {
            lastTable = known
            return known
        }
        let table = resolveTable(for: cls)
        if let table { lastTable = table }
        return table
    }

    /// Looks up the table of `cls` in the file (created in a write transaction if missing) and
    /// checks it against the class; remembers it.
    private func resolveTable(for cls: ObjectBase.Type) -> TableInfo? {
        // DynamicObjects read a table of their own name (RealmCore+Dynamic.swift), not one named
        // after their class.
        if cls == DynamicObject.self || allowedClasses.map({ !$0.contains(ObjectIdentifier(cls)) }) ?? false {
            let name = ObjectSchemaInfo.className(of: cls)
            throwRealmException(
                "Object type '\(name)' is not managed by the Realm. If using a custom `objectClasses` / `objectTypes` array in your configuration, add `\(name)` to the list of `objectClasses` / `objectTypes`.")
        }
        let info = ObjectSchemaInfo.of(cls)
        info.validateLinkingObjects()
        let txn = currentTxn()
        do {
            var stored = try SchemaReader.table(txn, named: info.className)
            if stored == nil {
                guard isInWriteTransaction else { return nil }
                try RealmCore.createTables(txn, RealmCore.closure([info]))
                stored = try SchemaReader.table(txn, named: info.className)
            }
            guard let stored else { return nil }
            let differences = SchemaReader.differences(info, stored)
            if !differences.isEmpty {
                var message = "Migration is required due to the following errors:\n" + differences.map { "- " + $0 }.joined(separator: "\n")
                if configuration.objectTypes == nil {
                    message += "\n'\(info.className)' is not in the default schema (another model class has its name, its "
                        + "_realmIgnoreClass() is true or its shouldIncludeInDefaultSchema() false): list it in "
                        + "Realm.Configuration.objectTypes to migrate it when the Realm opens."
                }
                throwRealmException(message)
            }
            let columns = info.properties.enumerated().map { index, property in
                _ManagedColumn(key: stored.properties[property.columnName]?.column ?? 0, property: index)
            }
            let table = TableInfo(schema: info, tableKey: stored.key, columns: columns, slotCount: stored.slotCount)
            tables[ObjectIdentifier(cls)] = table
            tablesByKey[stored.key] = table
            return table
        } catch {
            throwRealmException(error.message)
        }
    }

    /// The table of `cls`, created if needed (in a write transaction).
    func requireTableInfo(for cls: ObjectBase.Type) -> TableInfo {
        guard let table = tableInfo(for: cls) else {
            throwRealmException("Object type '\(ObjectSchemaInfo.className(of: cls))' has no table in the Realm.")
        }
        return table
    }

    /// The table info of a table key (a link read from a mixed value names only the table).
    func tableInfo(forKey key: ce_table_key) -> TableInfo {
        if let frozen { return frozen.lock.withLock { resolveTable(forKey: key) } }
        return resolveTable(forKey: key)
    }

    private func resolveTable(forKey key: ce_table_key) -> TableInfo {
        if let known = tablesByKey[key] { return known }
        let (name, info) = modelClass(forKey: key)
        guard let info else {
            throwRealmException("No model class for the objects of type '\(name)' in this program.")
        }
        return requireTableInfo(for: info.objectClass)
    }

    /// The name of the table `key` and the model class this Realm reads it as: the
    /// configuration's class of that name, else one whose properties match the table (two classes
    /// of a program may have one name); nil when the program has none or `objectTypes` leaves it out.
    func modelClass(forKey key: ce_table_key) -> (name: String, info: ObjectSchemaInfo?) {
        if let known = tablesByKey[key] { return (known.schema.className, known.schema) }
        var cName: UnsafePointer<CChar>?
        guard ce_table_name(currentTxn(), key, &cName), let cName else { engineFailure() }
        let name = String(cString: cName)
        let named = ((configuration.objectTypes?.map(ObjectSchemaInfo.of) ?? []) + ObjectSchemaInfo.defaultSchema + ObjectSchemaInfo.known)
            .filter { $0.className == name && (allowedClasses?.contains(ObjectIdentifier($0.objectClass)) ?? true) }
        let stored = try? SchemaReader.table(currentTxn(), key: key)
        let matching = configuration.objectTypes == nil
            ? named.first { info in stored.map { SchemaReader.differences(info, $0).isEmpty } ?? false } : nil
        return (name, matching ?? named.first)
    }

    /// The classes whose tables this Realm has resolved, and those of its configuration.
    var schemaInfos: [ObjectSchemaInfo] {
        if let types = configuration.objectTypes { return RealmCore.closure(types.map(ObjectSchemaInfo.of)) }
        var infos = frozen.map { frozen in frozen.lock.withLock { tables.values.map(\.schema) } } ?? tables.values.map(\.schema)
        let txn = currentTxn()
        // The default schema's class of a name first (another class may map to its table).
        for info in ObjectSchemaInfo.defaultSchema + ObjectSchemaInfo.known where !infos.contains(where: { $0.className == info.className }) {
            if (try? SchemaReader.table(txn, named: info.className)) ?? nil != nil { infos.append(info) }
        }
        return infos.sorted { $0.className < $1.className }
    }

    // MARK: Objects

    /// A managed accessor for the object `key` of `table`.
    func makeObject(_ table: TableInfo, _ key: ce_object_key) -> ObjectBase {
        // Tokens count from 0 for this instance even if a stray wrapper was made outside an object.
        resetPersistedTokens()
        // Its wrappers mark themselves managed (a default value's object, made during the init,
        // gets the mark too; it is never read: the accessor reads the database).
        let object = initializingManagedAccessor { table.schema.objectClass.init() }
        object.bind(self, table, key)
        return object
    }

    /// The accessor of a link's target, typed as `cls` (or its table's class).
    func object(ofClass cls: ObjectBase.Type, link: ce_link) -> ObjectBase {
        if cls == DynamicObject.self { return makeObject(dynamicTableInfo(forKey: link.table), link.key) }
        if let table = tables[ObjectIdentifier(cls)], table.tableKey == link.table {
            return makeObject(table, link.key)
        }
        return makeObject(tableInfo(forKey: link.table), link.key)
    }

    /// Adds an unmanaged object (and, recursively, the unmanaged objects it links to).
    func add(_ object: ObjectBase, policy: ce_update_policy) {
        add(object, policy: policy, in: Realm(self))
    }

    /// `add(_:policy:)` with the caller's `Realm` of this instance (`Realm.add` passes itself: no
    /// new `Realm`, so no retain, per object).
    func add(_ object: ObjectBase, policy: ce_update_policy, in realm: Realm) {
        checkInWrite()
        if let core = object._core {
            // Realm's order: a deleted or invalidated object first, then the Realm it belongs to.
            if object.isInvalidated { throwRealmException("Adding a deleted or invalidated object to a Realm is not permitted") }
            if core === self { return }
            throwRealmException("Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        }
        // Adding many objects of one class finds its (non-embedded) table cached: no type check.
        // The table and its schema live as long as this instance (`tables` holds them): no
        // reference counting on them here.
        unowned(unsafe) let table: TableInfo
        if let last = lastTable, last.schema.objectClass == type(of: object), !last.schema.isEmbedded {
            table = last
        } else {
            if object is EmbeddedObject {
                throwRealmException("Cannot add an embedded object to a Realm directly: assign it to a property of an object instead.")
            }
            // Realm's RLMAddObjectToRealm words a class outside the schema this way.
            if let allowedClasses, !allowedClasses.contains(ObjectIdentifier(type(of: object))) {
                let name = ObjectSchemaInfo.className(of: type(of: object))
                throwRealmException(
                    "Object type '\(name)' is not persisted in the Realm. If using a custom `objectClasses` / `objectTypes` array in your configuration, add `\(name)` to the list of `objectClasses` / `objectTypes`.")
            }
            table = requireTableInfo(for: type(of: object))
        }
        let previousPolicy = addPolicy
        addPolicy = policy
        defer { addPolicy = previousPolicy }
        // The scratch arena, unless an outer add (of a linking object) has it; the values on the
        // stack (a nested add has its own). The scratch arena is passed straight from its `let`
        // property: borrowed, not retained.
        // The table goes unretained too (a strong argument would cost a retain and a release).
        let tableRef = Unmanaged.passUnretained(table)
        if scratchArenaInUse {
            add(object, tableRef, policy, realm, _CArena())
        } else {
            scratchArenaInUse = true
            add(object, tableRef, policy, realm, scratchArena)
            scratchArena.reset()
            scratchArenaInUse = false
        }
    }

    private func add(_ object: ObjectBase, _ tableRef: Unmanaged<TableInfo>, _ policy: ce_update_policy, _ realm: Realm, _ arena: _CArena) {
        tableRef._withUnsafeGuaranteedRef { table in add(object, table, policy, realm, arena) }
    }

    @inline(__always)
    private func add(_ object: ObjectBase, _ table: TableInfo, _ policy: ce_update_policy, _ realm: Realm, _ arena: _CArena) {
        unowned(unsafe) let schema = table.schema
        let base = Unmanaged.passUnretained(object).toOpaque()
        var key: ce_object_key = 0
        var created = true
        let fields = table.creationFields
        let ok = withUnsafeTemporaryAllocation(of: ce_value.self, capacity: table.slotCount) { values -> Bool in
            values.initialize(repeating: .null)
            for field in fields {
                let pointer = base + field.offset
                let value: ce_value
                // The common types by a direct call, inlined (`.other` has every type needing
                // work after the object is created: `keep` is false for the others).
                switch field.kind {
                case .int: value = Int._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .int64: value = Int64._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .double: value = Double._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .float: value = Float._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .bool: value = Bool._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .string: value = String._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .optionalInt: value = Int?._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .optionalDouble: value = Double?._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .optionalString: value = String?._rlmTakeCreationValue(at: pointer, arena, realm, keep: false, token: field.token)
                case .other: value = field.field._rlmTakeCreationValue(at: pointer, arena, realm, keep: field.needsAfterCreate, token: field.token)
                }
                values[Int(field.column.key)] = value
            }
            // With `.error`, ce_object_create_or_update only calls ce_object_create_with_values
            // (after looking up the table once more): called directly.
            // `.modified` keeps the embedded objects, updated in place after (see setEmbedded).
            let enginePolicy = policy == CE_UPDATE_MODIFIED && table.hasEmbeddedLink ? CE_UPDATE_MODIFIED_KEEP_EMBEDDED : policy
            let ok = schema.primaryKey != nil && policy != CE_UPDATE_ERROR
                ? ce_object_create_or_update(txn, table.tableKey, values.baseAddress, values.count, enginePolicy, &key, &created)
                : ce_object_create_with_values(txn, table.tableKey, values.baseAddress, values.count, &key)
            if !ok, ce_last_error_code() == CE_ERR_DUPLICATE_PRIMARY_KEY, let pk = schema.primaryKey {
                let value = values[Int(table.columns[pk].key)]
                let text = value.type == CE_TYPE_STRING ? value.stringValue : (value.isNull ? "null" : value.debugText)
                throwRealmException(
                    "Attempting to create an object of type '\(schema.className)' with an existing primary key value '\(text)'.")
            }
            return ok
        }
        guard ok else { engineFailure("Cannot add an object of type '\(schema.className)'") }
        object.bind(self, table, key)
        if table.anyNeedsAfterCreate {
            for field in fields where field.needsAfterCreate {
                field.field._rlmAfterCreateField(at: base + field.offset, object, field.column, replace: !created)
            }
        }
        withExtendedLifetime(object) {}
    }

    /// Adds an unmanaged object that a link being written points to.
    func addForLink(_ object: ObjectBase) {
        add(object, policy: addPolicy)
    }

    /// Whether the add in progress updates existing objects with `.modified`: their embedded
    /// objects are then updated in place, as Realm's (realm-core's CreatePolicy::UpdateModified).
    var isAddingModified: Bool { addPolicy == CE_UPDATE_MODIFIED }

    /// Writes an embedded object (or nil) into a link property of `object`. With
    /// `updateExisting`, an embedded object the property already holds takes the new values
    /// (and the unmanaged object becomes its accessor) instead of being replaced.
    func setEmbedded(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Any, updateExisting: Bool = false) {
        let txn = writeTxn(for: object)
        if updateExisting, let embedded = embeddedObject(value), embedded._table == nil {
            var current = ce_value()
            guard ce_object_get(txn, object._tableKey, object._key, column.key, &current) else { engineFailure() }
            if current.type == CE_TYPE_LINK {
                fill(embedded, requireTableInfo(for: type(of: embedded)), current.link.key, inPlace: true)
                return
            }
        }
        guard let embedded = embeddedObject(value) else {
            var null = ce_value.null
            guard ce_object_set(txn, object._tableKey, object._key, column.key, &null) else { engineFailure() }
            return
        }
        if embedded._table != nil {
            // Realm's setLink: the embedded object the property already holds may be set again.
            if embedded._core === self, linkedKey(txn, object, column.key) == embedded._key { return }
            throwRealmException("Can't set link to existing managed embedded object")
        }
        var key: ce_object_key = 0
        guard ce_object_create_embedded(txn, object._tableKey, object._key, column.key, &key) else { engineFailure() }
        fill(embedded, requireTableInfo(for: type(of: embedded)), key)
    }

    /// The key of the object a to-one link property of `object` holds, or nil when it is null.
    func linkedKey(_ txn: OpaquePointer, _ object: ObjectBase, _ column: ce_column_key) -> ObjectKey? {
        var current = ce_value()
        guard ce_object_get(txn, object._tableKey, object._key, column, &current) else { engineFailure() }
        return current.type == CE_TYPE_LINK ? current.link.key : nil
    }

    /// Writes the values of an unmanaged object into the existing embedded object `key` and binds
    /// it: a new one (`inPlace` false), or one being updated by `add(_:update: .modified)`
    /// (`inPlace` true), whose own embedded objects and lists of them are updated in place too.
    func fill(_ object: ObjectBase, _ table: TableInfo, _ key: ce_object_key, inPlace: Bool = false) {
        let realm = Realm(self)
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
        let base = Unmanaged.passUnretained(object).toOpaque()
        for field in table.creationFields {
            var value = field.field._rlmTakeCreationValue(at: base + field.offset, arena, realm, keep: field.needsAfterCreate, token: field.token)
            // Collections (and, in place, links) are written after: a null set here would delete
            // the embedded object being updated.
            if value.isNull && (inPlace ? field.needsAfterCreate : field.isCollection) { continue }
            guard ce_object_set(txn, table.tableKey, key, field.column.key, &value) else {
                engineFailure("Property '\(table.schema.className).\(table.schema.properties[field.column.property].name)'")
            }
        }
        object.bind(self, table, key)
        for field in table.creationFields where field.needsAfterCreate {
            field.field._rlmAfterCreateField(at: base + field.offset, object, field.column, replace: inPlace)
        }
        withExtendedLifetime(object) {}
    }

    /// Deletes a managed object of this Realm.
    /// As in Realm, an object of another Realm (or unmanaged) is refused before the write
    /// transaction is checked, and an object already deleted (through another accessor) or
    /// invalidated is skipped.
    func delete(_ object: ObjectBase) {
        checkThread()
        // An accessor deleted before has no Realm any more (Realm's message for it too).
        guard object._core === self, !object._deletedThroughSelf, let table = object._table else {
            throwRealmException("Can only delete an object from the Realm it belongs to.")
        }
        checkInWrite()
        defer { object._deletedThroughSelf = true }
        if object._epoch != epoch { return }
        guard ce_object_delete(txn, table.tableKey, object._key) || ce_last_error_code() == CE_ERR_NO_SUCH_OBJECT else {
            engineFailure()
        }
    }

    /// Deletes every object of every top-level table.
    func deleteAll() {
        checkInWrite()
        let txn = currentTxn()
        var count = 0
        guard ce_table_count(txn, &count) else { engineFailure() }
        for table in 0..<count {
            var embedded = false
            guard ce_table_is_embedded(txn, ce_table_key(table), &embedded), !embedded else { continue }
            var objects = 0
            guard ce_object_count(txn, ce_table_key(table), &objects) else { continue }
            while objects > 0 {
                var key: ce_object_key = 0
                guard ce_object_key_at(txn, ce_table_key(table), objects - 1, &key),
                    ce_object_delete(txn, ce_table_key(table), key)
                else { engineFailure() }
                objects -= 1
            }
        }
    }

    /// Whether no top-level table has objects.
    var isEmpty: Bool {
        let txn = currentTxn()
        var count = 0
        guard ce_table_count(txn, &count) else { engineFailure() }
        for table in 0..<count {
            var embedded = false
            guard ce_table_is_embedded(txn, ce_table_key(table), &embedded), !embedded else { continue }
            var objects = 0
            if ce_object_count(txn, ce_table_key(table), &objects), objects > 0 { return false }
        }
        return true
    }
}
