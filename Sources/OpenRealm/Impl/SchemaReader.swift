// SchemaReader.swift — reading a file's tables and properties, to compare them with the models.

import CEngine

// MARK: - Comparing models with a file

/// The file's definition of one table, read in a transaction.
struct StoredTable {
    let key: ce_table_key
    let isEmbedded: Bool
    /// Live, non-backlink properties by name.
    var properties: [String: (column: ce_column_key, info: StoredProperty)]
    let slotCount: Int
}

struct StoredProperty {
    let type: ce_type
    let nullable: Bool
    let primaryKey: Bool
    let collection: ce_collection_type
    let targetName: String?
    /// Whether the property has a search index (its primary key's aside).
    var indexed = false

    var typeText: String { PropertyInfo.typeText(type: type, nullable: nullable, collection: collection, target: targetName) }

    /// The type as Realm Swift's "Invalid value" messages name it (`PropertyInfo.valueTypeText`).
    var valueTypeText: String {
        PropertyInfo.valueTypeText(type: type, nullable: nullable, collection: collection, target: targetName)
    }

    /// The type without its optionality, as realm-core's `Property::type_string()` names it in
    /// the messages of a rename (`int`, `array<string>`, `<Dog>`).
    var baseTypeText: String { PropertyInfo.typeText(type: type, nullable: false, collection: collection, target: targetName) }

    /// Whether the property is a list, set or dictionary.
    var isCollection: Bool { collection != CE_COLLECTION_NONE }

    /// Whether `other` has the same type, collection and link target (nullability aside).
    func hasSameType(as other: StoredProperty) -> Bool {
        type == other.type && collection == other.collection && targetName == other.targetName
    }
}

enum SchemaReader {
    /// The table named `name` in the transaction's schema, or nil.
    static func table(_ txn: OpaquePointer, named name: String) throws(Realm.Error) -> StoredTable? {
        var key: ce_table_key = 0
        var found = false
        guard ce_table_find(txn, name, &key, &found) else { throw Realm.Error.last() }
        guard found else { return nil }
        return try table(txn, key: key)
    }

    static func table(_ txn: OpaquePointer, key: ce_table_key) throws(Realm.Error) -> StoredTable {
        var embedded = false
        var count = 0
        guard ce_table_is_embedded(txn, key, &embedded), ce_property_count(txn, key, &count) else { throw Realm.Error.last() }
        var properties: [String: (ce_column_key, StoredProperty)] = [:]
        for column in 0..<count {
            var info = ce_property_info()
            // Removed properties keep their slot and cannot be read: skip them.
            guard ce_property_get_info(txn, key, ce_column_key(column), &info), !info.backlink else { continue }
            var targetName: String?
            if info.type == CE_TYPE_LINK {
                var cName: UnsafePointer<CChar>?
                if ce_table_name(txn, info.link_target, &cName), let cName { targetName = String(cString: cName) }
            }
            let name = String(cString: info.name)
            properties[name] = (ce_column_key(column), StoredProperty(
                type: info.type, nullable: info.nullable, primaryKey: info.primary_key, collection: info.collection,
                targetName: targetName, indexed: info.indexed))
        }
        return StoredTable(key: key, isEmbedded: embedded, properties: properties, slotCount: count)
    }

    /// Realm's sentences for each difference between a class and its table ("Property
    /// 'Person.age' has been added."), empty when they match.
    static func differences(_ schema: ObjectSchemaInfo, _ table: StoredTable) -> [String] {
        var messages: [String] = []
        let c = schema.className
        var modelKey: String?
        for property in schema.properties where property.isStored {
            // The file's names: persisted names (propertiesMapping()), as Realm's messages give them.
            let name = property.columnName
            if property.isPrimaryKey { modelKey = name }
            guard let (_, stored) = table.properties[name] else {
                messages.append("Property '\(c).\(name)' has been added.")
                continue
            }
            let sameKind = stored.type == property.shape.type && stored.collection == property.shape.collection
                && (stored.type != CE_TYPE_LINK || stored.targetName == property.linkTargetName)
            if !sameKind {
                messages.append("Property '\(c).\(name)' has been changed from '\(stored.typeText)' to '\(property.typeText)'.")
            } else if stored.type != CE_TYPE_MIXED && stored.type != CE_TYPE_LINK && stored.nullable != property.shape.nullable {
                messages.append("Property '\(c).\(name)' has been made \(property.shape.nullable ? "optional" : "required").")
            }
        }
        let modelNames = Set(schema.properties.filter(\.isStored).map(\.columnName))
        for name in table.properties.keys.sorted() where !modelNames.contains(name) {
            messages.append("Property '\(c).\(name)' has been removed.")
        }
        let storedKey = table.properties.first { $0.value.info.primaryKey }?.key
        if storedKey != modelKey {
            switch (storedKey, modelKey) {
            case (nil, let new?): messages.append("Primary Key for class '\(c)' has been added.")
                _ = new
            case (_?, nil): messages.append("Primary Key for class '\(c)' has been removed.")
            case (let old?, let new?): messages.append("Primary Key for class '\(c)' has changed from '\(old)' to '\(new)'.")
            default: break
            }
        }
        if table.isEmbedded != schema.isEmbedded {
            messages.append("Class '\(c)' has been changed from \(table.isEmbedded ? "embedded" : "top-level") to \(schema.isEmbedded ? "embedded" : "top-level").")
        }
        return messages
    }

    /// The engine's definition of a property.
    static func withPropertyInfo<R>(_ property: PropertyInfo, target: ce_table_key, _ body: (inout ce_property_info) -> R) -> R {
        property.columnName.withCString { cName in
            var info = ce_property_info()
            info.name = cName
            info.type = property.shape.type
            info.nullable = property.shape.nullable
            info.primary_key = property.isPrimaryKey
            info.indexed = property.isIndexed && !property.isPrimaryKey
            info.collection = property.shape.collection
            info.link_target = target
            return body(&info)
        }
    }
}
