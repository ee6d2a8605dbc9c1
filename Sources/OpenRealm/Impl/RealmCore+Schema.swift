// RealmCore+Schema.swift — checking a file's schema against the model classes when a Realm is
// opened, and bringing it up to date (new tables and properties, automatic migration).

import CEngine
import Foundation

extension RealmCore {
    /// `classes` with every class they link to, or that links to them through LinkingObjects.
    static func closure(_ classes: [ObjectSchemaInfo]) -> [ObjectSchemaInfo] {
        var seen = Set<ObjectIdentifier>()
        var result: [ObjectSchemaInfo] = []
        var pending = classes
        while let info = pending.popLast() {
            guard seen.insert(ObjectIdentifier(info.objectClass)).inserted else { continue }
            result.append(info)
            pending.append(contentsOf: info.linkedClasses.map(ObjectSchemaInfo.of))
        }
        return result.sorted { $0.className < $1.className }
    }

    /// Checks the file's schema against the models and brings it up to date: throws
    /// `.schemaMismatch` when a migration is needed, adds tables (of `classes` the file lacks)
    /// and properties otherwise.
    static func prepareSchema(
        _ engine: StorageEngine, _ classes: [ObjectSchemaInfo], _ configuration: Realm.Configuration
    ) throws(Realm.Error) {
        var differences: [String] = []
        var missing: [ObjectSchemaInfo] = []
        var fileVersion: UInt64 = 0
        var tableCount = 0
        do {
            try engine.read { txn in
                guard ce_schema_version(txn.handle, &fileVersion), ce_table_count(txn.handle, &tableCount) else {
                    throw Realm.Error.last()
                }
                for info in classes {
                    if let table = try SchemaReader.table(txn.handle, named: info.className) {
                        differences += SchemaReader.differences(info, table)
                    } else {
                        missing.append(info)
                    }
                }
            }
        } catch let error as Realm.Error {
            // The engine's error reading the schema (a damaged page) concerns the file: it names it.
            throw error.fileURL != nil ? error : Realm.Error(code: error.code, message: error.message, fileURL: configuration.fileURL)
        } catch let error as EngineError {
            // A damaged page read for the schema: the engine's code (.invalidDatabase), not .fail.
            throw Realm.Error(error, fileURL: configuration.fileURL)
        } catch {
            throw Realm.Error(code: .fail, message: "\(error)", fileURL: configuration.fileURL)
        }
        let isNew = tableCount == 0 && fileVersion == 0
        if !isNew && configuration.schemaVersion < fileVersion {
            throw Realm.Error(code: .schemaMismatch, message:
                "Provided schema version \(configuration.schemaVersion) is less than last set version \(fileVersion).",
                fileURL: configuration.fileURL)
        }
        if !differences.isEmpty && (configuration.schemaVersion == fileVersion || configuration.readOnly || configuration.deleteRealmIfMigrationNeeded) {
            throw Realm.Error(code: .schemaMismatch, message:
                "Migration is required due to the following errors:\n" + differences.map { "- " + $0 }.joined(separator: "\n"),
                fileURL: configuration.fileURL)
        }
        let versionChanges = configuration.schemaVersion != fileVersion
        guard !missing.isEmpty || !differences.isEmpty || versionChanges else { return }
        if configuration.readOnly {
            // A read-only Realm reads what the file has; classes it lacks read as empty.
            return
        }
        // The migration block reads the old objects in a read transaction begun before the write:
        // the file as it was.
        var snapshot: OpaquePointer?
        if configuration.migrationBlock != nil && versionChanges && !isNew {
            guard ce_txn_begin_read(engine.handle, &snapshot) else { throw Realm.Error.last() }
        }
        defer { if let snapshot { ce_txn_end(snapshot) } }
        do {
            try engine.write { txn in
                try createTables(txn.handle, missing)
                if !differences.isEmpty {
                    for info in classes where !missing.contains(where: { $0 === info }) {
                        try migrate(txn.handle, info)
                    }
                }
                if let snapshot, let block = configuration.migrationBlock {
                    block(Migration(old: snapshot, new: txn.handle, newSchema: Schema(objectSchema: classes.map(\.publicSchema))), fileVersion)
                }
                if versionChanges || isNew {
                    guard ce_set_schema_version(txn.handle, configuration.schemaVersion) else { throw Realm.Error.last() }
                }
            }
        } catch let error as Realm.Error {
            throw error
        } catch let error as EngineError {
            throw Realm.Error(error, fileURL: configuration.fileURL)
        } catch {
            throw Realm.Error(code: .fail, message: "\(error)")
        }
    }

