// RealmCore+AsyncWrites.swift — the asynchronous writes of a live Realm instance: the queue of
// `beginAsyncWrite`/`writeAsync` blocks and `asyncWrite` tasks, their write transactions (begun
// on the instance's context while the lock is free, else handed over by the file's
// AsyncWriteLock thread), and the completions of `commitAsyncWrite`.

import CEngine
import Foundation

/// The asynchronous-write state of a live RealmCore (only touched on the instance's context,
/// but `grant`, which the lock's thread fills).
///
/// - Each queued entry needs the write lock. Queued blocks run back to back in a job of the
///   context (`RealmCore.runQueuedWrites`, up to `blocksPerJob` of them, then a new job), each
///   in a transaction begun there without waiting (`ce_txn_try_begin_write`) after refreshing
///   as `beginWrite` does. When the lock is busy (another thread, Realm or process writes), or
///   the first entry is a task, the instance asks the file's `AsyncWriteLock` thread, which
///   waits for the lock, for one transaction (`requested`) and runs the first entry in it when
///   it arrives (`RealmCore.asyncWriteGranted`), then goes on with the blocks after it. A block
///   that returns without committing is cancelled (Realm's rule); a task (`asyncWrite`) is
///   resumed and holds the transaction until it commits or cancels (its transaction always
///   comes from the lock's thread: the engine notes the thread that begins a write, and a task
///   may hold it across suspensions). When the transaction ends, the next entry is asked for.
/// - A synchronous `beginWrite` first runs the queued blocks, in order, in transactions of the
///   lock (never blocking on the engine's lock while the lock's thread holds it for this
///   instance), then takes the next transaction the lock hands out for itself.
/// - `commitAsyncWrite` commits at once (its changes are visible when it returns) and queues
///   its completion, called on the context after the commit is durable, in commit order. With
///   `allowGrouping` the commit is grouped (`ce_txn_commit_grouped`) and the file's syncer
///   thread makes it durable (`ce_db_sync`): at most one sync of the instance queued or running,
///   for the newest grouped commit when it starts, and one job on the context per sync, which
///   calls the completions it made durable in commit order.
final class AsyncWriteState {
    enum Work {
        /// A block of `beginAsyncWrite` (or `writeAsync`), run in the transaction.
        case block(() -> Void)
        /// An `asyncWrite` task waiting for its transaction: resumed with success, with
        /// `CancellationError` when cancelled first, or with the engine's error.
        case task(CheckedContinuation<Void, any Error>)
    }

    struct Entry {
        let id: AsyncTransactionId
        let work: Work
    }

    struct Completion {
        let id: AsyncTransactionId
        /// Nil once cancelled (`cancelAsyncWrite`): the commit still happened.
        var callback: ((Swift.Error?) -> Void)?
        var error: Swift.Error?
        /// The grouped commit's version, durable once `ce_db_sync` returned for it; 0 when the
        /// commit was durable when it returned (or failed).
        var version: UInt64
    }

    /// The last id handed out (ids count from 1, as Realm's).
    var lastId: AsyncTransactionId = 0
    var queue: [Entry] = []
    /// Whether a transaction was asked of the lock's thread and not taken yet.
    var requested = false
    /// Whether a job that runs the queued blocks is scheduled on the context.
    var runScheduled = false
    /// Whether the queued entries are being run (`runQueuedWrites`): the end of each
    /// transaction asks for nothing, the loop goes on.
    var running = false
    /// Whether the current write transaction came from the lock's thread (its end is reported
    /// to it).
    var lockHeld = false
    /// Whether the current write transaction was begun on the context for a queued block.
    var triedHeld = false
    /// The id of the block being run (cancelling it is a no-op, as in Realm).
    var runningId: AsyncTransactionId?
    /// Whether an `asyncWrite` task holds the current write transaction.
    var taskHoldsWrite = false
    var completions: [Completion] = []
    /// The version of the last grouped commit (`commitWrite(allowGrouping: true)`), not yet
    /// known to be durable; 0 after a commit that was durable when it returned.
    var groupedVersion: UInt64 = 0
    /// The latest version `ce_db_sync` returned for, for this instance.
    var durableVersion: UInt64 = 0
    /// The instance's sync requests to the file's syncer, made on its first grouped commit.
    var syncTarget: AsyncWriteLock.SyncTarget?
    var completionsScheduled = false
    /// The file's lock thread, once the instance wrote asynchronously.
    var lock: AsyncWriteLock?
    /// Where the lock's thread leaves the transaction it hands out.
    let grant = WriteGrant()

