// Engine.swift — the small wrappers through which the public files reach the C engine: the key
// types, the engine values of public enums, and one function per engine call a public file makes
// (each makes the same C call the public file made before, with the same checks and messages).
// What moved whole out of a public type is in Impl/<Type>+Engine.swift. Only Impl/ imports CEngine.

import CEngine
import Foundation

// MARK: - Keys

/// An object's key within its table (`ce_object_key`).
typealias ObjectKey = ce_object_key
/// A table's key within a file (`ce_table_key`).
typealias TableKey = ce_table_key
/// A column's key within a table (`ce_column_key`).
typealias ColumnKey = ce_column_key

// MARK: - Public enums

extension UpdatePolicy {
    var cValue: ce_update_policy {
        switch self {
        case .error: CE_UPDATE_ERROR
        case .modified: CE_UPDATE_MODIFIED
        case .all: CE_UPDATE_ALL
        }
    }
}

extension PropertyType {
    /// The Realm type of an engine type (a mixed property, or an unknown type, is `.any`).
    init(_ type: ce_type) {
        switch type {
        case CE_TYPE_INT: self = .int
        case CE_TYPE_BOOL: self = .bool
        case CE_TYPE_FLOAT: self = .float
        case CE_TYPE_DOUBLE: self = .double
        case CE_TYPE_STRING: self = .string
        case CE_TYPE_BINARY: self = .data
        case CE_TYPE_TIMESTAMP: self = .date
        case CE_TYPE_DECIMAL128: self = .decimal128
        case CE_TYPE_OBJECT_ID: self = .objectId
        case CE_TYPE_UUID: self = .UUID
        case CE_TYPE_LINK: self = .object
        default: self = .any
        }
    }
}

// MARK: - Files

extension RealmCore {
    /// Deletes the Realm file at `path` and the files the engine keeps beside it
    /// (`ce_db_delete_files`); whether the Realm file existed. `Realm.deleteFiles(for:)`.
    static func deleteFiles(atPath path: String, fileURL: URL?) throws -> Bool {
        var deleted = false
        guard ce_db_delete_files(path, &deleted) else { throw Realm.Error.last(fileURL: fileURL) }
        return deleted
    }
}

// MARK: - Objects

extension RealmCore {
    /// The key of the object of `table` whose primary key is `value` (`ce_object_find_primary_key`
    /// in the current transaction), or nil. `Realm.object(ofType:forPrimaryKey:)`.
    func findObject(_ table: TableInfo, primaryKey value: inout ce_value, className: String) -> ObjectKey? {
        var objectKey: ObjectKey = 0
        var found = false
        guard ce_object_find_primary_key(currentTxn(), table.tableKey, &value, &objectKey, &found) else {
            engineFailure("Cannot find '\(className)' by primary key")
        }
        guard found else { return nil }
        return objectKey
    }

    /// The number of objects of `table` (`ce_object_count` in the current transaction).
    /// `Results.count`.
    func objectCount(_ table: TableInfo) -> Int {
        var count = 0
        guard ce_object_count(currentTxn(), table.tableKey, &count) else { engineFailure() }
        return count
    }

    /// The key of the object at `position` in `table`'s key order (`ce_object_key_at` in the
    /// current transaction); nil if there is none. `Results[position]`, iteration.
    func objectKey(_ table: TableInfo, at position: Int) -> ObjectKey? {
        var key: ObjectKey = 0
        guard ce_object_key_at(currentTxn(), table.tableKey, position, &key) else { return nil }
        return key
    }

    /// The position of the object `key` in `table`'s key order, read in `txn` (`ce_object_count`,
    /// then `ce_object_key_at` for each position until it is found); nil if it is not there.
    /// `Results.index(of:)`.
    func objectPosition(of key: ObjectKey, in table: TableInfo, _ txn: OpaquePointer) -> Int? {
        var count = 0
        guard ce_object_count(txn, table.tableKey, &count) else { engineFailure() }
        for index in 0..<count {
            var found: ObjectKey = 0
            guard ce_object_key_at(txn, table.tableKey, index, &found) else { engineFailure() }
            if found == key { return index }
        }
        return nil
    }

