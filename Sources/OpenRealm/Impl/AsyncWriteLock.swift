// AsyncWriteLock.swift — the threads of an open file that wait on behalf of asynchronous
// writes: for the engine's write lock when it is busy, and for the durable sync of grouped
// commits, so that no Realm's thread (a cooperative-pool thread of an actor, the main thread)
// ever blocks on them.
//
// Owns: the write-lock requests and the sync requests of one file in this process, and their
// threads.
// Never: touches a RealmCore or runs user code (a grant is handed to a closure that schedules
// the rest on the Realm's context).

import CEngine
import Foundation
import Synchronization

/// One per open database (`StorageEngine`) in this process, started on first use. Realm
/// instances begin the transactions of their queued blocks themselves while the lock is free
/// (`ce_txn_try_begin_write`); they ask here when it is busy, and for `asyncWrite` tasks. A
/// request (`request(_:_:)`) is served in order: the thread begins a write transaction
/// (`ce_txn_begin_write`, which waits while another thread or process writes) and hands it to
/// the request's `grant` closure, which sends it to the Realm's context; the thread then waits
/// for `released()` (the transaction was committed or ended, on the Realm's context) before it
/// serves the next request. A transaction belongs to one thread at a time, so it may be begun
/// here and used and committed there.
///
/// The Realm instances that write asynchronously hold it; when the last one goes, `deinit`
/// stops the thread once no request is waiting. A request keeps its engine open (its closure
/// holds it) until its transaction ends.
///
///     let lock = AsyncWriteLock.of(engine)
///     lock.request(engine) { txn, error in context.schedule { ... use txn; lock.released() } }
final class AsyncWriteLock: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is in `shared`, under its condition's lock.
    private let shared = Shared()
    /// Where `ce_db_sync` runs for grouped commits (a thread of its own; serial: the syncs of
    /// one file go one after another, each covering every commit made before it began). Tests
    /// hold it up with a block of their own.
    let syncQueue = DispatchQueue(label: "OpenRealm sync")
    /// How many transactions the lock's thread handed out, and how many `ce_db_sync` calls the
    /// syncer made (tests read them: queued blocks on a free lock need no hand-off, and grouped
    /// commits share syncs).
    var grantsHandedOut: Int { shared.grants.load(ordering: .relaxed) }
    var syncsMade: Int { syncs.load(ordering: .relaxed) }
    private let syncs = Atomic<Int>(0)

    private final class Shared: @unchecked Sendable {
        // @unchecked Sendable: every var is only touched under `condition`.
        let condition = NSCondition()
        var requests: [Request] = []
        /// Whether a transaction handed out is still open (the next request waits for it).
        var holding = false
        var stopping = false
        let grants = Atomic<Int>(0)
    }

    private struct Request {
        let engine: StorageEngine
        let grant: @Sendable (OpaquePointer?, Realm.Error?) -> Void
    }

    private static let registry = Registry()

    private final class Registry: @unchecked Sendable {
        // @unchecked Sendable: `locks` is only touched under `lock`.
        private let lock = NSLock()
        private var locks: [ObjectIdentifier: Weak] = [:]

        struct Weak { weak var lock: AsyncWriteLock? }

        func withLock<R>(_ body: (inout [ObjectIdentifier: Weak]) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(&locks)
        }
    }

    /// The write-lock thread of `engine`, started on first use.
    static func of(_ engine: StorageEngine) -> AsyncWriteLock {
        registry.withLock { locks in
            let key = ObjectIdentifier(engine)
            if let running = locks[key]?.lock { return running }
            let lock = AsyncWriteLock()
            locks[key] = Registry.Weak(lock: lock)
            return lock
        }
    }

    private init() {
        let thread = Thread { [shared] in AsyncWriteLock.run(shared) }
        thread.name = "OpenRealm write lock"
        thread.start()
    }

    deinit {
        shared.condition.lock()
        shared.stopping = true
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// Asks for the write transaction of `engine`: `grant` is called on the lock's thread with
    /// the transaction, or with the error of `ce_txn_begin_write` (then nothing is held). The
    /// receiver of a transaction must call `released()` once it has committed or ended it.
    func request(_ engine: StorageEngine, _ grant: @escaping @Sendable (OpaquePointer?, Realm.Error?) -> Void) {
        shared.condition.lock()
        shared.requests.append(Request(engine: engine, grant: grant))
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// The transaction handed out last was committed or ended (the engine's lock is free): the
    /// next request may be served.
    func released() {
        shared.condition.lock()
        shared.holding = false
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// The sync requests of one Realm instance: the newest grouped commit it wants durable, and
    /// whether a sync for it is queued or running; `done` is called on the syncer after each
    /// sync, with the version it covered and whether it succeeded (the error is the thread's
    /// last error).
    final class SyncTarget: @unchecked Sendable {
        // @unchecked Sendable: `wanted` and `inFlight` are only touched under `lock`.
        fileprivate let lock = NSLock()
        fileprivate var wanted: UInt64 = 0
        fileprivate var inFlight = false
        fileprivate let done: @Sendable (UInt64, Bool) -> Void

        init(_ done: @escaping @Sendable (UInt64, Bool) -> Void) { self.done = done }
    }

    /// Makes `version` of `engine`'s file durable for `target` (`ce_db_sync`, one sync shared
    /// by the grouped commits made meanwhile, of every instance and process). At most one sync
    /// of a target is queued or running: a request made meanwhile only raises the version the
    /// next one covers, which starts when that one returns (behind the other targets' syncs).
    func sync(_ engine: StorageEngine, _ version: UInt64, for target: SyncTarget) {
        target.lock.lock()
        target.wanted = max(target.wanted, version)
        let start = !target.inFlight
        target.inFlight = true
        target.lock.unlock()
        if start { scheduleSync(engine, target) }
    }

    private func scheduleSync(_ engine: StorageEngine, _ target: SyncTarget) {
        syncQueue.async { [self] in
            target.lock.lock()
            let version = target.wanted
            target.lock.unlock()
            let ok = ce_db_sync(engine.handle, version)
            syncs.add(1, ordering: .relaxed)
            target.done(version, ok)
            target.lock.lock()
            let again = target.wanted > version
            target.inFlight = again
            target.lock.unlock()
            if again { scheduleSync(engine, target) }
        }
    }

    /// The thread's loop: one request at a time, until stopped with nothing left to serve.
    private static func run(_ shared: Shared) {
        while true {
            shared.condition.lock()
            while (shared.requests.isEmpty || shared.holding) && !(shared.stopping && shared.requests.isEmpty) {
                shared.condition.wait()
            }
            if shared.requests.isEmpty {
                shared.condition.unlock()
                return
            }
            let request = shared.requests.removeFirst()
            shared.holding = true
            shared.condition.unlock()
            var raw: OpaquePointer?
            if ce_txn_begin_write(request.engine.handle, &raw), let raw {
                shared.grants.add(1, ordering: .relaxed)
                request.grant(raw, nil)
            } else {
                let error = Realm.Error.last(fileURL: nil)
                shared.condition.lock()
                shared.holding = false
                shared.condition.unlock()
                request.grant(nil, error)
            }
        }
    }
}
