// Engine.swift — the small wrappers through which the public files reach the C engine: the key
// types, the engine values of public enums, and one function per engine call a public file makes
// (each makes the same single C call the public file made before). Only Impl/ imports CEngine.

import CEngine
import Foundation

// MARK: - Keys

/// An object's key within its table (`ce_object_key`).
typealias ObjectKey = ce_object_key
/// A table's key within a file (`ce_table_key`).
typealias TableKey = ce_table_key
/// A column's key within a table (`ce_column_key`).
typealias ColumnKey = ce_column_key

// MARK: - Public enums

extension UpdatePolicy {
    var cValue: ce_update_policy {
        switch self {
        case .error: CE_UPDATE_ERROR
        case .modified: CE_UPDATE_MODIFIED
        case .all: CE_UPDATE_ALL
        }
    }
}

// MARK: - Files

extension RealmCore {
    /// Deletes the Realm file at `path` and the files the engine keeps beside it
    /// (`ce_db_delete_files`); whether the Realm file existed. `Realm.deleteFiles(for:)`.
    static func deleteFiles(atPath path: String, fileURL: URL?) throws -> Bool {
        var deleted = false
        guard ce_db_delete_files(path, &deleted) else { throw Realm.Error.last(fileURL: fileURL) }
        return deleted
    }
}

// MARK: - Objects

extension RealmCore {
    /// The key of the object of `table` whose primary key is `value` (`ce_object_find_primary_key`
    /// in the current transaction), or nil. `Realm.object(ofType:forPrimaryKey:)`.
    func findObject(_ table: TableInfo, primaryKey value: inout ce_value, className: String) -> ObjectKey? {
        var objectKey: ObjectKey = 0
        var found = false
        guard ce_object_find_primary_key(currentTxn(), table.tableKey, &value, &objectKey, &found) else {
            engineFailure("Cannot find '\(className)' by primary key")
        }
        guard found else { return nil }
        return objectKey
    }

    /// The number of objects of `originTable` linking to `owner` through `column`
    /// (`ce_object_backlink_count`). `LinkingObjects.count`.
    func backlinkCount(_ owner: ObjectBase, _ originTable: TableInfo, _ column: ColumnKey) -> Int {
        var count = 0
        guard ce_object_backlink_count(txn(for: owner), owner._tableKey, owner._key, originTable.tableKey, column, &count)
        else { engineFailure() }
        return count
    }

    /// The key of the `position`th object of `originTable` linking to `owner` through `column`
    /// (`ce_object_backlink_at`); nil if there is none. `LinkingObjects[position]`.
    func backlink(_ owner: ObjectBase, _ originTable: TableInfo, _ column: ColumnKey, at position: Int) -> ObjectKey? {
        var key: ObjectKey = 0
        guard ce_object_backlink_at(txn(for: owner), owner._tableKey, owner._key, originTable.tableKey, column, position, &key)
        else { return nil }
        return key
    }
}

// MARK: - Sets

extension ManagedCollection {
    /// Inserts `element` into the managed set (`ce_set_insert`). `MutableSet.insert(_:)`.
    func setInsert<Element: _CValueConvertible>(_ element: Element) {
        let set = write()
        let arena = _CArena()
        var value = element._ceValue(arena, realm)
        guard ce_set_insert(set, &value, nil) else { engineFailure() }
    }

    /// Removes `element` from the managed set if it holds it (`ce_set_erase`). `MutableSet.remove(_:)`.
    func setErase<Element: _CValueConvertible>(_ element: Element) {
        let set = write()
        let arena = _CArena()
        var value = element._ceValue(arena, realm)
        guard ce_set_erase(set, &value, nil) else { engineFailure() }
    }
}
