// RealmObserver.swift — RealmObserver: what collection and object observation registers on a
// live Realm instance to hear of every version the instance moves to.

/// A registration on one live Realm instance (`RealmCore.addObserver`) that hears of every
/// version the instance moves to: a refresh (automatic, `refresh()`, or the one `beginWrite`
/// does first), and the instance's own commits.
///
/// `realmDidChange` is called on the Realm's thread or queue, outside write transactions (unless
/// an earlier observer of the same delivery began a write and left it open), never during
/// another delivery of the same instance. `old` is an engine read transaction (`ce_txn *`) at the
/// version the observers last heard of; the instance's current transaction (`currentTxn()`) reads
/// the new one; `changes` is the `ce_changes *` between the two (`ce_changes_compute(old, new)`).
/// Both are valid only during the call: do not keep them, nor collection handles opened in `old`.
///
/// Ordering: the blocks given to `RealmCore.perform` run before any later delivery (an
/// observation's `.initial`, made at registration, comes before its first update). The
/// observers of one delivery are called in registration order, then the `Realm.observe` blocks
/// get `.didChange`.
///
/// Local commits: after `commitWrite`, the commit is delivered later on the Realm's context
/// (as Realm Swift schedules collection notifications), or earlier by `refresh()` or the next
/// `beginWrite`. The observers whose tokens were passed to `write(withoutNotifying:)` or
/// `commitWrite(withoutNotifying:)` are not called for that commit.
///
///     final class CountObserver: RealmObserver {
///         func realmDidChange(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer) {
///             // ce_changes_table(changes, table, ...) says what changed
///         }
///     }
///     let token = core.addObserver(CountObserver())
///     token.invalidate()
protocol RealmObserver: AnyObject {
    /// The instance moved from the version `old` reads to the version its current transaction
    /// reads; `changes` says what changed between them. Both pointers are valid only during the
    /// call.
    func realmDidChange(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer)
}
