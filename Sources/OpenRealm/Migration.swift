// Migration.swift — migration blocks: Migration, DynamicObject (MigrationObject), as in Realm Swift.
//
// When a Realm is opened with a higher schemaVersion than its file's, the tables are brought in
// line with the models (new properties added, removed ones removed, changed ones replaced) in one
// write transaction, and then the configuration's migration block runs in that transaction. The
// old objects it enumerates read a read transaction begun before the write: the file exactly as
// it was, whatever the block or the schema update changed since.

import CEngine
import Foundation

/// The block a configuration runs when the schema version increases (Realm's `MigrationBlock`).
///
///     config.migrationBlock = { migration, oldSchemaVersion in
///         if oldSchemaVersion < 1 {
///             migration.enumerateObjects(ofType: "Person") { old, new in
///                 new?["fullName"] = "\(old?["first"] ?? "") \(old?["last"] ?? "")"
///             }
///         }
///     }
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

/// An object in a migration, read and written by property name (Realm's `MigrationObject`).
public typealias MigrationObject = DynamicObject

/// The block `enumerateObjects(ofType:_:)` calls for each object: the object as it was, and as it
/// is in the new schema (nil if it was deleted during the migration).
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

/// The tables of one transaction, read once each, for dynamic objects.
final class DynamicContext {
    let txn: OpaquePointer
    let writable: Bool
    private var tables: [ce_table_key: StoredTable] = [:]

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

    /// Forgets what it read (after the schema of its transaction changed).
    func invalidateTables() { tables.removeAll() }

    func object(_ table: ce_table_key, _ key: ce_object_key) -> DynamicObject {
        let object = DynamicObject()
        object.dynamic = (self, table, key)
        return object
    }
}

