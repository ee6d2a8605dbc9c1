// Migration+Engine.swift — the engine calls of a Migration, on the old or the new transaction
// (DynamicContext): one function per call Migration makes (each makes the same call, with the same
// checks and messages), creating an object from a dictionary, and copying a renamed column.

import CEngine
import Foundation

extension DynamicContext {
    /// The number of objects of `table` (`ce_object_count`).
    func objectCount(_ table: TableKey) -> Int {
        var count = 0
        guard ce_object_count(txn, table, &count) else { engineFailure() }
        return count
    }

    /// The key of the object at `index` of `table` in key order (`ce_object_key_at`).
    func objectKey(_ table: TableKey, at index: Int) -> ObjectKey {
        var key: ObjectKey = 0
        guard ce_object_key_at(txn, table, index, &key) else { engineFailure() }
        return key
    }

    /// Whether `table` has the object `key` (`ce_object_exists`); nil if the engine could not
    /// tell.
    func objectExists(_ table: TableKey, _ key: ObjectKey) -> Bool? {
        var exists = false
        guard ce_object_exists(txn, table, key, &exists) else { return nil }
        return exists
    }

    /// Deletes the object `key` of `table` (`ce_object_delete`).
    func deleteObject(_ table: TableKey, _ key: ObjectKey) {
        guard ce_object_delete(txn, table, key) else { engineFailure() }
    }

    /// Removes `table` and its objects (`ce_table_remove`); false if the engine keeps it (other
    /// tables link to it).
    func removeTable(_ table: TableKey) -> Bool {
        ce_table_remove(txn, table)
    }

    /// Creates an object of `table` from the values of a dictionary by property name (its
    /// collections aside, which the caller sets once the object exists), required properties
    /// without a value getting their type's default (`ce_object_create_with_values`); its key.
    /// `typeName` names the class in messages.
    func createObject(_ table: StoredTable, values dictionary: [String: Any], typeName: String) -> ObjectKey {
        var values = [ce_value](repeating: .null, count: table.slotCount)
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
        for (name, stored) in table.properties where stored.info.collection == CE_COLLECTION_NONE {
            if let given = dictionary[name], !(given is [Any]) {
                values[Int(stored.column)] = DynamicObject.convert(given, stored.info, self, arena, name, typeName: typeName)
            } else if !stored.info.nullable && stored.info.type != CE_TYPE_LINK && stored.info.type != CE_TYPE_MIXED {
                values[Int(stored.column)] = DynamicObject.defaultValue(stored.info.type, arena)
            }
        }
        var key: ObjectKey = 0
        let ok = values.withUnsafeBufferPointer { ce_object_create_with_values(txn, table.key, $0.baseAddress, $0.count, &key) }
        guard ok else { engineFailure("Cannot create an object of type '\(typeName)'") }
        return key
    }

    /// Copies the values of column `oldColumn` of the objects of `oldTable` in `old` to column
    /// `newColumn` of the objects with the same keys in `newTable` of this context (objects that
    /// no longer exist here are skipped): `ce_object_key_at`, `ce_object_get`, `ce_object_exists`
    /// and `ce_object_set` for each object. A value that cannot be written stops with `failure`.
    func copyColumn(_ oldColumn: ColumnKey, of oldTable: TableKey, in old: DynamicContext, to newColumn: ColumnKey,
                    of newTable: TableKey, failure: @autoclosure () -> String) {
        var count = 0
        guard ce_object_count(old.txn, oldTable, &count) else { engineFailure() }
        for index in 0..<count {
            var key: ObjectKey = 0
            var value = ce_value()
            var exists = false
            guard ce_object_key_at(old.txn, oldTable, index, &key),
                ce_object_get(old.txn, oldTable, key, oldColumn, &value),
                ce_object_exists(txn, newTable, key, &exists)
            else { engineFailure() }
            if exists, !ce_object_set(txn, newTable, key, newColumn, &value) {
                engineFailure(failure())
            }
        }
    }
}
