// Notifier.swift — the notifier thread of an open file: it waits for commits of any thread or
// process (ce_db_wait_for_change) and tells each live Realm instance of the file, on its own
// queue or thread, to refresh.

import CEngine
import Foundation
import Synchronization

/// The notifier of one open database (`StorageEngine`) in this process: a thread that sleeps in
/// `ce_db_wait_for_change` until the file's latest version changes (a commit by any thread or
/// process; nothing is polled) and then signals every registered `CommitListener`. It never
/// touches a Realm instance: a listener schedules the instance's refresh on the instance's
/// context.
///
/// The live RealmCores of the file hold it; when the last one goes away, `deinit` stops the
/// thread (a stop flag, then `ce_db_wake_waiters`) and waits for it to end, before the engine,
/// which it holds, can be closed.
///
///     let notifier = Notifier.of(engine)
///     notifier.add(listener)      // listener.signal() on each new version
final class Notifier: @unchecked Sendable {
    // @unchecked Sendable: `engine` is a constant of a Sendable type; the mutable state is in
    // `shared`, under its lock. (NSLock rather than Mutex: ThreadSanitizer sees NSLock.)
    private let engine: StorageEngine
    /// Shared with the thread.
    private let shared = Shared()

    private final class Shared: @unchecked Sendable {
        // @unchecked Sendable: `state` is only touched under `lock`.
        let lock = NSLock()
        var state = State()
        let finished = DispatchSemaphore(value: 0)

        func withLock<R>(_ body: (inout State) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(&state)
        }
    }

    private struct State {
        var listeners: [CommitListener] = []
        var stopping = false
    }

    /// The notifier of each engine that has one, by engine (the notifier keeps its engine, so
    /// the identifier is not reused while the entry is alive).
    private static let registry = Registry()

    private final class Registry: @unchecked Sendable {
        // @unchecked Sendable: `notifiers` is only touched under `lock`.
        private let lock = NSLock()
        private var notifiers: [ObjectIdentifier: WeakNotifier] = [:]

        func withLock<R>(_ body: (inout [ObjectIdentifier: WeakNotifier]) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(&notifiers)
        }
    }

    private struct WeakNotifier {
        weak var notifier: Notifier?
    }

    /// The notifier of `engine`, started on first use.
    static func of(_ engine: StorageEngine) -> Notifier {
        registry.withLock { notifiers in
            let key = ObjectIdentifier(engine)
            if let running = notifiers[key]?.notifier { return running }
            let notifier = Notifier(engine: engine)
            notifiers[key] = WeakNotifier(notifier: notifier)
            return notifier
        }
    }

    private init(engine: StorageEngine) {
        self.engine = engine
        var start: UInt64 = 0
        if !ce_db_latest_version(engine.handle, &start) { start = 0 }
        // The thread refers to the handle and to the shared state, never to the notifier (whose
        // deinit stops it).
        let handle = UncheckedBox(engine.handle)
        let thread = Thread { [shared, start] in
            Notifier.run(handle.value, from: start, shared)
            shared.finished.signal()
        }
        thread.name = "OpenRealm notifier"
        thread.start()
    }

    deinit {
        shared.withLock { $0.stopping = true }
        _ = ce_db_wake_waiters(engine.handle)
        shared.finished.wait()
        Notifier.registry.withLock { notifiers in
            let key = ObjectIdentifier(engine)
            if notifiers[key]?.notifier == nil { notifiers[key] = nil }
        }
    }

    /// Adds a listener, signalled on each new version until it is cancelled.
    func add(_ listener: CommitListener) {
        shared.withLock { state in
            state.listeners.removeAll { $0.isCancelled }
            state.listeners.append(listener)
        }
    }

    /// The thread's loop: wait, then signal the listeners, until stopped. A failed wait (a
    /// damaged lock file) ends the loop: the instances then see new versions at their next
    /// refresh or write only.
    private static func run(_ handle: OpaquePointer, from start: UInt64, _ shared: Shared) {
        var seen = start
        while true {
            var changed = false
            let ok = ce_db_wait_for_change(handle, seen, -1, &changed)
            let listeners: [CommitListener]? = shared.withLock { state in
                if state.stopping { return nil }
                state.listeners.removeAll { $0.isCancelled }
                return state.listeners
            }
            guard ok, let listeners else { return }
            guard changed else { continue }
            if !ce_db_latest_version(handle, &seen) { return }
            for listener in listeners { listener.signal() }
        }
    }
}

/// What a live RealmCore registers with its file's notifier: on each new version, one refresh
/// is scheduled on the instance's context (coalesced: none is scheduled while one is pending).
final class CommitListener: Sendable {
    private let context: DeliveryContext
    /// The instance, read only on its context.
    private let instance: UncheckedBox<WeakCore>
    private let scheduled = Atomic<Bool>(false)
    private let cancelled = Atomic<Bool>(false)

    init(_ core: RealmCore) {
        context = core.context
        instance = UncheckedBox(WeakCore(core: core))
    }

    /// Whether the instance went away (it cancels its listener in its deinit).
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }

    /// A new version: schedules the instance's refresh on its context unless one is pending.
    /// Called on the notifier thread.
    func signal() {
        guard !isCancelled else { return }
        guard scheduled.exchange(true, ordering: .acquiringAndReleasing) == false else { return }
        context.schedule { [self] in
            scheduled.store(false, ordering: .releasing)
            instance.value.core?.handleNewVersion()
        }
    }
}
