// DynamicFile+Write.swift — writing a file without model classes: adding classes and properties
// from a description, creating objects, setting any property from a DynamicValue.
//
// Owns: the writes of DynamicTransaction (what `openrealm import` does).
// Never: reading values (DynamicFile.swift), Realm instances or model classes.

import CEngine

extension DynamicTransaction {
    /// Adds the classes of `classes` the file lacks, and the properties they lack; a property the
    /// file has with another type is an error naming it. Tables first, then properties (links
    /// name their targets).
    package func addMissing(_ classes: [DynamicClass]) throws(EngineError) {
        try check()
        for cls in classes where try !hasClass(cls.name) {
            var key: ce_table_key = 0
            guard cls.embedded ? ce_table_add_embedded(txn, cls.name, &key) : ce_table_add(txn, cls.name, &key) else {
                throw EngineError.last()
            }
        }
        forgetClasses()
        for cls in classes {
            let existing = try table(cls.name)
            if existing.cls.embedded != cls.embedded {
                throw EngineError(code: .schemaMismatch, message:
                    "class '\(cls.name)' is \(existing.cls.embedded ? "embedded" : "top-level") in the file, \(cls.embedded ? "embedded" : "top-level") in the import")
            }
            for property in cls.properties {
                if let stored = existing.cls.properties.first(where: { $0.name == property.name }) {
                    guard stored.type == property.type, stored.collection == property.collection, stored.target == property.target,
                        stored.optional == property.optional || property.type == .mixed
                    else {
                        throw EngineError(code: .schemaMismatch, message:
                            "property '\(cls.name).\(property.name)' is '\(stored.typeText)' in the file, '\(property.typeText)' in the import")
                    }
                    continue
                }
                var info = ce_property_info()
                info.type = property.type.cType
                info.nullable = property.optional || property.type == .mixed || (property.type == .object && property.collection == .none)
                info.primary_key = property.primaryKey
                info.indexed = property.indexed && !property.primaryKey
                info.collection = property.collection.cValue
                if let target = property.target { info.link_target = try table(target).key }
                var column: ce_column_key = 0
                let added = property.name.withCString { name in
                    info.name = name
                    return ce_property_add(txn, existing.key, &info, &column)
                }
                guard added else { throw EngineError.last() }
            }
            forgetClasses()
        }
    }