    /// Adds the tables of `classes` (all first, then their properties: links need their target).
    static func createTables(_ txn: OpaquePointer, _ classes: [ObjectSchemaInfo]) throws(Realm.Error) {
        var created: [(ObjectSchemaInfo, ce_table_key)] = []
        for info in classes {
            var key: ce_table_key = 0
            var found = false
            guard ce_table_find(txn, info.className, &key, &found) else { throw Realm.Error.last() }
            if found { continue }
            let ok = info.isEmbedded ? ce_table_add_embedded(txn, info.className, &key) : ce_table_add(txn, info.className, &key)
            guard ok else { throw Realm.Error.last() }
            created.append((info, key))
        }
        for (info, key) in created {
            // The primary key first (the table is empty, as the engine requires).
            let order = info.properties.indices.sorted { (info.properties[$0].isPrimaryKey ? 0 : 1) < (info.properties[$1].isPrimaryKey ? 0 : 1) }
            for index in order where info.properties[index].isStored {
                try addProperty(txn, key, info.properties[index])
            }
        }
    }

    fileprivate static func addProperty(_ txn: OpaquePointer, _ table: ce_table_key, _ property: PropertyInfo) throws(Realm.Error) {
        var target: ce_table_key = 0
        if let targetName = property.linkTargetName {
            var found = false
            guard ce_table_find(txn, targetName, &target, &found), found else {
                throw Realm.Error(code: .schemaMismatch, message: "Property '\(property.name)' links to '\(targetName)', which has no table.")
            }
        }
        var column: ce_column_key = 0
        let ok = SchemaReader.withPropertyInfo(property, target: target) { info in ce_property_add(txn, table, &info, &column) }
        guard ok else { throw Realm.Error(code: .schemaMismatch, message: String(cString: ce_last_error_message())) }
    }

    /// Brings an existing table in line with its class after a schema version bump: properties
    /// removed from the model are removed, new ones added, changed ones replaced (their values
    /// reset, as Realm's automatic migration does).
    fileprivate static func migrate(_ txn: OpaquePointer, _ info: ObjectSchemaInfo) throws(Realm.Error) {
        guard let table = try SchemaReader.table(txn, named: info.className) else { return }
        let differences = SchemaReader.differences(info, table)
        guard !differences.isEmpty else { return }
        if differences.contains(where: { $0.hasPrefix("Primary Key") || $0.hasPrefix("Class") }) {
            throw Realm.Error(code: .schemaMismatch, message:
                "Migration is required due to the following errors:\n" + differences.map { "- " + $0 }.joined(separator: "\n")
                    + "\nOpenRealm cannot change a primary key, or make a class embedded or top-level, yet.")
        }
        let modelNames = Set(info.properties.filter(\.isStored).map(\.columnName))
        for (name, stored) in table.properties where !modelNames.contains(name) {
            guard ce_property_remove(txn, table.key, stored.column) else { throw Realm.Error.last() }
        }
        for property in info.properties where property.isStored {
            if let (column, stored) = table.properties[property.columnName] {
                let same = stored.type == property.shape.type && stored.collection == property.shape.collection
                    && (stored.type != CE_TYPE_LINK || stored.targetName == property.linkTargetName)
                    && (stored.type == CE_TYPE_MIXED || stored.type == CE_TYPE_LINK || stored.nullable == property.shape.nullable)
                if same { continue }
                guard ce_property_remove(txn, table.key, column) else { throw Realm.Error.last() }
            }
            try addProperty(txn, table.key, property)
        }
    }
}
