// AsyncTransactionId.swift — AsyncTransactionId: the id of a queued asynchronous write or of
// its commit's completion, as in Realm Swift.

/// The id of an asynchronous transaction (Realm's `AsyncTransactionId`): returned by
/// `Realm.beginAsyncWrite(_:)`, `Realm.writeAsync(_:onComplete:)` and
/// `Realm.commitAsyncWrite(allowGrouping:_:)`, and passed to `Realm.cancelAsyncWrite(_:)`.
///
///     let id = realm.writeAsync { realm.add(Dog()) }
///     try realm.cancelAsyncWrite(id)      // before the block runs: it never does
public typealias AsyncTransactionId = UInt32
