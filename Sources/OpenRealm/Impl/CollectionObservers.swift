// CollectionObservers.swift — the observers behind the collections' `observe`: `.initial` on the
// Realm's context once registered, then an `.update` after each change of the Realm that changed
// the collection (a list or set through ce_changes_collection, a map through
// ce_changes_dictionary, results and linking objects through a ce_results_observer, sorted values
// by comparing them).

import CEngine
import Foundation

// MARK: - What every collection observer does

/// The part of a collection observer that does not depend on how its changes are computed: the
/// initial delivery, the version it reflects, and the end of a collection whose object was
/// deleted.
class CollectionObserverBase: RealmObserver {
    /// The version the last delivery reflected; nil until `.initial` is delivered (changes before
    /// it are in the initial state).
    private(set) var version: UInt64?
    /// Set once a deleted collection was reported: nothing follows.
    private(set) var isDone = false

    /// Delivers `.initial` (reads the collection as the Realm reads it now).
    final func deliverInitial(_ core: RealmCore) {
        guard version == nil, !isDone else { return }
        version = currentVersion(core)
        start(core)
    }

    final func realmDidChange(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer) {
        guard let version, !isDone else { return }
        let now = currentVersion(core)
        guard now > version else { return }
        self.version = now
        let from = ce_txn_version(old)
        if from < version {
            // The change set starts before the state last delivered (a delivery merged with one
            // the initial state already reflected): what it says cannot be told from there.
            // Start again from the current version. (The instance's deliveries do not do this.)
            restart(core)
            return
        }
        update(core, old: old, changes: changes, skipped: from > version)
    }

    /// No more notifications.
    final func finish() { isDone = true }

    /// Reads the collection's initial state and delivers `.initial`. Overridden.
    func start(_ core: RealmCore) { fatalError("abstract") }

    /// Takes the current version as the state last delivered, without delivering. Overridden
    /// by the observers that remember what they delivered.
    func restart(_ core: RealmCore) {}

    /// Computes and delivers the change `changes` describes (from `old` to the current version).
    /// `skipped`: the versions between the last delivery and `old` were not delivered (a
    /// `withoutNotifying` commit): an observer that remembers what it delivered starts from
    /// `old` instead. Overridden.
    func update(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer, skipped: Bool) { fatalError("abstract") }
}

/// The indices of a collection change as Swift arrays (deletions, insertions, modifications in
/// the old version), the C arrays freed.
private func takeIndices(_ change: inout ce_collection_change) -> (deletions: [Int], insertions: [Int], modifications: [Int]) {
    defer { ce_collection_change_free(&change) }
    func array(_ pointer: UnsafeMutablePointer<Int>?, _ count: Int) -> [Int] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
    return (array(change.deletions, change.deletion_count), array(change.insertions, change.insertion_count),
            array(change.modifications, change.modification_count))
}

/// A handle on the collection `managed` names, opened in the transaction `old` (its object
/// exists there, not in the current one); nil for a nested collection. Closed by the caller.
private func openCollection(_ managed: ManagedCollection, in old: OpaquePointer) -> OpaquePointer? {
    guard case .property(let mixed) = managed.origin else { return nil }
    var raw: OpaquePointer?
    let ok = mixed
        ? ce_collection_open_mixed(old, managed.table.tableKey, managed.key, managed.column, &raw)
        : ce_collection_open(old, managed.table.tableKey, managed.key, managed.column, &raw)
    return ok ? raw : nil
}

/// A handle on the collection `managed` names in the current transaction; nil when it no longer
/// exists there (its object deleted, or the mixed value that held a nested collection replaced).
private func presentHandle(_ managed: ManagedCollection) -> OpaquePointer? {
    if managed.isInvalidated { return nil }
    var value = ce_value()
    guard case .nested(let parent, let position) = managed.origin else {
        if case .property(mixed: true) = managed.origin {
            // A mixed property holds the collection only while its value is one.
            guard ce_object_get(managed.core.currentTxn(), managed.table.tableKey, managed.key, managed.column, &value),
                value.type == CE_TYPE_LIST || value.type == CE_TYPE_DICTIONARY
            else { return nil }
        }
        return managed.read()
    }
    guard let parentHandle = presentHandle(parent) else { return nil }
    switch position {
    case .index(let index):
        var count = 0
        guard ce_collection_size(parentHandle, &count), index < count, ce_collection_get(parentHandle, index, &value) else { return nil }
    case .key(let key):
        var found = false
        guard key.withCString({ ce_dictionary_get(parentHandle, $0, key.utf8.count, &value, &found) }), found else { return nil }
    }
    guard value.type == CE_TYPE_LIST || value.type == CE_TYPE_DICTIONARY else { return nil }
    return managed.read()
}

// MARK: - Lists and sets

/// Observes a managed `List` or `MutableSet` (`collection` is what the block receives).
final class ListObserver<C>: CollectionObserverBase {
    private let collection: C
    private let managed: ManagedCollection
    private let filter: KeyPathFilter?
    private let block: (RealmCollectionChange<C>) -> Void
    /// The number of elements at the last delivery: all of them are deleted with their object.
    private var count = 0