    /// How many queued blocks one job of the context runs before it lets the context's other
    /// work (completions, notifications, other tasks of the actor) run.
    static let blocksPerJob = 32

    /// How many commits may wait for their completion (grouped commits not yet durable) before
    /// the queued blocks wait for the sync running: a group then fits in one header slot's run
    /// list, and the space commits free is reused soon (the engine reuses it only once a later
    /// version is durable; unbounded groups grew a 10,000-commit burst's file to 1 GB).
    static let maxPendingCompletions = 64

    /// Whether queued blocks must wait for completions (see `maxPendingCompletions`).
    var completionsFull: Bool { completions.count >= AsyncWriteState.maxPendingCompletions }

    func nextId() -> AsyncTransactionId {
        lastId &+= 1
        return lastId
    }

    /// Whether the instance has asynchronous work left (`isPerformingAsynchronousWriteOperations`).
    var isBusy: Bool {
        !queue.isEmpty || requested || runningId != nil || taskHoldsWrite || !completions.isEmpty
    }
}

/// The transaction (or the error) the lock's thread hands to one instance: filled there, taken
/// on the instance's context, by the scheduled delivery or by a synchronous write that waits.
final class WriteGrant: @unchecked Sendable {
    // @unchecked Sendable: the vars are only touched under `condition`.
    private let condition = NSCondition()
    private var ready = false
    private var txn: OpaquePointer?
    private var error: Realm.Error?

    func put(_ txn: OpaquePointer?, _ error: Realm.Error?) {
        condition.lock()
        self.txn = txn
        self.error = error
        ready = true
        condition.broadcast()
        condition.unlock()
    }

    /// The grant if it arrived (and it is taken), else nil.
    func take() -> (OpaquePointer?, Realm.Error?)? {
        condition.lock()
        defer { condition.unlock() }
        return takeLocked()
    }

    /// Waits for the grant and takes it.
    func wait() -> (OpaquePointer?, Realm.Error?) {
        condition.lock()
        defer { condition.unlock() }
        while !ready { condition.wait() }
        return takeLocked()!
    }

    private func takeLocked() -> (OpaquePointer?, Realm.Error?)? {
        guard ready else { return nil }
        ready = false
        defer { txn = nil; error = nil }
        return (txn, error)
    }
}

extension RealmCore {
    // MARK: Queueing

    /// Queues `block` to run in a write transaction of its own, on the context, once the lock's
    /// thread has the write lock (`beginAsyncWrite`). Returns its id.
    func beginAsyncWrite(_ block: @escaping () -> Void) -> AsyncTransactionId {
        checkAsyncWriteAllowed()
        let id = asyncWrites.nextId()
        asyncWrites.queue.append(AsyncWriteState.Entry(id: id, work: .block(block)))
        requestWriteLockIfNeeded()
        return id
    }

