// RealmCore+Notifications.swift — the notifications of a live Realm instance: its observers
// (RealmObserver), its `Realm.observe` blocks, the work scheduled on its context, autorefresh.

import CEngine
import Foundation

/// The notification state of a live RealmCore (only touched on the instance's context).
final class NotificationState {
    /// Whether the instance advances by itself when another instance or process commits.
    var autorefresh = true
    /// The tokens of `addObserver`, in registration order (weak: releasing a token unregisters).
    var observers: [WeakToken] = []
    /// The tokens of `Realm.observe` blocks, in registration order.
    var realmBlocks: [WeakToken] = []
    /// Blocks of `perform`, to run before the next delivery.
    var pendingWork: [() -> Void] = []
    /// Whether a block that runs `pendingWork` is scheduled on the context.
    var drainScheduled = false
    /// Whether observers or blocks are being called (nested refreshes and deliveries are not
    /// made; transactions a change set borrows are not ended).
    var isDelivering = false
    /// Whether `Realm.observe` blocks are being called (Realm does not nest them).
    var isSendingRealmNotifications = false
    /// Transactions to end once the delivery in progress is over.
    var deferredEnds: [OpaquePointer] = []
    /// A read transaction at the version the observers last heard of, when the instance moved
    /// without telling them yet (its own commit, `invalidate()`); delivered by `deliverPending`.
    var pendingOld: OpaquePointer?
    /// The observers not to tell of the pending commit (`withoutNotifying`).
    var pendingSkip: [ObjectIdentifier] = []
    /// Whether the pending versions are the instance's own commits only (not `invalidate()`).
    var pendingOwnCommit = false
    /// Whether the delivery in progress is of the instance's own commits: object observers then
    /// give no old values, as Realm (it never read the old version once it wrote the new one).
    var isDeliveringOwnCommit = false
    /// In a write transaction with observers: the read transaction the write began from (the
    /// version the observers heard of last), kept until the commit or cancel.
    var writeBase: OpaquePointer?
    /// The latest version `.refreshRequired` was sent for.
    var refreshRequiredVersion: UInt64 = 0
    /// The registration with the file's notifier thread, and the notifier it keeps alive.
    var listener: CommitListener?
    var notifier: Notifier?

    struct WeakToken {
        weak var token: NotificationToken?
    }

    /// Whether `Realm.observe` blocks may be registered (some tokens not yet released).
    var hasRealmBlocks: Bool { realmBlocks.contains { $0.token != nil } }

    /// The valid tokens of `list`, dropping the released and invalidated ones from it.
    static func live(_ list: inout [WeakToken]) -> [NotificationToken] {
        var tokens: [NotificationToken] = []
        list.removeAll { entry in
            guard let token = entry.token, token.isValid else { return true }
            tokens.append(token)
            return false
        }
        return tokens
    }
}

extension RealmCore {
    // MARK: Registering

    /// Stops with Realm's message when the instance cannot have notifications: read-only or
    /// frozen (Realm's checks, in Realm's order).
    private func checkNotificationsSupported() {
        checkThread()
        if configuration.readOnly {
            throwRealmException("Read-only Realms do not change and do not have change notifications.")
        }
        if frozen != nil {
            throwRealmException("Frozen Realms do not change and do not have change notifications.")
        }
    }

    /// Registers `observer` for every version this instance moves to (see RealmObserver); the
    /// returned token unregisters it (`invalidate()`, or releasing it). Stops with Realm's
    /// message on a frozen or read-only Realm and inside a write transaction.
    func addObserver(_ observer: any RealmObserver) -> NotificationToken {
        checkNotificationsSupported()
        if isInWriteTransaction {
            throwRealmException("Cannot register notification blocks from within write transactions.")
        }
        // The observer starts from the version the instance reads now.
        _ = currentTxn()
        let token = NotificationToken(core: self, .observer(observer))
        notify.observers.append(NotificationState.WeakToken(token: token))
        return token
    }

