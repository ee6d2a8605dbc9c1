// Realm+Async.swift — Realm's Swift-concurrency and asynchronous-write members, as in Realm
// Swift: opening isolated to an actor or asynchronously, `asyncWrite`, `asyncRefresh`,
// `writeAsync`, `beginAsyncWrite`, `commitAsyncWrite`, `cancelAsyncWrite`.

import Dispatch
import Foundation

// MARK: - Opening

extension Realm {
    /// Opens the Realm of `configuration` isolated to the main actor, as `Realm(configuration:)`
    /// on the main thread would; the file is opened (created, migrated, compacted) on a
    /// background thread first, without blocking the main actor. `downloadBeforeOpen` is
    /// accepted (it matters only with sync).
    ///
    ///     @MainActor func load() async throws {
    ///         let realm = try await Realm()
    ///         try await realm.asyncWrite { realm.add(Dog()) }
    ///     }
    ///
    /// Throws `Realm.Error` as `Realm(configuration:)` does, or `CancellationError` if the task
    /// is cancelled.
    @MainActor
    public init(configuration: Realm.Configuration = .defaultConfiguration,
                downloadBeforeOpen: OpenBehavior = .never) async throws {
        let engine = try await Realm.prepareInBackground(configuration)
        try Task.checkCancellation()
        let core = try withExtendedLifetime(engine) { () throws(Realm.Error) -> RealmCore in
            try RealmCore.instance(for: configuration, queue: .main)
        }
        self.init(core)
    }

    /// Opens the Realm of `configuration` isolated to `actor`: it may be used from the actor and
    /// the functions isolated to it, on whichever thread the actor runs them (it is not confined
    /// to a thread), and only there ("Realm accessed from incorrect thread." stops the program
    /// elsewhere). Its notifications and asynchronous writes run isolated to the actor, and it
    /// has `asyncWrite` and `asyncRefresh`. The file is opened (created, migrated, compacted) on a
    /// background thread, without blocking the caller's executor; the caller need not be
    /// isolated to `actor`, but only code isolated to it can use the Realm. The Realm keeps the
    /// actor alive. `downloadBeforeOpen` is accepted (it matters only with sync).
    ///
    ///     actor Store {
    ///         var realm: Realm!
    ///         init() async throws { realm = try await Realm(configuration: .defaultConfiguration, actor: self) }
    ///         func add(_ name: String) async throws {
    ///             try await realm.asyncWrite { realm.create(Dog.self, value: ["name": name]) }
    ///         }
    ///     }
    ///
    /// Throws `Realm.Error` as `Realm(configuration:)` does, or `CancellationError` if the task
    /// is cancelled.
    public init<A: Actor>(configuration: Realm.Configuration = .defaultConfiguration,
                          actor: A,
                          downloadBeforeOpen: OpenBehavior = .never) async throws {
        let engine = try await Realm.prepareInBackground(configuration)
        try Task.checkCancellation()
        let box = try await Realm.openIsolated(configuration, engine, actor)
        self.init(box.value)
    }

    /// The Realm instance of `actor`, made on it (the prepared engine stays open meanwhile).
    private static func openIsolated<A: Actor>(_ configuration: Realm.Configuration, _ engine: StorageEngine,
                                               _ actor: isolated A) throws -> UncheckedBox<RealmCore> {
        try withExtendedLifetime(engine) {
            UncheckedBox(try RealmCore.instance(for: configuration, actor: actor))
        }
    }

    /// Opens the file of `configuration` and brings its schema up to date on a new thread (it
    /// may block on the file system or run a migration); the engine stays open while the caller
    /// holds it, so that opening the instance then is quick.
    static func prepareInBackground(_ configuration: Realm.Configuration) async throws -> StorageEngine {
        RealmCore.validate(configuration)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<StorageEngine, any Swift.Error>) in
            let thread = Thread {
                do {
                    continuation.resume(returning: try RealmCore.openPrepared(configuration).0)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "OpenRealm open"
            thread.start()
        }
    }