    /// `elementClass`: the class of the linked objects (nil for values); `keyPaths` filter their
    /// changes (nil or empty: Realm's default).
    init(_ collection: C, _ managed: ManagedCollection, elementClass: ObjectBase.Type?, keyPaths: [String]?,
         _ block: @escaping (RealmCollectionChange<C>) -> Void) {
        self.collection = collection
        self.managed = managed
        self.block = block
        filter = KeyPathFilter.forElements(of: managed, elementClass: elementClass, keyPaths: keyPaths)
    }

    override func start(_ core: RealmCore) {
        restart(core)
        block(.initial(collection))
    }

    override func restart(_ core: RealmCore) {
        count = managed.isInvalidated ? 0 : managed.count
    }

    override func update(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer, skipped: Bool) {
        var change = ce_collection_change()
        guard let handle = presentHandle(managed) else {
            // Its object was deleted (or the nested collection replaced): the elements it had at
            // `old` are (the engine's deletions, from a handle in `old`; the count of the last
            // delivery for a nested collection).
            if let handle = openCollection(managed, in: old) {
                defer { ce_collection_close(handle) }
                if ce_changes_collection(changes, handle, filter?.handle, &change) {
                    count = change.deletion_count
                    ce_collection_change_free(&change)
                }
            }
            deleteAll()
            return
        }
        guard ce_changes_collection(changes, handle, filter?.handle, &change) else { engineFailure() }
        if change.collection_deleted {
            count = change.deletion_count
            ce_collection_change_free(&change)
            deleteAll()
            return
        }
        let (deletions, insertions, modifications) = takeIndices(&change)
        count = managed.count
        guard !deletions.isEmpty || !insertions.isEmpty || !modifications.isEmpty else { return }
        block(.update(collection, deletions: deletions, insertions: insertions, modifications: modifications))
    }

    /// Its object was deleted: every element is deleted, and nothing follows (as Realm).
    private func deleteAll() {
        finish()
        guard count > 0 else { return }
        block(.update(collection, deletions: Array(0..<count), insertions: [], modifications: []))
    }
}

// MARK: - Maps

/// Observes a managed `Map`.
final class MapObserver<M: RealmKeyedCollection>: CollectionObserverBase {
    private let map: M
    private let managed: ManagedCollection
    private let filter: KeyPathFilter?
    private let block: (RealmMapChange<M>) -> Void
    /// The keys at the last delivery: all of them are deleted with their object.
    private var keys: [M.Key] = []

    init(_ map: M, _ managed: ManagedCollection, elementClass: ObjectBase.Type?, keyPaths: [String]?,
         _ block: @escaping (RealmMapChange<M>) -> Void) {
        self.map = map
        self.managed = managed
        self.block = block
        filter = KeyPathFilter.forElements(of: managed, elementClass: elementClass, keyPaths: keyPaths)
    }

    override func start(_ core: RealmCore) {
        restart(core)
        block(.initial(map))
    }

    override func restart(_ core: RealmCore) {
        keys = managed.isInvalidated ? [] : map.keys
    }

    override func update(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer, skipped: Bool) {
        func keys(_ values: UnsafeMutablePointer<ce_value>?, _ count: Int) -> [M.Key] {
            guard let values, count > 0 else { return [] }
            return UnsafeBufferPointer(start: values, count: count).map { M.Key(_mapKeyString: $0.stringValue) }
        }
        var change = ce_dictionary_change()
        guard let handle = presentHandle(managed) else {
            // Its object was deleted: the keys it had at `old` are (see ListObserver).
            if let handle = openCollection(managed, in: old) {
                defer { ce_collection_close(handle) }
                if ce_changes_dictionary(changes, handle, filter?.handle, &change) {
                    self.keys = keys(change.deletions, change.deletion_count)
                    ce_dictionary_change_free(&change)
                }
            }
            deleteAll()
            return
        }
        guard ce_changes_dictionary(changes, handle, filter?.handle, &change) else { engineFailure() }
        defer { ce_dictionary_change_free(&change) }
        if change.collection_deleted {
            self.keys = keys(change.deletions, change.deletion_count)
            deleteAll()
            return
        }
        let deletions = keys(change.deletions, change.deletion_count)
        let insertions = keys(change.insertions, change.insertion_count)
        let modifications = keys(change.modifications, change.modification_count)
        self.keys = map.keys
        guard !deletions.isEmpty || !insertions.isEmpty || !modifications.isEmpty else { return }
        block(.update(map, deletions: deletions, insertions: insertions, modifications: modifications))
    }

    private func deleteAll() {
        finish()
        guard !keys.isEmpty else { return }
        block(.update(map, deletions: keys, insertions: [], modifications: []))
    }
}

// MARK: - Results and linking objects

/// Observes the objects of a query (a class's objects, filtered, sorted, distinct; the objects
/// of a list or set; linking objects) with a ce_results_observer: each change re-evaluates the
/// view and compares it with the objects it had.
final class ResultsObserver<C>: CollectionObserverBase {
    private let collection: C
    private let core: RealmCore
    private let query: ResultsQuery
    private let keyPaths: [String]?
    private let block: (RealmCollectionChange<C>) -> Void
    private var filter: KeyPathFilter?
    private var observer: OpaquePointer?
    /// The number of objects at the last delivery (all deleted when the view's object is).
    private var count = 0