    /// The number of objects of `originTable` linking to `owner` through `column`
    /// (`ce_object_backlink_count`). `LinkingObjects.count`.
    func backlinkCount(_ owner: ObjectBase, _ originTable: TableInfo, _ column: ColumnKey) -> Int {
        var count = 0
        guard ce_object_backlink_count(txn(for: owner), owner._tableKey, owner._key, originTable.tableKey, column, &count)
        else { engineFailure() }
        return count
    }

    /// The key of the `position`th object of `originTable` linking to `owner` through `column`
    /// (`ce_object_backlink_at`); nil if there is none. `LinkingObjects[position]`.
    func backlink(_ owner: ObjectBase, _ originTable: TableInfo, _ column: ColumnKey, at position: Int) -> ObjectKey? {
        var key: ObjectKey = 0
        guard ce_object_backlink_at(txn(for: owner), owner._tableKey, owner._key, originTable.tableKey, column, position, &key)
        else { return nil }
        return key
    }
}

// MARK: - Results views

extension RealmCore {
    /// The number of objects of a results view (`ce_results_count` in the current transaction).
    /// `Results.count`.
    func resultsCount(_ view: OpaquePointer) -> Int {
        var count = 0
        guard ce_results_count(view, currentTxn(), &count) else { engineFailure() }
        return count
    }

    /// The key of the object at `position` of a results view (`ce_results_get` in the current
    /// transaction); nil if there is none. `Results[position]`, iteration.
    func resultsKey(_ view: OpaquePointer, at position: Int) -> ObjectKey? {
        var key: ObjectKey = 0
        guard ce_results_get(view, currentTxn(), position, &key) else { return nil }
        return key
    }

    /// The position of the object `key` in a results view, read in `txn` (`ce_results_index_of`);
    /// nil if it is not there. `Results.index(of:)`.
    func resultsPosition(of key: ObjectKey, in view: OpaquePointer, _ txn: OpaquePointer) -> Int? {
        var index = 0
        var found = false
        guard ce_results_index_of(view, txn, key, &index, &found) else { engineFailure() }
        return found ? index : nil
    }

    /// Parses `predicate` for `table` alone (`parseQuery`: a predicate that does not parse or
    /// bind stops there, shown as `shown`) and frees the query (`ce_query_free`).
    /// `Results.filter(_:_:)`.
    func checkPredicate(_ table: TableInfo, _ predicate: String, _ values: [Any], shown: String) {
        ce_query_free(parseQuery(self, table, predicate, values, shown: shown))
    }
}

extension Results {
    /// An aggregate of a property over these results (`ce_results_aggregate`), read as `T`.
    private func aggregate<T: _CValueConvertible>(_ property: String, _ kind: ce_aggregate) -> T? {
        if case .values(let collection, let steps) = source {
            if property != "self" {
                let plural = switch collection.kind {
                case CE_COLLECTION_SET: "Sets"
                case CE_COLLECTION_DICTIONARY: "Dictionaries"
                default: "Arrays"
                }
                throwRealmException("\(plural) of '\(realmTypeName(Element.self))' can only be aggregated on \"self\"")
            }
            // A distinct step changes which values there are; sorts do not.
            if !steps.contains(.distinct) { return valuesAggregate(collection, [Element](), kind, as: T.self) }
            return valuesAggregate(nil, valuesElements(collection, steps), kind, as: T.self)
        }
        // For a whole table, a query made here: its view lives as long as it does.
        let query = resultsQuery
        return withExtendedLifetime(query) {
            guard let (view, table) = query.view(core) else { return nil }
            return OpenRealm.aggregate(view, core, table, property, kind, as: T.self)
        }
    }

    /// The aggregates of a property by kind, for `min(ofProperty:)`, `max(ofProperty:)`,
    /// `sum(ofProperty:)` (0 when there is no value) and `average(ofProperty:)`.
    func propertyMin<T: _CValueConvertible>(_ property: String) -> T? { aggregate(property, CE_AGGREGATE_MIN) }
    func propertyMax<T: _CValueConvertible>(_ property: String) -> T? { aggregate(property, CE_AGGREGATE_MAX) }
    func propertySum<T: _CValueConvertible>(_ property: String) -> T {
        aggregate(property, CE_AGGREGATE_SUM) ?? T._ceRead(aggregateValue(.int(0), as: T._ceType), Realm(core))
    }
    func propertyAverage<T: _CValueConvertible>(_ property: String) -> T? { aggregate(property, CE_AGGREGATE_AVG) }
}