    /// Waits, suspended, until the instance is in a write transaction for the calling task
    /// (`asyncWrite`): refreshed first, as `beginWrite` does. Throws `CancellationError` if the
    /// task is cancelled before its turn, or the engine's error.
    func waitForAsyncWrite(isolation: isolated (any Actor)?) async throws {
        checkAsyncWriteAllowed()
        let id = asyncWrites.nextId()
        let box = UncheckedBox(WeakCore(core: self))
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, any Error>) in
                asyncWrites.queue.append(AsyncWriteState.Entry(id: id, work: .task(continuation)))
                requestWriteLockIfNeeded()
            }
        } onCancel: { [context] in
            context.schedule { box.value.core?.cancelQueuedTask(id) }
        }
        asyncWrites.taskHoldsWrite = isInWriteTransaction
    }

    /// Stops with Realm's message where asynchronous writes are not allowed.
    private func checkAsyncWriteAllowed() {
        if frozen != nil { throwRealmException("Can't perform transactions on a frozen Realm") }
        checkThread()
        if configuration.readOnly { throwRealmException("Can't perform transactions on read-only Realms.") }
    }

    /// An `asyncWrite` task was cancelled: if it still waits in the queue, it leaves it and throws
    /// `CancellationError` (once it runs, it sees the cancellation itself).
    private func cancelQueuedTask(_ id: AsyncTransactionId) {
        guard let index = asyncWrites.queue.firstIndex(where: { $0.id == id }),
            case .task(let continuation) = asyncWrites.queue[index].work
        else { return }
        asyncWrites.queue.remove(at: index)
        continuation.resume(throwing: CancellationError())
    }

    /// `cancelAsyncWrite`: a queued block is removed (its transaction never happens); a pending
    /// completion is dropped (its commit happened). Anything else, a running block included, is
    /// left alone.
    func cancelAsyncWrite(_ id: AsyncTransactionId) {
        checkThread()
        if let index = asyncWrites.queue.firstIndex(where: { $0.id == id }), case .block = asyncWrites.queue[index].work {
            asyncWrites.queue.remove(at: index)
            return
        }
        if let index = asyncWrites.completions.firstIndex(where: { $0.id == id }) {
            asyncWrites.completions[index].callback = nil
        }
    }

    // MARK: The write lock

    /// Asks for a transaction when an entry waits and none was asked for: a job of the context
    /// that runs the queued blocks, or, for a task, the lock's thread.
    func requestWriteLockIfNeeded() {
        guard let first = asyncWrites.queue.first, !asyncWrites.requested, !asyncWrites.runScheduled,
            !asyncWrites.running, !isInWriteTransaction
        else { return }
        if case .task = first.work {
            requestFromLockThread()
            return
        }
        // Delivering completions asks again (`deliverCompletions`).
        if asyncWrites.completionsFull { return }
        asyncWrites.runScheduled = true
        let instance = UncheckedBox(WeakCore(core: self))
        context.schedule { instance.value.core?.runQueuedWrites() }
    }

    /// Asks the lock's thread for a transaction (it waits for the lock) for the first entry.
    private func requestFromLockThread() {
        guard !asyncWrites.requested else { return }
        asyncWrites.requested = true
        let lock = asyncWrites.lock ?? AsyncWriteLock.of(engine)
        asyncWrites.lock = lock
        let grant = asyncWrites.grant
        let instance = UncheckedBox(WeakCore(core: self))
        let context = self.context
        let engine = self.engine
        lock.request(engine) { txn, error in
            grant.put(txn, error)
            context.schedule {
                if let core = instance.value.core {
                    core.asyncWriteGranted()
                } else if let (txn, _) = grant.take(), let txn {
                    // The instance went away: the transaction ends here (the engine stays open
                    // while this block holds it).
                    ce_txn_end(txn)
                    lock.released()
                    withExtendedLifetime(engine) {}
                }
            }
        }
    }

    /// The write transaction for the first queued block, begun here if the lock is free; nil
    /// when it is busy. Throws the engine's error.
    private func tryBeginWrite() throws(Realm.Error) -> OpaquePointer? {
        var raw: OpaquePointer?
        guard ce_txn_try_begin_write(engine.handle, &raw) else { throw Realm.Error.last(fileURL: configuration.fileURL) }
        return raw
    }

    /// The job scheduled by `requestWriteLockIfNeeded`: runs the queued blocks.
    func runQueuedWrites() {
        asyncWrites.runScheduled = false
        guard !notify.isDelivering else {
            // From inside a notification block: once it returns.
            asyncWrites.runScheduled = true
            let instance = UncheckedBox(WeakCore(core: self))
            context.schedule { instance.value.core?.runQueuedWrites() }
            return
        }
        runEntries(granted: nil)
    }

    /// Runs the first entry in `granted` (a transaction of the lock's thread), if given, then the
    /// queued blocks after it back to back, each in a transaction begun here while the lock is
    /// free, refreshed first as `beginWrite` does; at most `blocksPerJob` in this job. Stops at a
    /// task, or when the lock is busy (then the lock's thread is asked).
    private func runEntries(granted: OpaquePointer?) {
        asyncWrites.running = true
        var ran = 0
        var busy = false
        if let granted {
            enterWrite(granted, fromLock: true)
            runFirstEntry()
            ran = 1
        }
        while ran < AsyncWriteState.blocksPerJob, !isInWriteTransaction, !asyncWrites.requested,
            !asyncWrites.completionsFull, let first = asyncWrites.queue.first, case .block = first.work
        {
            deliverPending()
            _ = advance()
            // A notification block may have begun a write, or cancelled or queued entries.
            guard !isInWriteTransaction, let next = asyncWrites.queue.first, case .block = next.work else { break }
            let txn: OpaquePointer?
            do {
                txn = try tryBeginWrite()
            } catch {
                asyncWrites.running = false
                failFirstEntry(error)
                asyncWrites.running = true
                continue
            }
            guard let txn else {
                busy = true
                break
            }
            enterWrite(txn, fromLock: false)
            asyncWrites.triedHeld = true
            runFirstEntry()
            ran += 1
        }
        asyncWrites.running = false
        if busy, !isInWriteTransaction {
            requestFromLockThread()
        } else {
            requestWriteLockIfNeeded()
        }
    }

    /// Takes the transaction asked for, waiting for it (a synchronous write); records it as held.
    private func takeGrantWaiting() throws(Realm.Error) -> OpaquePointer {
        let (txn, error) = asyncWrites.grant.wait()
        asyncWrites.requested = false
        guard let txn else {
            // The queued entries ask again (and get the error themselves if it persists).
            requestWriteLockIfNeeded()
            throw error ?? Realm.Error(code: .fail, message: "Cannot begin a write transaction")
        }
        asyncWrites.lockHeld = true
        return txn
    }

    /// A transaction arrived from the lock's thread (on the context): refreshes, then runs the
    /// first entry in it.
    func asyncWriteGranted() {
        guard !notify.isDelivering else {
            // From inside a notification block: once it returns.
            scheduleGrantRetry()
            return
        }
        if !isInWriteTransaction {
            deliverPending()
            _ = advance()
        }
        // A synchronous write in a notification block may have taken it meanwhile.
        guard let (granted, error) = asyncWrites.grant.take() else { return }
        asyncWrites.requested = false
        guard let txn = granted else {
            failFirstEntry(error ?? Realm.Error(code: .fail, message: "Cannot begin a write transaction"))
            requestWriteLockIfNeeded()
            return
        }
        if isInWriteTransaction || asyncWrites.queue.isEmpty {
            // A notification block left a write open, or every entry was cancelled.
            ce_txn_end(txn)
            asyncWrites.lock?.released()
            requestWriteLockIfNeeded()
            return
        }
        runEntries(granted: txn)
    }

    private func scheduleGrantRetry() {
        let instance = UncheckedBox(WeakCore(core: self))
        context.schedule { instance.value.core?.asyncWriteGranted() }
    }

    /// Runs the first queued entry in the current write transaction (which came from the lock).
    private func runFirstEntry() {
        let entry = asyncWrites.queue.removeFirst()
        switch entry.work {
        case .block(let block):
            asyncWrites.runningId = entry.id
            block()
            asyncWrites.runningId = nil
            // Returning without committing cancels (Realm's rule for beginAsyncWrite).
            if isInWriteTransaction && (asyncWrites.lockHeld || asyncWrites.triedHeld) { cancelWrite() }
        case .task(let continuation):
            asyncWrites.taskHoldsWrite = true
            continuation.resume()
        }
    }

    /// The lock's thread could not begin a transaction: the first entry fails with `error`.
    private func failFirstEntry(_ error: Realm.Error) {
        guard !asyncWrites.queue.isEmpty else { return }
        let entry = asyncWrites.queue.removeFirst()
        switch entry.work {
        case .task(let continuation): continuation.resume(throwing: error)
        case .block: throwRealmException(error.message)
        }
    }

    /// Before a synchronous write: runs the queued blocks, in order, each in its transaction (a
    /// synchronous write waits for the asynchronous writes queued before it); stops at a queued
    /// `asyncWrite` task (it runs when its task does). Returns the transaction for the
    /// synchronous write when one was already asked of the lock's thread (taking another would
    /// wait for it forever), else nil.
    func takeWriteAfterAsyncWrites() throws(Realm.Error) -> OpaquePointer? {
        while !isInWriteTransaction, let first = asyncWrites.queue.first, case .block = first.work {
            if !asyncWrites.requested, let txn = try tryBeginWrite() {
                enterWrite(txn, fromLock: false)
                asyncWrites.triedHeld = true
            } else {
                requestFromLockThread()
                enterWrite(try takeGrantWaiting(), fromLock: true)
            }
            runFirstEntry()
        }
        guard asyncWrites.requested else { return nil }
        return try takeGrantWaiting()
    }

    /// The write transaction ended (committed, failed or cancelled): the lock's thread may hand
    /// out the next one; the next entry asks for it.
    func writeTransactionEnded() {
        asyncWrites.taskHoldsWrite = false
        asyncWrites.triedHeld = false
        if asyncWrites.lockHeld {
            asyncWrites.lockHeld = false
            asyncWrites.lock?.released()
        }
        requestWriteLockIfNeeded()
    }

    // MARK: Committing

    /// `commitAsyncWrite`: commits now (the changes are visible when it returns; the Realm's
    /// `observe` blocks are called as for `commitWrite`) and queues `onComplete`, called on the
    /// context once the commit is durable (or with the commit's error), after the completions of
    /// earlier commits. Returns the completion's id.
    func commitAsyncWrite(allowGrouping: Bool, _ onComplete: ((Swift.Error?) -> Void)?) -> AsyncTransactionId {
        checkThread()
        guard isInWriteTransaction else { throwRealmException("Can't commit a non-existing write transaction") }
        let id = asyncWrites.nextId()
        var failure: Swift.Error?
        do {
            try commitWrite(withoutNotifying: [], allowGrouping: allowGrouping)
        } catch {
            failure = error
        }
        let version = failure == nil ? asyncWrites.groupedVersion : 0
        asyncWrites.completions.append(AsyncWriteState.Completion(id: id, callback: onComplete, error: failure, version: version))
        if version > asyncWrites.durableVersion {
            requestSync(version)
        } else {
            scheduleCompletions()
        }
        return id
    }

    /// Asks the file's syncer for `ce_db_sync` of `version` or later (off the context: it waits
    /// for the disk); each sync it makes for the instance delivers the completions it made
    /// durable, in one job of the context.
    private func requestSync(_ version: UInt64) {
        let lock = asyncWrites.lock ?? AsyncWriteLock.of(engine)
        asyncWrites.lock = lock
        let target: AsyncWriteLock.SyncTarget
        if let existing = asyncWrites.syncTarget {
            target = existing
        } else {
            let instance = UncheckedBox(WeakCore(core: self))
            let context = self.context
            let fileURL = configuration.fileURL
            target = AsyncWriteLock.SyncTarget { version, ok in
                let error: Realm.Error? = ok ? nil : Realm.Error.last(fileURL: fileURL)
                context.schedule { instance.value.core?.synced(version, error) }
            }
            asyncWrites.syncTarget = target
        }
        lock.sync(engine, version, for: target)
    }

    /// `ce_db_sync` returned for `version` (with `error` if it failed): its completions, and
    /// the earlier ones, may be delivered.
    private func synced(_ version: UInt64, _ error: Realm.Error?) {
        if let error {
            for index in asyncWrites.completions.indices where asyncWrites.completions[index].version > asyncWrites.durableVersion
                && asyncWrites.completions[index].version <= version {
                asyncWrites.completions[index].error = error
                asyncWrites.completions[index].version = 0
            }
        } else {
            asyncWrites.durableVersion = max(asyncWrites.durableVersion, version)
        }
        deliverCompletions()
    }

    /// Schedules one delivery of the pending completions on the context.
    private func scheduleCompletions() {
        guard !asyncWrites.completionsScheduled else { return }
        asyncWrites.completionsScheduled = true
        let instance = UncheckedBox(WeakCore(core: self))
        context.schedule { instance.value.core?.deliverCompletions() }
    }

    /// Calls the pending completions in commit order, up to the first whose grouped commit is
    /// not yet durable.
    func deliverCompletions() {
        asyncWrites.completionsScheduled = false
        while let first = asyncWrites.completions.first, first.version <= asyncWrites.durableVersion {
            asyncWrites.completions.removeFirst()
            first.callback?(first.error)
        }
        // Queued blocks that waited for room (`maxPendingCompletions`) go on.
        requestWriteLockIfNeeded()
    }

    /// Whether the instance has asynchronous write work left.
    var isPerformingAsynchronousWriteOperations: Bool {
        checkThread()
        return asyncWrites.isBusy
    }
}
