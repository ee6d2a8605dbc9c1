// CollectionSetValue.swift — setValue(_:forKey:) on every object of a collection (Results, List,
// MutableSet, LinkingObjects, AnyRealmCollection): one engine call for a property of one value.

import CEngine

extension Results {
    /// Sets the property `key` of every object of these results to `value`, as Realm's
    /// `setValue(_:forKey:)` on a collection does: in a write transaction; the objects are the
    /// ones the results hold now (setting the property may change which objects match), each set
    /// as `Object.setValue(_:forKey:)` sets it. A property of one value (not a link, a mixed value
    /// or a collection) given a value of its type is written to all of them by one engine call,
    /// `ce_object_set_many`; anything else goes object by object through the object's setter,
    /// which adds unmanaged objects, keeps links and collections, and words the errors.
    func setValueOfEveryObject(_ value: Any?, forKey key: String) {
        core.checkThread()
        if !core.isInWriteTransaction {
            throwRealmException("Cannot modify managed objects outside of a write transaction.")
        }
        // The query owns its views: kept alive until the keys are read.
        let query = resultsQuery
        guard case let (view, table)? = query.view(core) else { return }  // no table: no objects
        let txn = core.currentTxn()
        var count = 0
        guard ce_results_count(view, txn, &count) else { engineFailure() }
        if count == 0 { return }
        var keys = [ce_object_key](repeating: 0, count: count)
        var filled = 0
        guard ce_results_get_range(view, txn, 0, count, &keys, &filled) else { engineFailure() }
        withExtendedLifetime(query) {}
        let info = table.schema
        guard let index = info.indexByName[key] else {
            throwRealmException("Invalid property name '\(key)' for class '\(info.className)'.")
        }
        if info.primaryKey == index { throwRealmException("Primary key can't be changed after an object is inserted.") }
        let property = info.properties[index]
        let shape = property.shape
        if shape.collection == CE_COLLECTION_NONE, !shape.isLinkingObjects, shape.type != CE_TYPE_LINK,
            shape.type != CE_TYPE_MIXED {
            let arena = core.borrowArena()
            defer { core.returnArena(arena) }
            if var converted = property.field._rlmCValue(fromAny: value as Any, arena, Realm(core)) {
                let ok = keys.withUnsafeBufferPointer {
                    ce_object_set_many(txn, table.tableKey, $0.baseAddress, filled, table.columns[index].key, &converted)
                }
                guard ok else { engineFailure("Property '\(info.className).\(property.name)'") }
                return
            }
        }
        for objectKey in keys.prefix(filled) {
            core.makeObject(table, objectKey).setValue(value, forKey: key)
        }
    }
}
