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

    /// A new object of the class named `typeName` for a link a migration sets, as Realm adds what
    /// it is given: from an unmanaged (or another Realm's) model object's properties, or from a
    /// dictionary of values by property name; nil for another value, an embedded class or a
    /// read-only context.
    func createLinkedObject(_ value: Any, typeName: String) -> (TableKey, ObjectKey)? {
        guard writable, let table = table(named: typeName), !table.isEmbedded else { return nil }
        var values: [String: Any] = [:]
        if let model = value as? ObjectBase, !(model is DynamicObject) {
            if let known = linkedModels[ObjectIdentifier(model)], objectExists(known.table, known.key) == true {
                return (known.table, known.key)
            }
            values = DynamicContext.storedValues(of: model)
        } else if let dictionary = value as? [String: Any] {
            values = dictionary
        } else {
            return nil
        }
        let stored = Dictionary(values.map { (columnName(typeName, $0.key), $0.value) }) { first, _ in first }
        let key = createObject(table, values: stored, typeName: typeName)
        let created = object(table.key, key)
        for (name, given) in values where table.properties[columnName(typeName, name)]?.info.isCollection == true {
            created[name] = given
        }
        if let model = value as? ObjectBase { linkedModels[ObjectIdentifier(model)] = (model, table.key, key) }
        return (table.key, key)
    }

    /// The values of the stored properties of a model object, by property name.
    static func storedValues(of model: ObjectBase) -> [String: Any] {
        var values: [String: Any] = [:]
        for (index, property) in model._schemaInfo.properties.enumerated() where property.isStored {
            values[property.name] = model._value(of: index)
        }
        return values
    }

    /// Copies the values of column `oldColumn` (a `property` holding one value) of the objects of
    /// `oldTable` in `old` to column `newColumn` of the objects with the same keys in `newTable`
    /// of this context (objects that no longer exist here are skipped), an embedded object as a
    /// new one of the same values (`copyProperty`). A value that cannot be written stops with
    /// `failure`.
    func copyColumn(_ oldColumn: ColumnKey, _ property: StoredProperty, of oldTable: TableKey, in old: DynamicContext,
                    to newColumn: ColumnKey, of newTable: TableKey, failure: @autoclosure () -> String) {
        for index in 0..<old.objectCount(oldTable) {
            let key = old.objectKey(oldTable, at: index)
            guard objectExists(newTable, key) == true else { continue }
            copyProperty(oldColumn, property, of: oldTable, key, in: old, to: newColumn, of: newTable, key, failure: failure())
        }
    }
}

extension DynamicContext {
    /// Copies the elements of the collection column `oldColumn` (`property`) of the objects of
    /// `oldTable` in `old` to the collection column `newColumn` of the objects with the same keys
    /// here (objects that no longer exist here are skipped), replacing what the new collections
    /// hold (`copyProperty`). A value that cannot be written stops with `failure`.
    func copyCollection(_ oldColumn: ColumnKey, _ property: StoredProperty, of oldTable: TableKey, in old: DynamicContext,
                        to newColumn: ColumnKey, of newTable: TableKey, failure: @autoclosure () -> String) {
        for index in 0..<old.objectCount(oldTable) {
            let key = old.objectKey(oldTable, at: index)
            guard objectExists(newTable, key) == true else { continue }
            copyProperty(oldColumn, property, of: oldTable, key, in: old, to: newColumn, of: newTable, key, failure: failure())
        }
    }

    /// The embedded class a property links to, here and in `old` (nil for any other property).
    private func embeddedTargets(_ property: StoredProperty, in old: DynamicContext) -> (old: StoredTable, new: StoredTable)? {
        guard property.type == CE_TYPE_LINK, let name = property.targetName, let target = table(named: name), target.isEmbedded,
            let oldTarget = old.table(named: name)
        else { return nil }
        return (oldTarget, target)
    }

