// DynamicObject+Engine.swift — how a DynamicObject reads and writes its properties by name in
// its migration transaction: values boxed as Any, and loosely typed values converted for the
// engine.

import CEngine
import Foundation

extension DynamicObject {
    private func column(_ name: String) -> (context: DynamicContext, table: TableKey, key: ObjectKey, column: ColumnKey, property: StoredProperty) {
        guard let dynamic else { throwRealmException("This DynamicObject is not bound to an object.") }
        let context = dynamic.context
        // A new object of a migration takes the Swift name of a property with a persisted name.
        let stored = context.persistedNames.isEmpty ? name : context.columnName(objectTypeName, name)
        guard let (column, property) = context.table(dynamic.table).properties[stored] else {
            throwRealmException("Invalid property name '\(name)' for class '\(objectTypeName)'.")
        }
        return (dynamic.context, dynamic.table, dynamic.key, column, property)
    }

    /// The value of a property, boxed: a scalar, nil, a DynamicObject for a link; for a
    /// collection, Realm's typed collection (`List<MigrationObject>`, `MutableSet<Int>`,
    /// `Map<String, String>`) holding what the file holds; a new object's writes each change
    /// back to the object.
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
                return typedCollection(c, name, elements: [], entries: result)
            }
            let elements = (0..<count).map { index -> Any in
                var value = ce_value()
                guard ce_collection_get(collection, index, &value) else { engineFailure() }
                return box(value, c.context) ?? NSNull()
            }
            return typedCollection(c, name, elements: elements, entries: [:])
        }
        var value = ce_value()
        guard ce_object_get(c.context.txn, c.table, c.key, c.column, &value) else { engineFailure() }
        return box(value, c.context)
    }

    /// The typed collection of a collection property holding `elements` (or `entries`); in a
    /// new object, each change to it is written back to the property.
    private func typedCollection(_ c: (context: DynamicContext, table: TableKey, key: ObjectKey, column: ColumnKey, property: StoredProperty),
                                 _ name: String, elements: [Any], entries: [String: Any]) -> Any {
        let typed = DynamicObject.typedCollection(c.property, elements: elements, entries: entries)
        if c.context.writable, let collection = typed as? _WriteBackCollection {
            collection._writeBack = { [unowned collection] in self.setDynamicValue(collection, name) }
        }
        return typed
    }

    /// Writes a property of a new-schema object: a scalar, nil, a DynamicObject (a link), an
    /// array (or a Realm collection) for a list or set, or a dictionary (or a map) for a map.
    func setDynamicValue(_ newValue: Any?, _ name: String) {
        let c = column(name)
        guard c.context.writable else { throwRealmException("The old objects of a migration are read-only.") }
        var newValue = c.property.isCollection ? DynamicObject.collectionContents(newValue) : newValue
        // As Realm: nil (or NSNull) for a collection empties it.
        if c.property.isCollection, newValue.map(isNoValue) ?? true {
            newValue = c.property.collection == CE_COLLECTION_DICTIONARY ? [String: Any]() : [Any]()
        }
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
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
            guard let entries = newValue as? [String: Any] else {
                throwRealmException("Invalid value '\(newValue ?? "nil")' for map property '\(objectTypeName).\(name)': a dictionary is required.")
            }
            var collection: OpaquePointer?
            guard ce_collection_open(c.context.txn, c.table, c.key, c.column, &collection), let collection else { engineFailure() }
            defer { ce_collection_close(collection) }
            guard ce_collection_clear(collection) else { engineFailure() }
            for (key, item) in entries {
                var value = unbox(item, c.property, c.context, arena, name)
                guard key.withCString({ ce_dictionary_set(collection, $0, key.utf8.count, &value) }) else {
                    engineFailure("Property '\(objectTypeName).\(name)'")
                }
            }
            return
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
            Date(ceTimestamp: value.timestamp)
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
        // An enum is stored as its raw value, as Realm bridges it.
        if let enumValue = unwrapped as? any PersistableEnum {
            return DynamicObject.convert(enumValue.rawValue, property, context, arena, name, typeName: typeName)
        }
        func fail() -> Never {
            throwRealmException(
                "Invalid value '\(unwrapped)' of type '\(type(of: unwrapped))' for \(property.valueTypeText) property '\(typeName).\(name)'.")
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
            if let object = unwrapped as? DynamicObject {
                guard let target = object.dynamic, target.context === context else { fail() }
                return .link(target.table, target.key)
            }
            // As Realm: a model object, or the values of a new one, becomes a new object.
            guard let targetName = property.targetName,
                let (table, key) = context.createLinkedObject(unwrapped, typeName: targetName)
            else { fail() }
            return .link(table, key)
        case CE_TYPE_MIXED:
            guard let mixed = AnyRealmValue._ceFromAny(unwrapped) else { fail() }
            if case .object = mixed { fail() }
            return mixed._ceValue(arena, nil)
        default: fail()
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
