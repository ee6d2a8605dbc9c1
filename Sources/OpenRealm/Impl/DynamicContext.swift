// DynamicContext.swift — the tables of one transaction, read once each, for dynamic objects.

import CEngine
import Foundation

/// The tables of one transaction, read once each, for dynamic objects.
final class DynamicContext {
    let txn: OpaquePointer
    let writable: Bool
    private var tables: [ce_table_key: StoredTable] = [:]
    /// By class name, the persisted name of each property whose Swift name differs
    /// (`propertiesMapping()`): the new objects of a migration take the Swift names.
    var persistedNames: [String: [String: String]] = [:]
    /// The objects made for the model objects a migration linked (`createLinkedObject`), by
    /// instance (held, so that an identifier is not reused): the same instance linked again
    /// links the same object, as in Realm, where the instance became that object.
    var linkedModels: [ObjectIdentifier: (model: AnyObject, table: ce_table_key, key: ce_object_key)] = [:]
    /// The schema its objects answer `objectSchema` with and describe their properties in (in
    /// its order): the file's for a migration's old objects, the models' for its new ones.
    var schema: Schema?

    init(txn: OpaquePointer, writable: Bool) {
        self.txn = txn
        self.writable = writable
    }

    func table(_ key: ce_table_key) -> StoredTable {
        if let known = tables[key] { return known }
        do {
            let table = try SchemaReader.table(txn, key: key)
            tables[key] = table
            return table
        } catch {
            throwRealmException(error.message)
        }
    }

    func table(named name: String) -> StoredTable? {
        var key: ce_table_key = 0
        var found = false
        guard ce_table_find(txn, name, &key, &found), found else { return nil }
        return table(key)
    }

    func name(of key: ce_table_key) -> String {
        var cName: UnsafePointer<CChar>?
        guard ce_table_name(txn, key, &cName), let cName else { return "?" }
        return String(cString: cName)
    }

    /// The name in the file of the property `name` of the class `typeName`.
    func columnName(_ typeName: String, _ name: String) -> String { persistedNames[typeName]?[name] ?? name }

    /// Forgets what it read (after the schema of its transaction changed).
    func invalidateTables() { tables.removeAll() }

    func object(_ table: ce_table_key, _ key: ce_object_key) -> DynamicObject {
        let object = DynamicObject()
        object.dynamic = (self, table, key)
        return object
    }
}