    /// Copies property `oldColumn` (`property`) of object `oldKey` of `oldTable` in `old` to
    /// property `newColumn` of object `newKey` of `newTable` here: a value (`ce_object_get`,
    /// `ce_object_set`; links keep their target's key), or the elements of a list in order
    /// (`ce_list_insert`), of a set (`ce_set_insert`), of a dictionary by key
    /// (`ce_dictionary_set`), replacing what the new collection holds. An embedded object is made
    /// again with the same values (`ce_object_create_embedded`, `ce_list_insert_embedded`,
    /// `ce_dictionary_insert_embedded`, then `copyEmbedded`): Realm renames the column and keeps
    /// its embedded objects, while here the old column, and its embedded objects with it, were
    /// removed from the new schema before the migration block runs.
    func copyProperty(_ oldColumn: ColumnKey, _ property: StoredProperty, of oldTable: TableKey, _ oldKey: ObjectKey,
                      in old: DynamicContext, to newColumn: ColumnKey, of newTable: TableKey, _ newKey: ObjectKey,
                      failure: @autoclosure () -> String) {
        let embedded = embeddedTargets(property, in: old)
        if !property.isCollection {
            var value = ce_value()
            guard ce_object_get(old.txn, oldTable, oldKey, oldColumn, &value) else { engineFailure() }
            if let embedded, value.type == CE_TYPE_LINK {
                var child: ObjectKey = 0
                guard ce_object_create_embedded(txn, newTable, newKey, newColumn, &child) else { engineFailure(failure()) }
                copyEmbedded(value.link.key, of: embedded.old, in: old, to: child, of: embedded.new, failure: failure())
            } else if !ce_object_set(txn, newTable, newKey, newColumn, &value) {
                engineFailure(failure())
            }
            return
        }
        var source: OpaquePointer?
        var target: OpaquePointer?
        guard ce_collection_open(old.txn, oldTable, oldKey, oldColumn, &source), let source else { engineFailure() }
        defer { ce_collection_close(source) }
        guard ce_collection_open(txn, newTable, newKey, newColumn, &target), let target else { engineFailure() }
        defer { ce_collection_close(target) }
        var count = 0
        guard ce_collection_size(source, &count), ce_collection_clear(target) else { engineFailure() }
        for position in 0..<count {
            var value = ce_value()
            guard ce_collection_get(source, position, &value) else { engineFailure() }
            var name = ""
            if property.collection == CE_COLLECTION_DICTIONARY {
                var key = ce_value()
                guard ce_dictionary_key_at(source, position, &key) else { engineFailure() }
                name = key.stringValue
            }
            let ok: Bool
            var child: ObjectKey = 0
            let makesEmbedded = embedded != nil && value.type == CE_TYPE_LINK
            switch property.collection {
            case CE_COLLECTION_LIST:
                ok = makesEmbedded ? ce_list_insert_embedded(target, position, &child) : ce_list_insert(target, position, &value)
            case CE_COLLECTION_SET: ok = ce_set_insert(target, &value, nil)
            default:
                ok = name.withCString {
                    makesEmbedded ? ce_dictionary_insert_embedded(target, $0, name.utf8.count, &child)
                        : ce_dictionary_set(target, $0, name.utf8.count, &value)
                }
            }
            if !ok { engineFailure(failure()) }
            if makesEmbedded, let embedded {
                copyEmbedded(value.link.key, of: embedded.old, in: old, to: child, of: embedded.new, failure: failure())
            }
        }
    }

    /// Gives the new embedded object `newKey` of `newTable` the values of the embedded object
    /// `oldKey` of `oldTable` in `old`: each property both classes have, by name and of the same
    /// type (the embedded objects it holds made again the same way).
    private func copyEmbedded(_ oldKey: ObjectKey, of oldTable: StoredTable, in old: DynamicContext, to newKey: ObjectKey,
                              of newTable: StoredTable, failure: @autoclosure () -> String) {
        for (name, (oldColumn, oldProperty)) in oldTable.properties {
            guard let (newColumn, newProperty) = newTable.properties[name], oldProperty.hasSameType(as: newProperty) else { continue }
            copyProperty(oldColumn, oldProperty, of: oldTable.key, oldKey, in: old, to: newColumn, of: newTable.key, newKey,
                         failure: failure())
        }
    }
}