// MARK: - Collections

extension ManagedCollection {
    /// The position of `element` in the collection (`ce_collection_find`), or nil.
    /// `List.index(of:)`, `MutableSet.index(of:)`.
    func find<Element: _CValueConvertible>(_ element: Element) -> Int? {
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
        var value = element._ceValue(arena, realm)
        return find(&value)
    }

    /// The positions of the collection's values after `steps` (sorts by value and distincts, in
    /// turn), read now (`ce_collection_ordered_indices`). The `Results` of a collection of
    /// values: `sorted(ascending:)`, `distinct()`, chained.
    func orderedIndices(_ steps: [ValuesStep]) -> [Int] {
        let handle = read()
        var count = 0
        guard ce_collection_size(handle, &count) else { engineFailure() }
        let engineSteps = steps.map { step -> ce_values_step in
            switch step {
            case .sort(ascending: true): CE_VALUES_ASCENDING
            case .sort(ascending: false): CE_VALUES_DESCENDING
            case .distinct: CE_VALUES_DISTINCT
            }
        }
        var order = [Int](repeating: 0, count: Swift.max(count, 1))
        var filled = 0
        let ok = engineSteps.withUnsafeBufferPointer { stepsPointer in
            order.withUnsafeMutableBufferPointer {
                ce_collection_ordered_indices(handle, stepsPointer.baseAddress, engineSteps.count, $0.baseAddress, count, &filled)
            }
        }
        guard ok else { engineFailure() }
        return Array(order.prefix(filled))
    }

    /// The iterator of a managed list or set of objects: their links read now (a snapshot, as
    /// Realm's enumeration takes one), each object made when reached. `List.makeIterator()`.
    func objectsIterator<T: RealmCollectionValue>(as _: T.Type) -> RLMIterator<T> {
        let links = (0..<count).map { get($0) }
        return RLMIterator(snapshotCount: links.count) { [self] in element(links[$0], at: .index($0), as: T.self) }
    }

    /// The kind of the collection: a list, set or dictionary (`ce_collection_kind`).
    var kind: ce_collection_type {
        var kind = CE_COLLECTION_NONE
        var element = CE_TYPE_NULL
        guard ce_collection_kind(read(), &kind, &element) else { engineFailure() }
        return kind
    }

    /// The element at `index` (ce_collection_get's index; a dictionary's value at its key's
    /// position), read as `T`.
    func element<T: _CValueConvertible>(at index: Int, as type: T.Type) -> T {
        let value = get(index)
        if kind == CE_COLLECTION_DICTIONARY { return element(value, at: .key(dictionaryKey(read(), at: index)), as: T.self) }
        return element(value, at: .index(index), as: T.self)
    }
}

// MARK: - Lists

extension ManagedCollection {
    /// Creates an embedded object at `index` of the list (`ce_list_insert_embedded` on `list`, a
    /// handle from `write()`); its key. `List.insert(_:at:)`.
    func listInsertEmbedded(_ list: OpaquePointer, at index: Int) -> ObjectKey {
        var key: ObjectKey = 0
        guard ce_list_insert_embedded(list, index, &key) else { listFailure(index, count + 1) }
        return key
    }

    /// Inserts `element` at `index` of the list (`ce_list_insert` on `list`, a handle from
    /// `write()`). `List.insert(_:at:)`.
    func listInsert<Element: _CValueConvertible>(_ list: OpaquePointer, _ element: Element, at index: Int) {
        let arena = core.borrowArena()
        defer { core.returnArena(arena) }
        var value = element._ceValue(arena, realm)
        guard ce_list_insert(list, index, &value) else { listFailure(index, count + 1) }
    }

    /// Replaces the element at `index` of the list with a new embedded object
    /// (`ce_list_set_embedded` on `list`, a handle from `write()`); its key. `List.replace(index:object:)`.
    func listSetEmbedded(_ list: OpaquePointer, at index: Int) -> ObjectKey {
        var key: ObjectKey = 0
        guard ce_list_set_embedded(list, index, &key) else { listFailure(index, count) }
        return key
    }

