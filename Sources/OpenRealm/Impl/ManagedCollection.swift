// ManagedCollection.swift — the collection handle shared by List, MutableSet and Map: a
// collection property of a managed object, reached through a `ce_collection` handle.

import CEngine
import Foundation

// MARK: - A managed collection

/// A collection property of a managed object, reached through a `ce_collection` handle that is
/// opened on first use in each transaction (the engine's handles belong to one transaction).
final class ManagedCollection {
    /// Where the collection is: a collection property (or the list or dictionary a mixed
    /// property holds), or the list or dictionary held by an element of another collection.
    enum Origin {
        case property(mixed: Bool)
        case nested(parent: ManagedCollection, at: NestedPosition)
    }

    /// The element of a parent collection that holds a nested collection.
    enum NestedPosition {
        case index(Int)
        case key(String)
    }

    let core: RealmCore
    /// The owning object's row, copied rather than referenced: the object caches its collections,
    /// and a reference back would keep both (and the Realm) alive forever.
    let table: TableInfo
    let key: ce_object_key
    let epoch: UInt64
    let column: ce_column_key
    let origin: Origin
    private var handle: OpaquePointer?
    private var generation: UInt64 = .max

    init(owner: ObjectBase, column: ce_column_key, mixed: Bool = false) {
        self.core = owner._core.unsafelyUnwrapped
        self.table = owner._table.unsafelyUnwrapped
        self.key = owner._key
        self.epoch = owner._epoch
        self.column = column
        self.origin = .property(mixed: mixed)
    }

    /// The collection held by the element `at` of `parent`. (It follows the position, not the
    /// element: an insertion before it in the parent makes it name another element.)
    init(parent: ManagedCollection, at position: NestedPosition) {
        self.core = parent.core
        self.table = parent.table
        self.key = parent.key
        self.epoch = parent.epoch
        self.column = parent.column
        self.origin = .nested(parent: parent, at: position)
    }

    var realm: Realm { Realm(core) }

    /// The handle, for reading.
    func read() -> OpaquePointer {
        _ = core.txn(epoch: epoch)
        return current()
    }

    /// The handle, for writing (stops outside a write transaction).
    func write() -> OpaquePointer {
        _ = core.writeTxn(epoch: epoch)
        return current()
    }

    /// The handle in the current transaction, opened if needed. A frozen Realm's threads read
    /// at once: each has its own handles, by collection.
    private func current() -> OpaquePointer {
        if let frozen = core.frozen { return frozen.collection(frozenKey) { open() } }
        if generation == core.collectionGeneration, let handle { return handle }
        let raw = open()
        core.register(raw)
        handle = raw
        generation = core.collectionGeneration
        return raw
    }

    /// What names the collection among a frozen Realm's handles.
    private var frozenKey: String {
        switch origin {
        case .property(let mixed): "\(table.tableKey)/\(key)/\(column)/\(mixed)"
        case .nested(let parent, .index(let index)): parent.frozenKey + "/#\(index)"
        case .nested(let parent, .key(let name)): parent.frozenKey + "/k\(name.utf8.count):" + name
        }
    }

    /// The same collection in `core` (a frozen or thawed Realm of the same file); nil if its
    /// object does not exist there.
    func rebased(onto core: RealmCore) -> ManagedCollection? {
        switch origin {
        case .property(let mixed):
            guard let table = core.tableInfo(for: table.schema.objectClass),
                core.objectExists(epoch: core.epoch, table: table, key: key)
            else { return nil }
            return ManagedCollection(core: core, table: table, key: key, column: column, origin: .property(mixed: mixed))
        case .nested(let parent, let position):
            guard let parent = parent.rebased(onto: core) else { return nil }
            return ManagedCollection(parent: parent, at: position)
        }
    }

    private init(core: RealmCore, table: TableInfo, key: ce_object_key, column: ce_column_key, origin: Origin) {
        self.core = core
        self.table = table
        self.key = key
        self.epoch = core.epoch
        self.column = column
        self.origin = origin
    }

    /// Opens the collection's handle in the current transaction.
    private func open() -> OpaquePointer {
        let txn = core.currentTxn()
        var raw: OpaquePointer?
        let ok: Bool
        switch origin {
        case .property(let mixed):
            ok = mixed
                ? ce_collection_open_mixed(txn, table.tableKey, key, column, &raw)
                : ce_collection_open(txn, table.tableKey, key, column, &raw)
        case .nested(let parent, .index(let index)):
            var at = ce_value.int(Int64(index))
            ok = ce_collection_open_nested(parent.current(), &at, &raw)
        case .nested(let parent, .key(let name)):
            let arena = _CArena()
            defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
            var at = arena.string(name)
            ok = ce_collection_open_nested(parent.current(), &at, &raw)
        }
        guard ok, let raw else { engineFailure() }
        return raw
    }

    /// An element read from the collection: a nested list or dictionary (in a collection of
    /// mixed values) becomes a managed collection, anything else a value of `T`.
    func element<T: _CValueConvertible>(_ value: ce_value, at position: NestedPosition, as type: T.Type) -> T {
        if value.type == CE_TYPE_LIST || value.type == CE_TYPE_DICTIONARY, let mixed = T.self as? _NestedCollectionHolder.Type {
            return mixed._nested(value.type, ManagedCollection(parent: self, at: position)) as! T
        }
        return T._ceRead(value, realm)
    }

    var count: Int {
        var count = 0
        guard ce_collection_size(read(), &count) else { engineFailure() }
        return count
    }

    func get(_ index: Int) -> ce_value {
        let collection = read()
        var value = ce_value()
        guard ce_collection_get(collection, index, &value) else { indexFailure(index, count) }
        return value
    }

    func find(_ value: inout ce_value) -> Int? {
        var index = 0
        var found = false
        guard ce_collection_find(read(), &value, &index, &found) else { engineFailure() }
        return found ? index : nil
    }

    func clear() {
        guard ce_collection_clear(write()) else { engineFailure() }
    }

    var isInvalidated: Bool { !core.objectExists(epoch: epoch, table: table, key: key) }

    /// The name of the class the collection's links point to (nil for values).
    var linkTargetName: String? {
        guard let index = table.columns.firstIndex(where: { $0.key == column }) else { return nil }
        return table.schema.properties[index].linkTargetName
    }
}

extension ManagedCollection {
    /// Whether `other` is this collection (of the same object's same property, or the same
    /// nested position) in the same Realm instance: Realm's `==` of managed collections.
    func isSameCollection(as other: ManagedCollection) -> Bool {
        core === other.core && frozenKey == other.frozenKey
    }

    /// Hashes what `isSameCollection(as:)` compares.
    func hashIdentity(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(core))
        hasher.combine(frozenKey)
    }
}

extension ManagedCollection {
    /// The collection frozen at its Realm's current version.
    func frozen() -> ManagedCollection {
        if core.frozen != nil { return self }
        guard let moved = rebased(onto: core.frozenCore()) else { throwRealmException(invalidatedObjectMessage) }
        return moved
    }
}