    /// `keyPaths` are checked now if the class has a table (an unknown property stops with
    /// Realm's message).
    init(_ collection: C, _ core: RealmCore, _ query: ResultsQuery, keyPaths: [String]?,
         _ block: @escaping (RealmCollectionChange<C>) -> Void) {
        self.collection = collection
        self.core = core
        self.query = query
        self.keyPaths = keyPaths?.isEmpty == true ? nil : keyPaths
        self.block = block
        super.init()
        if let keyPaths = self.keyPaths, let table = query.tableInfo(core) {
            filter = KeyPathFilter(core.currentTxn(), table, keyPaths: keyPaths)
        }
    }

    deinit { ce_results_observer_free(observer) }

    /// Starts observing the view as the transaction `txn` (default: the current one) has it;
    /// false while the class has no table (nothing to observe yet).
    private func makeObserver(at txn: OpaquePointer? = nil) -> Bool {
        guard let (view, table) = query.view(core) else { return false }
        let txn = txn ?? core.currentTxn()
        if filter == nil, let keyPaths { filter = KeyPathFilter(core.currentTxn(), table, keyPaths: keyPaths) }
        ce_results_observer_free(observer)
        observer = nil
        var raw: OpaquePointer?
        guard ce_results_observer_create(view, txn, filter?.handle, &raw), let raw else { engineFailure() }
        observer = raw
        guard ce_results_count(view, txn, &count) else { engineFailure() }
        return true
    }

    /// Whether the class has a table in the version `txn` reads.
    private func hasTable(_ txn: OpaquePointer) -> Bool {
        var key: ce_table_key = 0
        var found = false
        return ce_table_find(txn, query.className, &key, &found) && found
    }

    override func start(_ core: RealmCore) {
        _ = makeObserver()
        block(.initial(collection))
    }

    override func restart(_ core: RealmCore) {
        ce_results_observer_free(observer)
        observer = nil
        count = 0
        _ = makeObserver()
    }

    override func update(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer, skipped: Bool) {
        if observer == nil || skipped {
            // The class had no table at the last delivery, or what changed up to `old` was not to
            // be told: start from the objects at `old`.
            ce_results_observer_free(observer)
            observer = nil
            count = 0
            if hasTable(old) { _ = makeObserver(at: old) }
        }
        guard let observer else {
            // The class had no table at `old`: everything there is now is new.
            guard makeObserver(), count > 0 else { return }
            block(.update(collection, deletions: [], insertions: Array(0..<count), modifications: []))
            return
        }
        var change = ce_collection_change()
        guard ce_results_observer_update(observer, changes, &change) else {
            // The object whose list or linking objects these are was deleted.
            guard ce_last_error_code() == CE_ERR_NO_SUCH_OBJECT else { engineFailure() }
            finish()
            if count > 0 { block(.update(collection, deletions: Array(0..<count), insertions: [], modifications: [])) }
            return
        }
        let deleted = change.collection_deleted
        let (deletions, insertions, modifications) = takeIndices(&change)
        count += insertions.count - deletions.count
        if deleted { finish() }
        guard !deletions.isEmpty || !insertions.isEmpty || !modifications.isEmpty else { return }
        block(.update(collection, deletions: deletions, insertions: insertions, modifications: modifications))
    }
}

// MARK: - Sorted values

/// Observes a `Results` of a list's or set's values in sorted order: each change compares the
/// values with those of the last delivery (deletions and insertions; a value has no identity to
/// be modified). A commit skipped with `withoutNotifying` is in the next change.
final class SortedValuesObserver<C, Element: Hashable>: CollectionObserverBase {
    private let collection: C
    private let values: () -> [Element]?
    private let block: (RealmCollectionChange<C>) -> Void
    private var last: [Element] = []

    /// `values` reads them now; nil once the collection's object is deleted.
    init(_ collection: C, values: @escaping () -> [Element]?, _ block: @escaping (RealmCollectionChange<C>) -> Void) {
        self.collection = collection
        self.values = values
        self.block = block
    }

    override func start(_ core: RealmCore) {
        restart(core)
        block(.initial(collection))
    }

    override func restart(_ core: RealmCore) {
        last = values() ?? []
    }

    override func update(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer, skipped: Bool) {
        guard let now = values() else {
            finish()
            if !last.isEmpty { block(.update(collection, deletions: Array(last.indices), insertions: [], modifications: [])) }
            return
        }
        let difference = now.difference(from: last)
        last = now
        var deletions: [Int] = []
        var insertions: [Int] = []
        for step in difference {
            switch step {
            case .remove(let offset, _, _): deletions.append(offset)
            case .insert(let offset, _, _): insertions.append(offset)
            }
        }
        guard !deletions.isEmpty || !insertions.isEmpty else { return }
        block(.update(collection, deletions: deletions.sorted(), insertions: insertions.sorted(), modifications: []))
    }
}