    /// The key of the object of `className` whose primary key is `primaryKey`, if there is one.
    package func find(_ className: String, primaryKey: DynamicValue) throws(EngineError) -> Int64? {
        let table = try table(className)
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }
        var value = try cValue(primaryKey, arena)
        var key: Int64 = 0
        var found = false
        guard ce_object_find_primary_key(txn, table.key, &value, &key, &found) else { throw EngineError.last() }
        return found ? key : nil
    }

    /// A new object of a top-level class with default values (and `primaryKey` if it has one).
    package func create(_ className: String, primaryKey: DynamicValue?) throws(EngineError) -> Int64 {
        let table = try table(className)
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }
        var key: Int64 = 0
        if let primaryKey {
            var value = try cValue(primaryKey, arena)
            guard ce_object_create(txn, table.key, &value, &key) else { throw EngineError.last() }
        } else {
            guard ce_object_create(txn, table.key, nil, &key) else { throw EngineError.last() }
        }
        return key
    }

    /// Creates an object of a top-level class with all its `values` at once (one per property,
    /// in the class's order), or, when an object with its primary key exists, updates that
    /// object's properties whose values differ (Realm's `.modified`); the object's key and
    /// whether it was created. Every property must be a scalar: no link, collection, embedded
    /// object or mixed value (those need `set`). The fast way to load many objects.
    package func createOrUpdate(_ className: String, values: [DynamicValue]) throws(EngineError) -> (key: Int64, created: Bool) {
        let table = try table(className)
        guard values.count == table.cls.properties.count else {
            throw EngineError(code: .invalidArgument, message: "\(values.count) values for the \(table.cls.properties.count) properties of '\(className)'")
        }
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
        var raw = [ce_value](repeating: .null, count: Int(table.columns.last.map { $0 + 1 } ?? 0))
        for (index, value) in values.enumerated() {
            let property = table.cls.properties[index]
            guard property.collection == .none, property.type != .object, property.type != .mixed else {
                throw EngineError(code: .invalidArgument, message: "property '\(property.name)' of '\(className)' is not a scalar: set it with set(_:of:in:property:)")
            }
            raw[Int(table.columns[index])] = try cValue(value, arena)
        }
        var key: Int64 = 0
        var created = true
        let ok = raw.withUnsafeBufferPointer { buffer in
            table.cls.primaryKey == nil
                ? ce_object_create_with_values(txn, table.key, buffer.baseAddress, buffer.count, &key)
                : ce_object_create_or_update(txn, table.key, buffer.baseAddress, buffer.count, CE_UPDATE_MODIFIED, &key, &created)
        }
        guard ok else { throw EngineError.last() }
        return (key, created)
    }

    /// Sets a property of an object: a value, a link (`.link`), an embedded object (`.embedded`,
    /// made anew), a list, set or dictionary (its contents replaced), or a mixed value holding
    /// a nested list or dictionary.
    package func set(_ value: DynamicValue, of key: Int64, in className: String, property name: String) throws(EngineError) {
        let table = try table(className)
        guard let index = table.cls.properties.firstIndex(where: { $0.name == name }) else {
            throw EngineError(code: .invalidArgument, message: "no property '\(name)' in class '\(className)'")
        }
        let property = table.cls.properties[index]
        let column = table.columns[index]
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }
        if property.collection != .none {
            var collection: OpaquePointer?
            guard ce_collection_open(txn, table.key, key, column, &collection), let collection else { throw EngineError.last() }
            defer { ce_collection_close(collection) }
            guard ce_collection_clear(collection) else { throw EngineError.last() }
            try fill(collection, property.collection, with: value, arena)
            return
        }
        switch value {
        case .embedded(let embeddedClass, let values):
            var child: Int64 = 0
            guard ce_object_create_embedded(txn, table.key, key, column, &child) else { throw EngineError.last() }
            try setAll(values, of: child, in: embeddedClass)
        case .list, .dictionary:
            var raw = ce_value()
            if case .list = value { raw.type = CE_TYPE_LIST } else { raw.type = CE_TYPE_DICTIONARY }
            guard ce_object_set(txn, table.key, key, column, &raw) else { throw EngineError.last() }
            var collection: OpaquePointer?
            guard ce_collection_open_mixed(txn, table.key, key, column, &collection), let collection else { throw EngineError.last() }
            defer { ce_collection_close(collection) }
            if case .list = value { try fill(collection, .list, with: value, arena) } else { try fill(collection, .dictionary, with: value, arena) }
        default:
            var raw = try cValue(value, arena)
            guard ce_object_set(txn, table.key, key, column, &raw) else { throw EngineError.last() }
        }
    }

    /// Sets every property but the primary key from `values` (in the class's property order).
    private func setAll(_ values: [DynamicValue], of key: Int64, in className: String) throws(EngineError) {
        let cls = try table(className).cls
        guard values.count == cls.properties.count else {
            throw EngineError(code: .invalidArgument, message: "\(values.count) values for the \(cls.properties.count) properties of '\(className)'")
        }
        for (property, value) in zip(cls.properties, values) where !property.primaryKey {
            try set(value, of: key, in: className, property: property.name)
        }
    }

    private func fill(_ collection: OpaquePointer, _ kind: DynamicCollection, with value: DynamicValue, _ arena: _CArena) throws(EngineError) {
        switch (kind, value) {
        case (.list, .list(let elements)), (.set, .list(let elements)):
            for (index, element) in elements.enumerated() {
                switch element {
                case .embedded(let className, let values):
                    var child: Int64 = 0
                    guard ce_list_insert_embedded(collection, index, &child) else { throw EngineError.last() }
                    try setAll(values, of: child, in: className)
                case .list, .dictionary:
                    var raw = ce_value()
                    if case .list = element { raw.type = CE_TYPE_LIST } else { raw.type = CE_TYPE_DICTIONARY }
                    guard ce_list_insert(collection, index, &raw) else { throw EngineError.last() }
                    var at = ce_value.int(Int64(index))
                    var nested: OpaquePointer?
                    guard ce_collection_open_nested(collection, &at, &nested), let nested else { throw EngineError.last() }
                    defer { ce_collection_close(nested) }
                    if case .list = element { try fill(nested, .list, with: element, arena) } else { try fill(nested, .dictionary, with: element, arena) }
                default:
                    var raw = try cValue(element, arena)
                    let ok = kind == .list ? ce_list_insert(collection, index, &raw) : ce_set_insert(collection, &raw, nil)
                    guard ok else { throw EngineError.last() }
                }
            }
        case (.dictionary, .dictionary(let entries)):
            for (key, element) in entries {
                var keyBytes = Array(key.utf8)
                let count = keyBytes.count
                try keyBytes.withUnsafeMutableBufferPointer { (buffer) throws(EngineError) in
                    let keyPointer = UnsafeRawPointer(buffer.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) }
                    switch element {
                    case .embedded(let className, let values):
                        var child: Int64 = 0
                        guard ce_dictionary_insert_embedded(collection, keyPointer, count, &child) else { throw EngineError.last() }
                        try setAll(values, of: child, in: className)
                    case .list, .dictionary:
                        var raw = ce_value()
                        if case .list = element { raw.type = CE_TYPE_LIST } else { raw.type = CE_TYPE_DICTIONARY }
                        guard ce_dictionary_set(collection, keyPointer, count, &raw) else { throw EngineError.last() }
                        var at = arena.string(key)
                        var nested: OpaquePointer?
                        guard ce_collection_open_nested(collection, &at, &nested), let nested else { throw EngineError.last() }
                        defer { ce_collection_close(nested) }
                        if case .list = element { try fill(nested, .list, with: element, arena) } else { try fill(nested, .dictionary, with: element, arena) }
                    default:
                        var raw = try cValue(element, arena)
                        guard ce_dictionary_set(collection, keyPointer, count, &raw) else { throw EngineError.last() }
                    }
                }
            }
        default:
            throw EngineError(code: .invalidArgument, message: "a \(kind.rawValue) property needs a \(kind == .dictionary ? "dictionary" : "list") of values")
        }
    }
}