/// An object read and written by property name, without a model class: the objects of a
/// migration (Realm's `DynamicObject`).
///
///     migration.enumerateObjects(ofType: "Person") { old, new in
///         let age = old?["age"] as? Int ?? 0
///         new?["isAdult"] = age >= 18
///         new?.nickname = "none"          // dynamic member lookup
///     }
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// The transaction, table and row the object reads.
    var dynamic: (context: DynamicContext, table: ce_table_key, key: ce_object_key)?

    /// The property named `member`, as `subscript(key:)`.
    ///
    ///     new?.name = "Ada"
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    /// The name of the object's table: `old?.objectTypeName == "Person"`.
    public var objectTypeName: String {
        guard let dynamic else { return "DynamicObject" }
        return dynamic.context.name(of: dynamic.table)
    }

    private func column(_ name: String) -> (context: DynamicContext, table: ce_table_key, key: ce_object_key, column: ce_column_key, property: StoredProperty) {
        guard let dynamic else { throwRealmException("This DynamicObject is not bound to an object.") }
        guard let (column, property) = dynamic.context.table(dynamic.table).properties[name] else {
            throwRealmException("Invalid property name '\(name)' for class '\(objectTypeName)'.")
        }
        return (dynamic.context, dynamic.table, dynamic.key, column, property)
    }

    /// The value of a property, boxed: a scalar, nil, a DynamicObject for a link, an array for
    /// a list or set, a dictionary for a map.
    func dynamicValue(_ name: String) -> Any? {
        let c = column(name)
        if c.property.collection != CE_COLLECTION_NONE {
            var collection: OpaquePointer?
            guard ce_collection_open(c.context.txn, c.table, c.key, c.column, &collection), let collection else { engineFailure() }
            defer { ce_collection_close(collection) }
            var count = 0
            guard ce_collection_size(collection, &count) else { engineFailure() }
            if c.property.collection == CE_COLLECTION_DICTIONARY {
                var result: [String: Any] = [:]
                for index in 0..<count {
                    var key = ce_value()
                    var value = ce_value()
                    guard ce_dictionary_key_at(collection, index, &key), ce_collection_get(collection, index, &value) else { engineFailure() }
                    result[key.stringValue] = box(value, c.context) ?? NSNull()
                }
                return result
            }
            return (0..<count).map { index -> Any in
                var value = ce_value()
                guard ce_collection_get(collection, index, &value) else { engineFailure() }
                return box(value, c.context) ?? NSNull()
            }
        }
        var value = ce_value()
        guard ce_object_get(c.context.txn, c.table, c.key, c.column, &value) else { engineFailure() }
        return box(value, c.context)
    }

    /// Writes a property of a new-schema object: a scalar, nil, a DynamicObject (a link), or an
    /// array for a list or set.
    func setDynamicValue(_ newValue: Any?, _ name: String) {
        let c = column(name)
        guard c.context.writable else { throwRealmException("The old objects of a migration are read-only.") }
        let arena = _CArena()
        if c.property.collection == CE_COLLECTION_LIST || c.property.collection == CE_COLLECTION_SET {
            guard let items = newValue as? [Any] else {
                throwRealmException("Invalid value '\(newValue ?? "nil")' for collection property '\(objectTypeName).\(name)': an array is required.")
            }
            var collection: OpaquePointer?
            guard ce_collection_open(c.context.txn, c.table, c.key, c.column, &collection), let collection else { engineFailure() }
            defer { ce_collection_close(collection) }
            guard ce_collection_clear(collection) else { engineFailure() }
            for (index, item) in items.enumerated() {
                var value = unbox(item, c.property, c.context, arena, name)
                let ok = c.property.collection == CE_COLLECTION_LIST
                    ? ce_list_insert(collection, index, &value) : ce_set_insert(collection, &value, nil)
                guard ok else { engineFailure("Property '\(objectTypeName).\(name)'") }
            }
            return
        }
        if c.property.collection == CE_COLLECTION_DICTIONARY {
            throwRealmException("Setting a map property of a DynamicObject is not supported yet: '\(objectTypeName).\(name)'.")
        }
        var value = unbox(newValue as Any, c.property, c.context, arena, name)
        guard ce_object_set(c.context.txn, c.table, c.key, c.column, &value) else {
            engineFailure("Property '\(objectTypeName).\(name)'")
        }
    }

    private func box(_ value: ce_value, _ context: DynamicContext) -> Any? {
        switch value.type {
        case CE_TYPE_NULL: nil
        case CE_TYPE_INT: Int(value.integer)
        case CE_TYPE_BOOL: value.boolean
        case CE_TYPE_FLOAT: value.float_value
        case CE_TYPE_DOUBLE: value.double_value
        case CE_TYPE_STRING: value.stringValue
        case CE_TYPE_BINARY: value.dataValue
        case CE_TYPE_TIMESTAMP:
            Date(timeIntervalSince1970: Double(value.timestamp.seconds) + Double(value.timestamp.nanoseconds) / 1e9)
        case CE_TYPE_DECIMAL128: Decimal128(bits: value.decimal)
        case CE_TYPE_OBJECT_ID: ObjectId(value.object_id)
        case CE_TYPE_UUID: UUID(ceUUID: value.uuid)
        case CE_TYPE_LINK: context.object(value.link.table, value.link.key)
        default: nil
        }
    }

    private func unbox(_ value: Any, _ property: StoredProperty, _ context: DynamicContext, _ arena: _CArena, _ name: String) -> ce_value {
        DynamicObject.convert(value, property, context, arena, name, typeName: objectTypeName)
    }

    /// The engine value for a property of `property`'s type from a loosely typed value.
    static func convert(_ value: Any, _ property: StoredProperty, _ context: DynamicContext, _ arena: _CArena, _ name: String,
                        typeName: String) -> ce_value {
        let unwrapped: Any? = {
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return value is NSNull ? nil : value }
            return mirror.children.first?.value
        }()
        guard let unwrapped else { return .null }
        func fail() -> Never {
            throwRealmException(
                "Invalid value '\(unwrapped)' of type '\(type(of: unwrapped))' for '\(property.typeText)' property '\(typeName).\(name)'.")
        }
        func convert<T: _CValueConvertible>(_ type: T.Type) -> ce_value {
            guard let converted = T._ceFromAny(unwrapped) else { fail() }
            return converted._ceValue(arena, nil)
        }
        switch property.type {
        case CE_TYPE_INT: return convert(Int.self)
        case CE_TYPE_BOOL: return convert(Bool.self)
        case CE_TYPE_FLOAT: return convert(Float.self)
        case CE_TYPE_DOUBLE: return convert(Double.self)
        case CE_TYPE_STRING: return convert(String.self)
        case CE_TYPE_BINARY: return convert(Data.self)
        case CE_TYPE_TIMESTAMP: return convert(Date.self)
        case CE_TYPE_DECIMAL128: return convert(Decimal128.self)
        case CE_TYPE_OBJECT_ID: return convert(ObjectId.self)
        case CE_TYPE_UUID: return convert(UUID.self)
        case CE_TYPE_LINK:
            guard let object = unwrapped as? DynamicObject, let target = object.dynamic, target.context === context else { fail() }
            return .link(target.table, target.key)
        case CE_TYPE_MIXED:
            guard let mixed = AnyRealmValue._ceFromAny(unwrapped) else { fail() }
            if case .object = mixed { fail() }
            return mixed._ceValue(arena, nil)
        default: fail()
        }
    }
}