extension DynamicContext {
    /// The schema of the transaction's file, read from its tables (no model classes: each
    /// object schema's class is `DynamicObject`); linking objects, which the file does not
    /// store, are absent.
    func fileSchema() -> Schema {
        var count = 0
        guard ce_table_count(txn, &count) else { engineFailure() }
        var schemas: [ObjectSchema] = []
        for table in 0..<count {
            var cName: UnsafePointer<CChar>?
            // Removed tables keep their slot and have no name.
            guard ce_table_name(txn, ce_table_key(table), &cName), let cName else { continue }
            var embedded = false
            var columns = 0
            guard ce_table_is_embedded(txn, ce_table_key(table), &embedded),
                ce_property_count(txn, ce_table_key(table), &columns)
            else { engineFailure() }
            var properties: [Property] = []
            for column in 0..<columns {
                var info = ce_property_info()
                guard ce_property_get_info(txn, ce_table_key(table), ce_column_key(column), &info), !info.backlink else { continue }
                var target: String?
                if info.type == CE_TYPE_LINK {
                    var targetName: UnsafePointer<CChar>?
                    if ce_table_name(txn, info.link_target, &targetName), let targetName { target = String(cString: targetName) }
                }
                let name = String(cString: info.name)
                // The file's own names (the persisted names), as Realm's old schema has them.
                properties.append(Property(
                    name: name, columnName: name, type: PropertyType(info.type),
                    isIndexed: info.indexed || info.primary_key, isOptional: info.nullable && info.type != CE_TYPE_MIXED,
                    isArray: info.collection == CE_COLLECTION_LIST, isSet: info.collection == CE_COLLECTION_SET,
                    isMap: info.collection == CE_COLLECTION_DICTIONARY, isPrimaryKey: info.primary_key,
                    objectClassName: target, linkOriginPropertyName: nil))
            }
            schemas.append(ObjectSchema(className: String(cString: cName), properties: properties, isEmbedded: embedded,
                                        objectClass: DynamicObject.self))
        }
        return Schema(objectSchema: schemas.sorted { $0.className < $1.className })
    }
}

extension RealmCore {
    /// The schema version stored in the file at `url` (`ce_schema_version`), read through a
    /// read-only handle. A file without a schema (no class, version 0), or no file, is Realm's
    /// "not versioned" error (`.fail`: Realm opens a missing file, which has no schema then).
    static func schemaVersion(at url: URL, encryptionKey: Data?) throws(Realm.Error) -> UInt64 {
        let notVersioned = Realm.Error(code: .fail, message: "Cannot open an uninitialized realm in read-only mode", fileURL: url)
        let engine: StorageEngine
        do {
            engine = try StorageEngine(path: url.path, options: .init(readOnly: true, encryptionKey: encryptionKey.map { [UInt8]($0) }))
        } catch {
            let opening = Realm.Error(opening: error, path: url.path, fileURL: url)
            throw opening.code == .fileNotFound ? notVersioned : opening
        }
        var version: UInt64 = 0
        var tableCount = 0
        do {
            try engine.read { txn in
                guard ce_schema_version(txn.handle, &version), ce_table_count(txn.handle, &tableCount) else { throw EngineError.last() }
            }
        } catch let error as EngineError {
            throw Realm.Error(error, fileURL: url)
        } catch {
            throw Realm.Error(code: .fail, message: "\(error)", fileURL: url)
        }
        if version == 0 && tableCount == 0 {
            throw notVersioned
        }
        return version
    }
}