    /// Replaces the element at `index` of the list with `element` (`ce_list_set` on `list`, a
    /// handle from `write()`). `List.replace(index:object:)`.
    func listSet<Element: _CValueConvertible>(_ list: OpaquePointer, _ element: Element, at index: Int) {
        let arena = core.borrowArena()
        defer { core.returnArena(arena) }
        var value = element._ceValue(arena, realm)
        guard ce_list_set(list, index, &value) else { listFailure(index, count) }
    }

    /// Removes the element at `index` of the list (`ce_list_erase`). `List.remove(at:)`.
    func listErase(at index: Int) {
        guard ce_list_erase(write(), index) else { listFailure(index, count) }
    }

    /// Moves the element at `from` of the list to `to` (`ce_list_move`). `List.move(from:to:)`.
    func listMove(from: Int, to: Int) {
        guard ce_list_move(write(), from, to) else { listFailure(Swift.max(from, to), count) }
    }

    /// Exchanges the elements at two positions of the list (`ce_list_swap`). `List.swapAt(_:_:)`.
    func listSwap(_ index1: Int, _ index2: Int) {
        guard ce_list_swap(write(), index1, index2) else { listFailure(Swift.max(index1, index2), count) }
    }

    /// Stops after a list call failed: Realm's message for an index past the end, or the engine's.
    private func listFailure(_ index: Int, _ count: Int) -> Never {
        if ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS { indexFailure(index, count) }
        engineFailure()
    }
}

// MARK: - Sets

extension ManagedCollection {
    /// Inserts `element` into the managed set (`ce_set_insert`). `MutableSet.insert(_:)`.
    func setInsert<Element: _CValueConvertible>(_ element: Element) {
        let set = write()
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
        var value = element._ceValue(arena, realm)
        guard ce_set_insert(set, &value, nil) else { engineFailure() }
    }

    /// Removes `element` from the managed set if it holds it (`ce_set_erase`). `MutableSet.remove(_:)`.
    func setErase<Element: _CValueConvertible>(_ element: Element) {
        let set = write()
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
        var value = element._ceValue(arena, realm)
        guard ce_set_erase(set, &value, nil) else { engineFailure() }
    }
}

// MARK: - Dictionaries

extension ManagedCollection {
    /// The key at `index` in key order (`ce_dictionary_key_at` on `dictionary`, a handle from
    /// `read()`). `Map.keys`.
    func dictionaryKey(_ dictionary: OpaquePointer, at index: Int) -> String {
        var key = ce_value()
        guard ce_dictionary_key_at(dictionary, index, &key) else { engineFailure() }
        return key.stringValue
    }

    /// The value of `key` (`ce_dictionary_get`), nil if the dictionary has no such key. `Map[key]`.
    func dictionaryValue(forKey key: String) -> ce_value? {
        var value = ce_value()
        var found = false
        let ok = key.withCString { ce_dictionary_get(read(), $0, key.utf8.count, &value, &found) }
        guard ok else { engineFailure() }
        return found ? value : nil
    }

    /// Creates an embedded object as the value of `key` (`ce_dictionary_insert_embedded` on
    /// `dictionary`, a handle from `write()`); its key. `Map.updateValue(_:forKey:)`.
    func dictionaryInsertEmbedded(_ dictionary: OpaquePointer, forKey key: String) -> ObjectKey {
        var objectKey: ObjectKey = 0
        let ok = key.withCString { ce_dictionary_insert_embedded(dictionary, $0, key.utf8.count, &objectKey) }
        guard ok else { engineFailure("Map key '\(key)'") }
        return objectKey
    }

    /// Inserts or replaces the value of `key` (`ce_dictionary_set` on `dictionary`, a handle from
    /// `write()`). `Map.updateValue(_:forKey:)`.
    func dictionarySet<Value: _CValueConvertible>(_ dictionary: OpaquePointer, _ value: Value, forKey key: String) {
        let arena = _CArena()
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
        var cValue = value._ceValue(arena, realm)
        let ok = key.withCString { ce_dictionary_set(dictionary, $0, key.utf8.count, &cValue) }
        guard ok else { engineFailure("Map key '\(key)'") }
    }

    /// Removes `key` and its value, if present (`ce_dictionary_erase`). `Map.removeObject(for:)`.
    func dictionaryErase(forKey key: String) {
        let dictionary = write()
        let ok = key.withCString { ce_dictionary_erase(dictionary, $0, key.utf8.count, nil) }
        guard ok else { engineFailure() }
    }
}
