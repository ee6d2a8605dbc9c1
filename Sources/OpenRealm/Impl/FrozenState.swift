// FrozenState.swift — what a frozen RealmCore shares between threads: the version, the engine
// transactions of the threads other than its own, their collection handles and query views.

import CEngine
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The shared part of a frozen RealmCore (see RealmCore's comment): one engine transaction per
/// thread at the frozen version, with the handles made in it.
final class FrozenState {
    /// The version the instance reads.
    let version: UInt64
    /// Guards the instance's resolved tables (`tables`, `tablesByKey`), which any thread may fill.
    let lock = NSRecursiveLock()
    /// Guards `threads`.
    private let threadsLock = NSLock()
    private var threads: [UInt: PerThread] = [:]

    /// What one thread reads with. Only that thread uses it (a thread that ended leaves it to
    /// a new thread with the same id, never to two at once). Collection handles stay open until
    /// the frozen instance goes away, as the accessors of a frozen Realm do in Realm.
    final class PerThread {
        /// Nil for the instance's own thread until first needed (it reads with `RealmCore.txn`).
        var txn: OpaquePointer?
        var collections: [String: OpaquePointer] = [:]
        var queries: [ObjectIdentifier: (original: Weak, copy: ResultsQuery)] = [:]
    }

    struct Weak {
        weak var query: ResultsQuery?
    }

    init(version: UInt64) { self.version = version }

    private static var threadID: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// The calling thread's state, made on first use.
    func current() -> PerThread {
        let id = FrozenState.threadID
        threadsLock.lock()
        defer { threadsLock.unlock() }
        if let known = threads[id] { return known }
        let made = PerThread()
        threads[id] = made
        return made
    }

    /// The calling thread's transaction (not the instance's own thread: that one reads with
    /// `RealmCore.txn`, which pins the version, so this one can begin at it).
    func transaction(_ engine: StorageEngine) -> OpaquePointer {
        let state = current()
        if let txn = state.txn { return txn }
        var raw: OpaquePointer?
        guard ce_txn_begin_read_at(engine.handle, version, &raw), let raw else {
            engineFailure("Cannot read the frozen Realm")
        }
        state.txn = raw
        return raw
    }

    /// The calling thread's handle of a collection, opened with `open` on first use.
    func collection(_ key: String, open: () -> OpaquePointer) -> OpaquePointer {
        let state = current()
        if let handle = state.collections[key] { return handle }
        let handle = open()
        state.collections[key] = handle
        return handle
    }

    /// The calling thread's copy of `query` (its engine views belong to the thread's transaction).
    func query(_ query: ResultsQuery) -> ResultsQuery {
        let state = current()
        let id = ObjectIdentifier(query)
        if let entry = state.queries[id], entry.original.query === query { return entry.copy }
        let copy = query.copy()
        // Forget the copies of queries that are gone, now and then.
        if state.queries.count >= 64 { state.queries = state.queries.filter { $0.value.original.query != nil } }
        state.queries[id] = (Weak(query: query), copy)
        return copy
    }

    /// Ends every thread's handles and transactions (the instance is going away).
    func endTransactions() {
        threadsLock.lock()
        defer { threadsLock.unlock() }
        for state in threads.values {
            state.queries = [:]
            for handle in state.collections.values { ce_collection_close(handle) }
            state.collections = [:]
            if let txn = state.txn { ce_txn_end(txn) }
            state.txn = nil
        }
        threads = [:]
    }
}