    /// Opens a Realm asynchronously: the file is opened, created, migrated and compacted on a
    /// background thread, then `callback` is called on `callbackQueue` with the Realm, confined to
    /// that queue as `Realm(configuration:queue:)` makes it, or with the error (a
    /// `Realm.Error` such as `.invalidDatabase`, `.fileNotFound`, `.schemaMismatch`). The
    /// returned task cancels it: the callback is then not called.
    ///
    ///     let queue = DispatchQueue(label: "db")
    ///     Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
    ///         switch result {
    ///         case .success(let realm): print(realm.objects(Dog.self).count)
    ///         case .failure(let error): print(error)
    ///         }
    ///     }
    @discardableResult
    public static func asyncOpen(configuration: Realm.Configuration = .defaultConfiguration,
                                 callbackQueue: DispatchQueue = .main,
                                 callback: @escaping (Result<Realm, Swift.Error>) -> Void) -> AsyncOpenTask {
        RealmCore.validate(configuration)
        let task = AsyncOpenTask()
        let state = task.state
        let deliver = UncheckedBox(callback)
        let thread = Thread {
            let result: Result<StorageEngine, any Swift.Error>
            do {
                result = .success(try RealmCore.openPrepared(configuration).0)
            } catch {
                result = .failure(error)
            }
            callbackQueue.async {
                defer { withExtendedLifetime(result) {} }
                guard !state.cancelled.load(ordering: .acquiring) else { return }
                switch result {
                case .success:
                    do {
                        let realm = try Realm(configuration: configuration, queue: callbackQueue)
                        deliver.value(.success(realm))
                    } catch {
                        deliver.value(.failure(error))
                    }
                case .failure(let error):
                    deliver.value(.failure(error))
                }
            }
        }
        thread.name = "OpenRealm open"
        thread.start()
        return task
    }
}

// MARK: - Asynchronous writes

extension Realm {
    /// Runs `block` in a write transaction, suspending the calling task (not blocking its
    /// thread) while another Realm, thread or process writes, and commits it; returns the
    /// block's value. For the main thread's and actor-isolated Realms (elsewhere the program
    /// stops with Realm's "asyncWrite() can only be called on main thread or actor-isolated
    /// Realms"). Before the block runs the Realm moves to the latest version, as `asyncRefresh()`
    /// does. The write lock is waited for by a thread of the file, never by the caller's
    /// executor; the asynchronous writes of one Realm run in the order they were asked for.
    ///
    /// If the block throws, the transaction is cancelled (nothing is committed) and the error
    /// rethrown. If the task is cancelled before the block runs, it throws `CancellationError`
    /// and nothing is written. The commit is durable when it returns; its error is thrown.
    ///
    ///     let count = try await realm.asyncWrite {
    ///         let counter = realm.object(ofType: Counter.self, forPrimaryKey: 0)!
    ///         counter.value += 1
    ///         return counter.value
    ///     }
    @discardableResult
    public func asyncWrite<Result>(_isolation actor: isolated any Actor = #isolation,
                                   _ block: (() throws -> Result)) async throws -> Result {
        guard core.context.actor != nil else {
            fatalError("asyncWrite() can only be called on main thread or actor-isolated Realms")
        }
        try await core.waitForAsyncWrite(isolation: actor)
        let result: Result
        do {
            try Task.checkCancellation()
            result = try block()
        } catch {
            if core.isInWriteTransaction { core.cancelWrite() }
            throw error
        }
        if core.isInWriteTransaction {
            let core = self.core
            let error: Swift.Error? = await withCheckedContinuation(isolation: actor) { continuation in
                // Grouped: concurrent asyncWrites share one durable sync; this task resumes only once
                // its commit is durable.
                _ = core.commitAsyncWrite(allowGrouping: true) { continuation.resume(returning: $0.map(UncheckedBox.init)) }
            }.map(\.value)
            if let error { throw error }
        }
        return result
    }

