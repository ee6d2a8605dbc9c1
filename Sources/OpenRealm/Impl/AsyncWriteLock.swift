// AsyncWriteLock.swift — the threads of an open file that wait on behalf of asynchronous
// writes: for the engine's write lock, and for the durable sync of grouped commits, so that no
// Realm's thread (a cooperative-pool thread of an actor, the main thread) ever blocks on them.
//
// Owns: the write-lock requests and the sync requests of one file in this process, and their
// threads.
// Never: touches a RealmCore or runs user code (a grant is handed to a closure that schedules
// the rest on the Realm's context).

import CEngine
import Foundation

/// One per open database (`StorageEngine`) in this process, started on first use. A request
/// (`request(_:_:)`) is served in order: the thread begins a write transaction
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
    /// one file go one after another, each covering every commit made before it began).
    private let syncQueue = DispatchQueue(label: "OpenRealm sync")

    private final class Shared: @unchecked Sendable {
        // @unchecked Sendable: every var is only touched under `condition`.
        let condition = NSCondition()
        var requests: [Request] = []
        /// Whether a transaction handed out is still open (the next request waits for it).
        var holding = false
        var stopping = false
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

    /// Makes `version` of `engine`'s file durable (`ce_db_sync`, one sync shared by the grouped
    /// commits made meanwhile), then calls `done` there with whether it succeeded (the error is
    /// the thread's last error).
    func sync(_ engine: StorageEngine, _ version: UInt64, _ done: @escaping @Sendable (Bool) -> Void) {
        syncQueue.async {
            done(ce_db_sync(engine.handle, version))
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