/// The migration in progress, handed to the configuration's migration block (Realm's
/// `Migration`): enumerate, create and delete objects, delete a class's data, rename properties.
///
///     config.migrationBlock = { migration, oldSchemaVersion in
///         migration.renameProperty(onType: "Person", from: "name", to: "fullName")
///         migration.deleteData(forType: "Obsolete")
///     }
public final class Migration {
    let old: DynamicContext
    let new: DynamicContext

    init(old: OpaquePointer, new: OpaquePointer) {
        self.old = DynamicContext(txn: old, writable: false)
        self.new = DynamicContext(txn: new, writable: true)
    }

    /// Calls `block` for every object the class named `typeName` had before the migration,
    /// with the object as it was (read only) and as it is in the new schema (nil if deleted, or if
    /// the class is not in the new schema).
    ///
    ///     migration.enumerateObjects(ofType: "Dog") { old, new in new?["age"] = 1 }
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) {
        guard let oldTable = old.table(named: typeName) else { return }
        let newTable = new.table(named: typeName)
        var count = 0
        guard ce_object_count(old.txn, oldTable.key, &count) else { engineFailure() }
        for index in 0..<count {
            var key: ce_object_key = 0
            guard ce_object_key_at(old.txn, oldTable.key, index, &key) else { engineFailure() }
            var newObject: DynamicObject?
            if let newTable {
                var exists = false
                if ce_object_exists(new.txn, newTable.key, key, &exists), exists { newObject = new.object(newTable.key, key) }
            }
            block(old.object(oldTable.key, key), newObject)
        }
    }

    /// Creates an object of the class named `typeName` in the new schema, with the values of a
    /// dictionary (by property name); returns it.
    ///
    ///     migration.create("Dog", value: ["name": "Rex"])
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        guard let table = new.table(named: typeName) else {
            throwRealmException("Object type '\(typeName)' is not in the new schema.")
        }
        guard let dictionary = value as? [String: Any] else {
            throwRealmException("Migration.create takes a dictionary of values by property name.")
        }
        var values = [ce_value](repeating: .null, count: table.slotCount)
        let arena = _CArena()
        for (name, stored) in table.properties where stored.info.collection == CE_COLLECTION_NONE {
            if let given = dictionary[name], !(given is [Any]) {
                values[Int(stored.column)] = DynamicObject.convert(given, stored.info, new, arena, name, typeName: typeName)
            } else if !stored.info.nullable && stored.info.type != CE_TYPE_LINK && stored.info.type != CE_TYPE_MIXED {
                values[Int(stored.column)] = DynamicObject.defaultValue(stored.info.type, arena)
            }
        }
        var key: ce_object_key = 0
        let ok = values.withUnsafeBufferPointer { ce_object_create_with_values(new.txn, table.key, $0.baseAddress, $0.count, &key) }
        guard ok else { engineFailure("Cannot create an object of type '\(typeName)'") }
        let object = new.object(table.key, key)
        for (name, given) in dictionary where given is [Any] { object[name] = given }
        return object
    }

    /// Deletes an object of the new schema.
    ///
    ///     migration.enumerateObjects(ofType: "Dog") { _, new in if let new { migration.delete(new) } }
    public func delete(_ object: MigrationObject) {
        guard let dynamic = object.dynamic, dynamic.context === new else {
            throwRealmException("Only the new objects of a migration can be deleted.")
        }
        guard ce_object_delete(new.txn, dynamic.table, dynamic.key) else { engineFailure() }
    }

    /// Deletes the class named `typeName` and all its objects, if the new schema does not have
    /// it (its objects only, if it does); returns whether there was such a class.
    ///
    ///     migration.deleteData(forType: "Obsolete")
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard let table = new.table(named: typeName) else { return false }
        if !ce_table_remove(new.txn, table.key) {
            // A class that other classes link to keeps its table: delete its objects.
            var count = 0
            guard ce_object_count(new.txn, table.key, &count) else { engineFailure() }
            while count > 0 {
                var key: ce_object_key = 0
                guard ce_object_key_at(new.txn, table.key, count - 1, &key), ce_object_delete(new.txn, table.key, key) else { engineFailure() }
                count -= 1
            }
        }
        new.invalidateTables()
        return true
    }

    /// Carries the values of the old property `oldName` over to the new property `newName` of
    /// the class named `typeName` (a property the models renamed: both must have the same type).
    /// The values come from the file as it was before the migration.
    ///
    ///     migration.renameProperty(onType: "Person", from: "name", to: "fullName")
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let oldTable = old.table(named: typeName), let (oldColumn, oldProperty) = oldTable.properties[oldName] else {
            throwRealmException("Cannot rename property '\(typeName).\(oldName)' because it does not exist.")
        }
        guard let newTable = new.table(named: typeName), let (newColumn, newProperty) = newTable.properties[newName] else {
            throwRealmException("Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because the destination property does not exist.")
        }
        guard oldProperty.type == newProperty.type, oldProperty.collection == newProperty.collection,
            oldProperty.targetName == newProperty.targetName
        else {
            throwRealmException(
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it would change from type '\(oldProperty.typeText)' to '\(newProperty.typeText)'.")
        }
        guard oldProperty.collection == CE_COLLECTION_NONE else {
            throwRealmException("Renaming a collection property is not supported yet: '\(typeName).\(oldName)'.")
        }
        var count = 0
        guard ce_object_count(old.txn, oldTable.key, &count) else { engineFailure() }
        for index in 0..<count {
            var key: ce_object_key = 0
            var value = ce_value()
            var exists = false
            guard ce_object_key_at(old.txn, oldTable.key, index, &key),
                ce_object_get(old.txn, oldTable.key, key, oldColumn, &value),
                ce_object_exists(new.txn, newTable.key, key, &exists)
            else { engineFailure() }
            // Links keep their target's key; the target table of the same name has the same key.
            if exists, !ce_object_set(new.txn, newTable.key, key, newColumn, &value) {
                engineFailure("Cannot rename '\(typeName).\(oldName)' to '\(newName)'")
            }
        }
    }
}

extension DynamicObject {
    /// The value a required property of a new object starts with.
    static func defaultValue(_ type: ce_type, _ arena: _CArena) -> ce_value {
        switch type {
        case CE_TYPE_INT: Int._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_BOOL: Bool._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_FLOAT: Float._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_DOUBLE: Double._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_STRING: String._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_BINARY: Data._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_TIMESTAMP: Date._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_DECIMAL128: Decimal128._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_OBJECT_ID: ObjectId._ceDefault()._ceValue(arena, nil)
        case CE_TYPE_UUID: UUID._ceDefault()._ceValue(arena, nil)
        default: .null
        }
    }
}
