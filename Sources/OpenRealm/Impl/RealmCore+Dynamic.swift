// RealmCore+Dynamic.swift — the tables of a Realm read as DynamicObjects (`Realm.dynamicObjects`,
// `dynamicObject(ofType:forPrimaryKey:)`, links and lists of DynamicObjects): each table's schema
// read from the file once, by table key.

import CEngine
import Foundation

extension RealmCore {
    /// The table named `name` as DynamicObjects read it; nil while the file has no such table
    /// but the Realm's schema has the class (its table is not written yet). A name that is
    /// neither is a programmer error, with Realm's message.
    func dynamicTableInfo(named name: String) -> TableInfo? {
        let known = configuration.objectTypes.map { types in types.contains { ObjectSchemaInfo.className(of: $0) == name } }
        var key: ce_table_key = 0
        var found = false
        guard ce_table_find(currentTxn(), name, &key, &found) else { engineFailure() }
        if found && known != false { return dynamicTableInfo(forKey: key) }
        if known ?? ObjectSchemaInfo.defaultSchema.contains(where: { $0.className == name }) { return nil }
        throwRealmException(
            "Object type '\(name)' is not managed by the Realm. If using a custom `objectClasses` / `objectTypes` array in your configuration, add `\(name)` to the list of `objectClasses` / `objectTypes`.")
    }

    /// The table `key` as DynamicObjects read it.
    func dynamicTableInfo(forKey key: ce_table_key) -> TableInfo {
        if let frozen { return frozen.lock.withLock { resolveDynamicTable(key) } }
        return resolveDynamicTable(key)
    }

    private func resolveDynamicTable(_ key: ce_table_key) -> TableInfo {
        if let known = dynamicTables[key] { return known }
        let txn = currentTxn()
        var cName: UnsafePointer<CChar>?
        guard ce_table_name(txn, key, &cName), let cName else { engineFailure() }
        let stored: StoredTable
        do {
            stored = try SchemaReader.table(txn, key: key)
        } catch {
            throwRealmException(error.message)
        }
        let name = String(cString: cName)
        // The Realm's class of that name, if any, names the properties it maps (Swift names).
        let model = configuration.objectTypes.map { $0.map { ObjectSchemaInfo.of($0) } } ?? ObjectSchemaInfo.defaultSchema
        var swiftNames: [String: String] = [:]
        for property in model.first(where: { $0.className == name })?.properties ?? [] where property.columnName != property.name {
            swiftNames[property.columnName] = property.name
        }
        let info = ObjectSchemaInfo.dynamic(stored, named: name, swiftNames: swiftNames)
        let columns = info.properties.enumerated().map { index, property in
            _ManagedColumn(key: stored.properties[property.columnName]?.column ?? 0, property: index)
        }
        let table = TableInfo(schema: info, tableKey: key, columns: columns, slotCount: stored.slotCount)
        dynamicTables[key] = table
        return table
    }

    /// The table of a managed object as its class reads it (a DynamicObject's as DynamicObjects
    /// do); nil if this Realm has no table for the class.
    func tableInfo(of object: ObjectBase) -> TableInfo? {
        object is DynamicObject ? dynamicTableInfo(forKey: object._tableKey) : tableInfo(for: type(of: object))
    }

    /// The object a mixed value links to, typed by its model class; a DynamicObject when this
    /// Realm has no class for its table (one left out of `objectTypes`, or no class of the
    /// program), as Realm reads it (`AnyRealmValue.dynamicObject`).
    func mixedLinkTarget(_ link: ce_link) -> Object {
        let typed: ObjectSchemaInfo?
        if let frozen {
            typed = frozen.lock.withLock { modelClass(forKey: link.table).info }
        } else {
            typed = modelClass(forKey: link.table).info
        }
        let table = typed == nil ? dynamicTableInfo(forKey: link.table) : tableInfo(forKey: link.table)
        return makeObject(table, link.key) as! Object
    }

    /// A DynamicObject accessor of the managed object `object` of this Realm (the same row).
    func dynamicObject(of object: ObjectBase) -> DynamicObject {
        if let dynamic = object as? DynamicObject { return dynamic }
        return makeObject(dynamicTableInfo(forKey: object._tableKey), object._key) as! DynamicObject
    }

    /// Writes the to-one link `index` of the managed DynamicObject `object` when it links to an
    /// embedded table, as Realm does: a new embedded object from a dictionary, an array in
    /// property order or an unmanaged object (nil or NSNull: none). False when the property is
    /// no such link: the value is written as any other.
    func setDynamicEmbedded(_ object: DynamicObject, _ index: Int, _ value: Any?) -> Bool {
        guard let table = object._table else { return false }
        let property = table.schema.properties[index]
        guard property.shape.holdsOneLink, let targetName = property.linkTargetName,
            let target = dynamicTableInfo(named: targetName), target.schema.isEmbedded
        else { return false }
        let txn = writeTxn(for: object)
        let column = table.columns[index].key
        guard let given = value.flatMap(unwrapOptional), !(given is NSNull) else {
            var null = ce_value.null
            guard ce_object_set(txn, object._tableKey, object._key, column, &null) else { engineFailure() }
            return true
        }
        if let linked = given as? ObjectBase, linked._table != nil {
            let linkedObject = linked._unproxied
            if linkedObject._core === self, linkedKey(txn, object, column) == linkedObject._key { return true }
            throwRealmException("Can't set link to existing managed embedded object")
        }
        let values: [(String, Any)]
        switch given {
        case let dictionary as [String: Any]: values = dictionary.filter { target.schema.indexByName[$0.key] != nil }.map { ($0.key, $0.value) }
        case let array as [Any]: values = zip(target.schema.properties.map(\.name), array).map { ($0, $1) }
        case let unmanaged as ObjectBase:
            values = target.schema.properties.compactMap { property in
                unmanaged._schemaInfo.indexByName[property.name].map { (property.name, unmanaged._value(of: $0)) }
            }
        default:
            throwRealmException("Invalid value '\(given)' of type '\(type(of: given))' for \(property.valueTypeText) property "
                + "'\(table.schema.className).\(property.name)'.")
        }
        var key: ce_object_key = 0
        guard ce_object_create_embedded(txn, object._tableKey, object._key, column, &key) else { engineFailure() }
        let embedded = makeObject(target, key)
        for (name, propertyValue) in values { embedded[name] = propertyValue }
        return true
    }
}
