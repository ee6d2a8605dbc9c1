// LockedValue.swift — a value behind a lock that ThreadSanitizer sees.
//
// Owns: mutual exclusion around one value shared by threads.
// Never: calls back into a Realm while holding the lock (the caller's body must not).

import Foundation

/// Synchronization.Mutex's `withLock`, over an NSLock: ThreadSanitizer does not see a Mutex's
/// futex on Linux and reports the accesses it orders as races (scripts/tsan.sh).
///
///     let registry = LockedValue<[String: Int]>([:])
///     registry.withLock { $0["a"] = 1 }
final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
