// DeliveryContext.swift — where a live Realm is confined and its notifications run: a serial
// dispatch queue, the main thread, an actor, or another thread's run loop.
//
// Owns: the confinement check of a live RealmCore and scheduling a block on its context.
// Never: touches a RealmCore itself (the blocks it schedules do, on the right context).

import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a live Realm instance is used and where its notifications are delivered.
///
/// - A Realm opened with `Realm(configuration:queue:)` is confined to that serial queue: any
///   thread may use it while it runs a block of the queue (checked with a queue-specific key:
///   a block of a queue that targets it counts too); its notifications are `async` blocks on the
///   queue.
/// - A Realm opened on the main thread or in a block of the main queue is confined to the main
///   queue (on Apple platforms the two are the same; on Linux the main queue's blocks may run on
///   another thread while the main thread waits, as under `swift test`, so `@MainActor` code
///   may run elsewhere): it is usable on the main thread and in the main queue's blocks, and
///   delivers on the main queue (drained by `RunLoop.main`, `dispatchMain()` or the runtime).
/// - A Realm opened with an actor (`Realm(configuration:actor:)`) is isolated to it: usable in
///   code isolated to the actor, on whichever thread the actor's executor runs it; its
///   notifications and asynchronous writes run in tasks isolated to the actor.
/// - A Realm opened on another thread delivers on that thread's run loop (a timer of
///   interval 0 added from the notifier thread, which wakes a sleeping `RunLoop.run`). A thread
///   that never runs its run loop (a thread of a dispatch queue or of Swift concurrency, with a
///   Realm opened without `queue:`) gets its notifications when it calls `refresh()`,
///   `beginWrite()` or `write`; they never run on another thread.
///
/// Realm Swift refuses to register notifications on a thread that is not running a run loop
/// ("Can only add notification blocks from within runloops."). OpenRealm accepts them and
/// delivers at the next `refresh()` or write instead, because on Linux most programs and every
/// test run no run loop on their threads.
final class DeliveryContext: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant; the queue and the run loop are
    // themselves safe to schedule on from any thread (dispatch queues and CFRunLoop timers lock).

    private enum Kind {
        case queue(DispatchQueue, QueueMarker)
        case runLoop(RunLoop)
        case actor(any Actor)
    }

    private let kind: Kind
    /// The thread a thread-confined Realm was opened on.
    let thread: pthread_t

    /// The context of a Realm confined to `queue`, which the caller must be running a block of
    /// (`isCurrent(onQueue:)`).
    init(queue: DispatchQueue, marker: QueueMarker) {
        kind = .queue(queue, marker)
        thread = pthread_self()
    }

    /// The context of a Realm confined to the calling thread (not the main thread: a Realm
    /// there is confined to the main queue).
    init() {
        thread = pthread_self()
        kind = .runLoop(RunLoop.current)
    }

    /// The context of a Realm isolated to `actor` (it keeps the actor alive, as Realm's
    /// scheduler does).
    init(actor: any Actor) {
        kind = .actor(actor)
        thread = pthread_self()
    }

    /// Whether the Realm is confined to a dispatch queue rather than a thread.
    var isQueue: Bool {
        if case .queue = kind { return true }
        return false
    }

    /// The actor the Realm is isolated to: its own, or the main actor for a Realm of the main
    /// queue (as in Realm, which gives those `asyncWrite` and `asyncRefresh`); nil otherwise.
    var actor: (any Actor)? {
        switch kind {
        case .actor(let actor): return actor
        case .queue(_, let marker): return marker === QueueMarker.main ? MainActor.shared : nil
        case .runLoop: return nil
        }
    }

    /// Whether the Realm is isolated to an actor it was opened with (not the main queue).
    var isActor: Bool {
        if case .actor = kind { return true }
        return false
    }

    /// Whether the caller may use the Realm now: on its thread, or in a block of its queue.
    @inline(__always)
    var isCurrent: Bool {
        switch kind {
        case .queue(_, let marker): return marker.isCurrent
        case .runLoop: return pthread_equal(thread, pthread_self()) != 0
        case .actor(let actor): return isIsolated(to: actor)
        }
    }

    /// Runs `block` later on the context: a block of the queue, of the main queue, a task
    /// isolated to the actor, or a timer of the thread's run loop. Callable from any thread.
    func schedule(_ block: @escaping @Sendable () -> Void) {
        switch kind {
        case .queue(let queue, _):
            queue.async(execute: block)
        case .runLoop(let runLoop):
            // RunLoop.perform does not wake a sleeping run loop; adding a timer does.
            runLoop.add(Timer(timeInterval: 0, repeats: false) { _ in block() }, forMode: .default)
        case .actor(let actor):
            OpenRealm.schedule(on: actor, block)
        }
    }
}

/// What a serial queue with queue-confined Realms carries as its queue-specific value: the
/// queue's Realm instances (one per configuration), and the proof that a block runs on it.
final class QueueMarker: @unchecked Sendable {
    // @unchecked Sendable: `realms` is only touched by blocks of the marked queue, which is
    // serial, so never by two threads at once.

    static let key = DispatchSpecificKey<QueueMarker>()
    /// The instances of the queue, by configuration (see RealmCore.instance).
    var realms: [String: WeakRealmCore] = [:]
    /// Whether this marks the main queue (whose Realms the main thread may use too).
    private let isMain: Bool

    private static let lock = NSLock()

    /// The main queue's marker.
    static let main: QueueMarker = of(.main)

    private init(isMain: Bool) { self.isMain = isMain }

    /// The marker of `queue`, set on first use.
    static func of(_ queue: DispatchQueue) -> QueueMarker {
        lock.lock()
        defer { lock.unlock() }
        if let marker = queue.getSpecific(key: key) { return marker }
        let marker = QueueMarker(isMain: queue === DispatchQueue.main)
        queue.setSpecific(key: key, value: marker)
        return marker
    }

    /// Whether the caller runs a block of the queue this marks (or, for the main queue, is on
    /// the main thread).
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: QueueMarker.key) === self || (isMain && Thread.isMainThread)
    }
}

/// A weak reference to a RealmCore, for the caches of Realm instances (see `RealmCore`'s
/// `CacheHandle`: the reference goes through a handle the instance owns).
struct WeakRealmCore {
    weak var handle: RealmCoreCacheHandle?
    var core: RealmCore? { handle?.core }
}

/// Owned by its RealmCore alone, so it lives exactly as long as the instance. A weakly
/// referenced object keeps its reference count in a side table, which would make every retain
/// and release of the instance (one per managed object and property access) a slow-path call:
/// the caches refer weakly to this handle instead.
final class RealmCoreCacheHandle {
    unowned(unsafe) var core: RealmCore?
}