    /// Moves the Realm to the latest version and delivers the notifications of that, as
    /// `refresh()` does, without blocking; returns whether the version changed. For the main
    /// thread's and actor-isolated Realms (elsewhere the program stops with Realm's
    /// "asyncRefresh() can only be called on main thread or actor-isolated Realms").
    ///
    ///     if await realm.asyncRefresh() { print("updated") }
    @discardableResult
    public func asyncRefresh(_isolation: isolated any Actor = #isolation) async -> Bool {
        guard core.context.actor != nil else {
            fatalError("asyncRefresh() can only be called on main thread or actor-isolated Realms")
        }
        return core.refresh()
    }

    /// Runs `block` in a write transaction begun asynchronously, as `beginAsyncWrite` does, and
    /// commits it with `commitAsyncWrite` when the block returns (unless the block committed or
    /// cancelled it itself with `commitWrite` or `cancelWrite`). `onComplete` is called on the
    /// Realm's thread, queue or actor once the commit is durable, or with its error. Returns an
    /// id that `cancelAsyncWrite` accepts until the block runs.
    ///
    ///     realm.writeAsync({ realm.add(Dog()) }, onComplete: { error in print(error ?? "saved") })
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void, onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        let core = self.core
        return core.beginAsyncWrite {
            block()
            if core.isInWriteTransaction { _ = core.commitAsyncWrite(allowGrouping: false, onComplete) }
        }
    }

    /// Begins a write transaction asynchronously: returns at once, and calls `asyncWriteBlock`
    /// on the Realm's thread, queue or actor inside the transaction once no other Realm, thread
    /// or process writes (a thread of the file waits for the lock, never the caller). The Realm
    /// moves to the latest version first. The blocks of several calls (calls from inside such a
    /// block included) run in the order of the calls. The block should end with
    /// `commitAsyncWrite` or `commitWrite`; returning without one cancels the transaction. A
    /// synchronous `write` or `beginWrite` of the same Realm first runs the blocks queued before
    /// it. Returns an id for `cancelAsyncWrite`.
    ///
    ///     realm.beginAsyncWrite {
    ///         realm.add(Dog())
    ///         realm.commitAsyncWrite()
    ///     }
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        core.beginAsyncWrite(asyncWriteBlock)
    }

    /// Commits the write transaction (begun by `beginWrite` or `beginAsyncWrite`) and returns at
    /// once: the changes are visible to this Realm when it returns, and `onComplete` is called
    /// on the Realm's thread, queue or actor once the commit is durable (or with the commit's
    /// error), after the completions of earlier commits. `allowGrouping`: the commit may share
    /// its durable sync with other commits (after a power loss such a group is all there or
    /// all gone). Returns an id: `cancelAsyncWrite` with it drops the callback, not the commit.
    ///
    ///     realm.beginWrite()
    ///     realm.add(Dog())
    ///     realm.commitAsyncWrite(allowGrouping: true) { error in print(error ?? "durable") }
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        core.commitAsyncWrite(allowGrouping: allowGrouping, onComplete)
    }

    /// Cancels a queued asynchronous write: the id of a `beginAsyncWrite` or `writeAsync` whose
    /// block has not run yet cancels that transaction entirely; the id of a `commitAsyncWrite`
    /// drops its completion callback (the commit still happens). Called from inside the block
    /// itself, or with an id that already ran, it does nothing.
    ///
    ///     let id = realm.writeAsync { realm.add(Dog()) }
    ///     try realm.cancelAsyncWrite(id)
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        core.cancelAsyncWrite(asyncTransactionId)
    }

    /// Whether asynchronous write work is pending: true after `beginAsyncWrite`,
    /// `commitAsyncWrite` or `writeAsync` until every queued block ran and every completion was
    /// called.
    ///
    ///     realm.writeAsync { realm.add(Dog()) }
    ///     realm.isPerformingAsynchronousWriteOperations    // true
    public var isPerformingAsynchronousWriteOperations: Bool {
        core.isPerformingAsynchronousWriteOperations
    }
}