    /// Registers a `Realm.observe` block. Realm allows it inside a write transaction.
    func addRealmBlock(_ block: @escaping (Realm.Notification, Realm) -> Void) -> NotificationToken {
        checkNotificationsSupported()
        _ = currentTxn()
        let token = NotificationToken(core: self, .realm(block))
        notify.realmBlocks.append(NotificationState.WeakToken(token: token))
        return token
    }

    /// Whether the instance has observers whose tokens are valid.
    var hasObservers: Bool {
        !NotificationState.live(&notify.observers).isEmpty
    }

    // MARK: Scheduling

    /// Runs `block` later on the instance's context (its queue, or its thread's run loop), before
    /// any later delivery; or at the next `refresh()` if that comes first (a thread that never
    /// runs its run loop). Never inside a write transaction; not at `beginWrite()` (so an
    /// `.initial` pending then reflects the write, as Realm documents).
    func perform(_ block: @escaping () -> Void) {
        checkThread()
        notify.pendingWork.append(block)
        scheduleDrain()
    }

    /// Schedules one run of the pending work on the context (if none is scheduled yet).
    func scheduleDrain() {
        guard !notify.drainScheduled else { return }
        notify.drainScheduled = true
        let instance = UncheckedBox(WeakCore(core: self))
        context.schedule {
            // On the instance's context: the weak reference is read where the instance lives.
            guard let core = instance.value.core else { return }
            core.notify.drainScheduled = false
            core.deliverPending()
        }
    }

    /// Runs the pending work, then delivers a pending local commit, unless in a write
    /// transaction or a delivery (then the next refresh, write or scheduled run does).
    /// `runningWork` false (`beginWrite`): only the commit is delivered; the pending work (the
    /// `.initial` of observations registered since the context last ran) waits for the context,
    /// so that, as Realm documents for a write made right after `observe`, the initial
    /// notification reflects the Realm after the write and no `.update` is sent for it.
    func deliverPending(runningWork: Bool = true) {
        guard !isInWriteTransaction, !notify.isDelivering else { return }
        while runningWork, !notify.pendingWork.isEmpty {
            let work = notify.pendingWork
            notify.pendingWork.removeAll()
            for block in work { block() }
            if isInWriteTransaction || notify.isDelivering { return }
        }
        deliverPendingCommit()
    }

    /// Tells the observers of the versions the instance moved through without telling them (its
    /// own commits, or a read begun again after `invalidate()`).
    private func deliverPendingCommit() {
        guard let old = notify.pendingOld, !isInWriteTransaction, !notify.isDelivering else { return }
        notify.pendingOld = nil
        let skip = notify.pendingSkip
        notify.pendingSkip = []
        let own = notify.pendingOwnCommit
        notify.pendingOwnCommit = false
        if ce_txn_version(old) != ce_txn_version(currentTxn()) {
            notify.isDeliveringOwnCommit = own
            notifyObservers(old: old, skipping: skip)
            notify.isDeliveringOwnCommit = false
        }
        ce_txn_end(old)
    }

    /// Keeps `old`, the version the observers heard of last, for a delivery on the context: the
    /// instance committed (`ownCommit`; `skipping`: the tokens of `withoutNotifying`) or was
    /// invalidated. An older pending version stays (the deliveries merge; only tokens skipped by
    /// both are, and the delivery is of own commits only if both were).
    func keepPendingVersion(_ old: OpaquePointer, skipping: [NotificationToken], schedule: Bool, ownCommit: Bool = false) {
        let skipped = skipping.map { ObjectIdentifier($0) }
        if notify.pendingOld == nil {
            notify.pendingOld = old
            notify.pendingSkip = skipped
            notify.pendingOwnCommit = ownCommit
        } else {
            notify.pendingOwnCommit = notify.pendingOwnCommit && ownCommit
            endRead(old)
            notify.pendingSkip.removeAll { !skipped.contains($0) }
        }
        if schedule { scheduleDrain() }
    }

    /// Starts hearing of the commits of other instances and processes (the file's notifier).
    func startObservingCommits() {
        guard frozen == nil else { return }
        let listener = CommitListener(self)
        let notifier = Notifier.of(engine)
        notifier.add(listener)
        notify.listener = listener
        notify.notifier = notifier
    }

