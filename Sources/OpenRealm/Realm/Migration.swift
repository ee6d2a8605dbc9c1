// Migration.swift — Migration and the migration blocks, as in Realm Swift.
//
// When a Realm is opened with a higher schemaVersion than its file's, the tables are brought in
// line with the models (new properties added, removed ones removed, changed ones replaced) in one
// write transaction, and then the configuration's migration block runs in that transaction. The
// old objects it enumerates read a read transaction begun before the write: the file exactly as
// it was, whatever the block or the schema update changed since.

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

/// The block `enumerateObjects(ofType:_:)` calls for each object: the object as it was, and as it
/// is in the new schema (nil if it was deleted during the migration).
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

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

    /// The schema of the file before the migration (its classes are `DynamicObject`).
    ///
    ///     migration.oldSchema["Person"]?["firstName"] != nil
    public let oldSchema: Schema

    /// The schema the Realm is migrated to: the schema of its model classes.
    ///
    ///     migration.newSchema["Person"]?["fullName"]?.type == .string
    public let newSchema: Schema

    init(old: OpaquePointer, new: OpaquePointer, newSchema: Schema) {
        self.old = DynamicContext(txn: old, writable: false)
        self.new = DynamicContext(txn: new, writable: true)
        self.oldSchema = self.old.fileSchema()
        self.newSchema = newSchema
        self.old.schema = oldSchema
        self.new.schema = newSchema
        // The old objects read the file's names; the new ones the models' Swift names.
        for objectSchema in newSchema.objectSchema {
            let mapped = objectSchema.properties.filter { $0.columnName != $0.name }
            if !mapped.isEmpty {
                self.new.persistedNames[objectSchema.className] = Dictionary(uniqueKeysWithValues: mapped.map { ($0.name, $0.columnName) })
            }
        }
    }

    /// Calls `block` for every object the class named `typeName` had before the migration, with
    /// the object as it was (read only) and as it is in the new schema, as Realm does: an object
    /// deleted during the migration is skipped; a class the new schema lacks gives its old
    /// objects, last first, with nil; a class the file lacked gives the objects the migration
    /// created, last first, with nil as the old object; an unknown class gives nothing.
    ///
    ///     migration.enumerateObjects(ofType: "Dog") { old, new in new?["age"] = 1 }
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) {
        let oldTable = old.table(named: typeName)
        let newTable = newSchema[typeName] == nil ? nil : new.table(named: typeName)
        switch (oldTable, newTable) {
        case (nil, nil):
            return
        case (nil, let newTable?):
            for index in stride(from: new.objectCount(newTable.key) - 1, through: 0, by: -1) {
                block(nil, new.object(newTable.key, new.objectKey(newTable.key, at: index)))
            }
        case (let oldTable?, nil):
            for index in stride(from: old.objectCount(oldTable.key) - 1, through: 0, by: -1) {
                block(old.object(oldTable.key, old.objectKey(oldTable.key, at: index)), nil)
            }
        case (let oldTable?, let newTable?):
            for index in 0..<old.objectCount(oldTable.key) {
                let key = old.objectKey(oldTable.key, at: index)
                guard new.objectExists(newTable.key, key) == true else { continue }
                block(old.object(oldTable.key, key), new.object(newTable.key, key))
            }
        }
    }

    /// Creates an object of the class named `typeName` in the new schema, with the values of a
    /// dictionary (by property name) or an array (one value for each property, in the order of
    /// the new schema; properties without a value get the model class's default values); returns it.
    ///
    ///     migration.create("Dog", value: ["name": "Rex"])
    ///     migration.create("Dog", value: ["Rex", 3])
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        guard let table = new.table(named: typeName) else {
            throwRealmException(
                "Object type '\(typeName)' is not managed by the Realm. If using a custom `objectClasses` / `objectTypes` array in your configuration, add `\(typeName)` to the list of `objectClasses` / `objectTypes`.")
        }
        var dictionary: [String: Any]
        if let given = value as? [String: Any] {
            dictionary = given
        } else if let array = value as? [Any] {
            let names = (newSchema[typeName]?.properties ?? []).filter { $0.type != .linkingObjects }.map(\.name)
            guard array.count <= names.count else {
                throwRealmException("Invalid array input: number of values (\(array.count)) does not match number of properties (\(names.count)) of '\(typeName)'.")
            }
            dictionary = Dictionary(uniqueKeysWithValues: zip(names, array))
        } else {
            throwRealmException("Invalid value '\(value)' to initialize object of type '\(typeName)': an array or a dictionary is required.")
        }
        // The properties not given take the model class's default values, as in Realm.
        if let model = newSchema[typeName]?.objectClass, !(model is DynamicObject.Type) {
            dictionary.merge(DynamicContext.storedValues(of: model.init())) { given, _ in given }
        }
        let stored = Dictionary(dictionary.map { (new.columnName(typeName, $0.key), $0.value) }) { first, _ in first }
        let key = new.createObject(table, values: stored, typeName: typeName)
        let object = new.object(table.key, key)
        for (name, given) in dictionary where table.properties[new.columnName(typeName, name)]?.info.isCollection == true {
            object[name] = given
        }
        return object
    }

    /// Deletes an object of the new schema.
    ///
    ///     migration.enumerateObjects(ofType: "Dog") { _, new in if let new { migration.delete(new) } }
    public func delete(_ object: MigrationObject) {
        guard let dynamic = object.dynamic, dynamic.context === new else {
            throwRealmException("Only the new objects of a migration can be deleted.")
        }
        new.deleteObject(dynamic.table, dynamic.key)
    }

    /// Deletes the class named `typeName` and all its objects, if the new schema does not have
    /// it (its objects only, if it does); returns whether there was such a class.
    ///
    ///     migration.deleteData(forType: "Obsolete")
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard let table = new.table(named: typeName) else { return false }
        if !new.removeTable(table.key) {
            // A class that other classes link to keeps its table: delete its objects.
            var count = new.objectCount(table.key)
            while count > 0 {
                let key = new.objectKey(table.key, at: count - 1)
                new.deleteObject(table.key, key)
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
        guard let oldTable = old.table(named: typeName) else {
            throwRealmException("Cannot rename properties for type '\(typeName)' because it does not exist.")
        }
        guard let newObjectSchema = newSchema[typeName], let newTable = new.table(named: typeName) else {
            throwRealmException("Cannot rename properties for type '\(typeName)' because it has been removed from the Realm.")
        }
        if newObjectSchema[oldName] != nil {
            throwRealmException(
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because the source property still exists.")
        }
        guard let (oldColumn, oldProperty) = oldTable.properties[oldName] else {
            throwRealmException("Cannot rename property '\(typeName).\(oldName)' because it does not exist.")
        }
        guard let (newColumn, newProperty) = newTable.properties[new.columnName(typeName, newName)] else {
            throwRealmException("Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because the destination property does not exist.")
        }
        guard oldProperty.hasSameType(as: newProperty) else {
            throwRealmException(
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it would change from type '\(oldProperty.baseTypeText)' to '\(newProperty.baseTypeText)'.")
        }
        if oldProperty.nullable && !newProperty.nullable {
            throwRealmException(
                "Cannot rename property '\(typeName).\(oldName)' to '\(newName)' because it would change from optional to required.")
        }
        // Links keep their target's key (the target table of the same name has the same key);
        // embedded objects are made again with their values.
        if oldProperty.isCollection {
            new.copyCollection(oldColumn, oldProperty, of: oldTable.key, in: old, to: newColumn, of: newTable.key,
                               failure: "Cannot rename '\(typeName).\(oldName)' to '\(newName)'")
        } else {
            new.copyColumn(oldColumn, oldProperty, of: oldTable.key, in: old, to: newColumn, of: newTable.key,
                           failure: "Cannot rename '\(typeName).\(oldName)' to '\(newName)'")
        }
    }
}
