// ObjectObserver.swift — the observer behind `Object.observe`: after each change of its Realm,
// whether the object was deleted or which of its properties changed (its own columns, or the
// objects reached through them as the key paths see it), with old and new values as Realm reads
// them.

import CEngine
import Foundation

/// One registration of `Object.observe(keyPaths:on:_:)` on the object's Realm (or on a queue's
/// Realm, with the object resolved there).
final class ObjectObserver<T: ObjectBase>: RealmObserver {
    /// A property of the object that the observer reports: by its own column, and through the
    /// objects it links to when the key paths go on below it.
    private struct Root {
        let index: Int
        /// The property's column; nil for LinkingObjects (only `below` sees them change).
        let column: ce_column_key?
        let isCollection: Bool
        /// The key paths below the property (`dogs.name`); nil when only its column counts.
        let below: KeyPathFilter?
    }

    private let object: T
    private let table: TableInfo
    private let key: ce_object_key
    private let roots: [Root]
    private let block: (ObjectChange<T>) -> Void
    /// The version the object was read at when registered: changes up to it are not reported.
    private let version: UInt64
    private var isDone = false

    /// Registers nothing yet: checks the key paths (an unknown property stops with Realm's
    /// message) and prepares their filters. `object` is managed by `core`, which is not frozen.
    init(_ object: T, _ core: RealmCore, keyPaths: [String]?, _ block: @escaping (ObjectChange<T>) -> Void) {
        guard let table = object._table else {
            throwRealmException("Only objects which are managed by a Realm support change notifications")
        }
        if object.isInvalidated { throwRealmException(invalidatedObjectMessage) }
        self.object = object
        self.table = table
        self.key = object._key
        self.block = block
        let txn = core.currentTxn()
        version = ce_txn_version(txn)
        let schema = table.schema
        var roots: [Root] = []
        // An empty list of key paths is Realm's default, as nil is.
        if let keyPaths, !keyPaths.isEmpty {
            // Checked whole first: the engine names an unknown property as Realm does.
            _ = KeyPathFilter(txn, table, keyPaths: keyPaths)
            let split = keyPaths.map { $0.split(separator: ".", maxSplits: 1).map(String.init) }
            for (index, property) in schema.properties.enumerated() {
                let mine = split.filter { $0.first == property.name }
                guard !mine.isEmpty else { continue }
                let paths = mine.map { $0.joined(separator: ".") }
                if !property.isStored {
                    // LinkingObjects: the objects linking here changed (the engine's backlink step).
                    roots.append(Root(index: index, column: nil, isCollection: true, below: KeyPathFilter(txn, table, keyPaths: paths)))
                    continue
                }
                let below = mine.contains { $0.count == 1 } ? [] : paths
                roots.append(Root(index: index, column: table.columns[index].key, isCollection: property.shape.collection != CE_COLLECTION_NONE,
                                  below: below.isEmpty ? nil : KeyPathFilter(txn, table, keyPaths: below)))
            }
        } else {
            // Realm's default: the object's own properties only (a link or list changed, not the
            // objects it reaches), unlike a collection's default.
            for (index, property) in schema.properties.enumerated() where property.isStored {
                roots.append(Root(index: index, column: table.columns[index].key, isCollection: property.shape.collection != CE_COLLECTION_NONE,
                                  below: nil))
            }
        }
        self.roots = roots
    }

    func realmDidChange(_ core: RealmCore, old: OpaquePointer, changes: OpaquePointer) {
        guard !isDone, ce_txn_version(core.currentTxn()) > version else { return }
        var kind = CE_OBJECT_UNCHANGED
        var count = 0
        guard ce_changes_object(changes, table.tableKey, key, &kind, nil, 0, &count) else { engineFailure() }
        if kind == CE_OBJECT_DELETED {
            isDone = true
            block(.deleted)
            return
        }
        var columns = [ce_column_key](repeating: 0, count: count)
        if count > 0 {
            guard ce_changes_object(changes, table.tableKey, key, &kind, &columns, count, &count) else { engineFailure() }
        }
        let changed = roots.filter { root in
            root.column.map(columns.contains) ?? false || (root.below?.matches(changes, key) ?? false)
        }
        guard !changed.isEmpty else { return }
        // As Realm: no old values for the instance's own commits (Realm never reads the old
        // version again once it wrote the new one), and none for collections.
        let withOld = !core.notify.isDeliveringOwnCommit
        let properties = changed.map { root in
            PropertyChange(name: table.schema.properties[root.index].name,
                           oldValue: root.isCollection || !withOld ? nil : oldValue(root, old, core),
                           newValue: root.isCollection ? nil : unwrapOptional(object._value(of: root.index)))
        }
        block(.change(object, properties))
    }

    /// The value the property had in the transaction `old`, read as its type reads it (a link as
    /// the object's accessor in the current version; a list or dictionary in a mixed value: nil).
    private func oldValue(_ root: Root, _ old: OpaquePointer, _ core: RealmCore) -> Any? {
        guard let column = root.column, let type = table.schema.properties[root.index].field as? any _CValueConvertible.Type else {
            return nil
        }
        var value = ce_value()
        guard ce_object_get(old, table.tableKey, key, column, &value),
            value.type != CE_TYPE_LIST, value.type != CE_TYPE_DICTIONARY
        else { return nil }
        return unwrapOptional(type._ceRead(value, Realm(core)))
    }
}