    /// Stops hearing of commits and ends the transactions notifications kept (from deinit).
    func stopNotifications() {
        notify.listener?.cancel()
        for transaction in [notify.pendingOld, notify.writeBase].compactMap({ $0 }) + notify.deferredEnds {
            ce_txn_end(transaction)
        }
        notify.pendingOld = nil
        notify.writeBase = nil
        notify.deferredEnds = []
    }

    /// A new version was committed (by any instance or process): on the instance's context,
    /// delivers what is pending, then refreshes (autorefresh) or posts `.refreshRequired`.
    func handleNewVersion() {
        guard frozen == nil, !isInWriteTransaction, !notify.isDelivering else { return }
        deliverPending()
        guard !isInWriteTransaction, !notify.isDelivering else { return }
        if notify.autorefresh {
            _ = advance()
            return
        }
        guard let txn else { return }
        var latest: UInt64 = 0
        guard ce_db_latest_version(engine.handle, &latest) else { return }
        if latest > ce_txn_version(txn) && latest > notify.refreshRequiredVersion {
            notify.refreshRequiredVersion = latest
            sendRealmNotification(.refreshRequired)
        }
    }

    // MARK: Delivering

    /// Tells the observers (but those of `skipping`) that the instance moved from `old` to its
    /// current transaction. As in Realm, every set of a property is a change, even to the value
    /// it had (CE_CHANGES_EVERY_SET).
    func notifyObservers(old: OpaquePointer, skipping: [ObjectIdentifier]) {
        let tokens = NotificationState.live(&notify.observers).filter { !skipping.contains(ObjectIdentifier($0)) }
        guard !tokens.isEmpty else { return }
        var computed: OpaquePointer?
        guard ce_changes_compute_with_options(old, currentTxn(), UInt32(CE_CHANGES_EVERY_SET), &computed), let changes = computed else {
            engineFailure("Cannot compute the changes of the Realm")
        }
        delivering {
            for token in tokens {
                token.observer?.realmDidChange(self, old: old, changes: changes)
            }
            ce_changes_free(changes)
        }
    }

    /// Calls the `Realm.observe` blocks with `notification`, except those of `skipping`. Not
    /// nested: a block that commits does not notify the blocks again (as in Realm).
    func sendRealmNotification(_ notification: Realm.Notification, skipping: [NotificationToken] = []) {
        guard !notify.isSendingRealmNotifications else { return }
        let tokens = NotificationState.live(&notify.realmBlocks)
        guard !tokens.isEmpty else { return }
        notify.isSendingRealmNotifications = true
        defer { notify.isSendingRealmNotifications = false }
        let realm = Realm(self)
        delivering {
            for token in tokens where !skipping.contains(where: { $0 === token }) {
                token.realmBlock?(notification, realm)
            }
        }
    }

    /// Runs `body` as a delivery: refreshes and deliveries it starts are not made, transactions
    /// it ends are ended after it (a change set may borrow them). The instance stays alive.
    private func delivering(_ body: () -> Void) {
        let outer = notify.isDelivering
        notify.isDelivering = true
        withExtendedLifetime(self) { body() }
        notify.isDelivering = outer
        guard !outer else { return }
        let ends = notify.deferredEnds
        notify.deferredEnds.removeAll()
        for transaction in ends { ce_txn_end(transaction) }
    }
}

/// A weak reference to a RealmCore, for blocks scheduled on its context.
struct WeakCore {
    weak var core: RealmCore?
}

extension RealmCore {
    /// `Realm.autorefresh`: false for a frozen instance; enabling it on one stops with Realm's
    /// message.
    var autorefresh: Bool {
        get { frozen == nil && notify.autorefresh }
        set {
            if frozen != nil {
                if newValue { throwRealmException("Auto-refresh cannot be enabled for frozen Realms.") }
                return
            }
            checkThread()
            notify.autorefresh = newValue
        }
    }
}
