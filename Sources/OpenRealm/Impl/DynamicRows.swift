// DynamicRows.swift — many objects of a class with scalar properties only, read and written
// without a DynamicValue per value: what the tool's export and import of millions of objects
// go through.
//
// Owns: DynamicRowBlock (the values of a run of objects, read leaf by leaf with
// ce_object_get_range) and DynamicRow (one object's values, created or updated with
// ce_object_create_or_update), and the DynamicTransaction calls that fill and use them.
// Never: links, collections, embedded objects or mixed values (DynamicFile.swift and
// DynamicFile+Write.swift read and write those as DynamicValues).

import CEngine

/// The values of a run of objects of one class whose properties are all scalars (read by
/// `DynamicTransaction.readRows`), by row and property index (the class's property order).
/// Strings and binaries point into the file: valid until the next `readRows` into this block
/// or the end of the transaction.
package final class DynamicRowBlock {
    /// How many objects the block holds at most.
    package let capacity: Int
    /// Values per object: the class's property count.
    package let columns: Int
    @usableFromInline let values: UnsafeMutablePointer<ce_value>
    /// How many objects the last `readRows` read.
    @exclusivity(unchecked) package internal(set) var count = 0
    @exclusivity(unchecked) unowned(unsafe) var transaction: DynamicTransaction?

    /// A block of `capacity` objects of `columns` properties each.
    package init(capacity: Int, columns: Int) {
        self.capacity = Swift.max(capacity, 1)
        self.columns = columns
        values = .allocate(capacity: self.capacity * Swift.max(columns, 1))
        values.initialize(repeating: ce_value(), count: self.capacity * Swift.max(columns, 1))
    }

    deinit { values.deallocate() }

    @inlinable @inline(__always) func raw(_ row: Int, _ column: Int) -> ce_value {
        precondition(row < count && column < columns, "a value outside the rows read")
        return values[row * columns + column]
    }

    /// The type of a value, nil for null.
    @inlinable package func type(_ row: Int, _ column: Int) -> DynamicType? {
        let value = raw(row, column)
        return value.type == CE_TYPE_NULL ? nil : DynamicType(value.type)
    }

    @inlinable package func int(_ row: Int, _ column: Int) -> Int64 { raw(row, column).integer }
    @inlinable package func bool(_ row: Int, _ column: Int) -> Bool { raw(row, column).boolean }
    @inlinable package func float(_ row: Int, _ column: Int) -> Float { raw(row, column).float_value }
    @inlinable package func double(_ row: Int, _ column: Int) -> Double { raw(row, column).double_value }

    /// The UTF-8 bytes of a string, or the bytes of a binary.
    @inlinable package func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let value = raw(row, column)
        guard value.string.size > 0, let data = value.string.data else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: data, count: value.string.size)
    }

    /// Any value as a DynamicValue (for the types without an accessor of their own).
    package func value(_ row: Int, _ column: Int) throws(EngineError) -> DynamicValue {
        let value = raw(row, column)
        guard let transaction else { throw EngineError(code: .wrongTransactionState, message: "the block holds no rows") }
        return try transaction.dynamicValue(value)
    }
}

/// One object's values for `DynamicTransaction.createOrUpdate(_:)`, by property index (the
/// class's property order). Strings given by their bytes are not copied: they must stay valid
/// until the object is created.
package final class DynamicRow {
    package let className: String
    let table: ce_table_key
    /// The column slot of each property.
    @usableFromInline let slots: UnsafeMutablePointer<Int>
    @usableFromInline let values: UnsafeMutablePointer<ce_value>
    let slotCount: Int
    let hasPrimaryKey: Bool
    let arena = _CArena()
    unowned(unsafe) let transaction: DynamicTransaction

    init(_ className: String, table: ce_table_key, slots: [Int], slotCount: Int, hasPrimaryKey: Bool,
         transaction: DynamicTransaction) {
        self.className = className
        self.hasPrimaryKey = hasPrimaryKey
        self.table = table
        self.slots = .allocate(capacity: Swift.max(slots.count, 1))
        self.slots.initialize(from: slots, count: slots.count)
        self.slotCount = slotCount
        self.transaction = transaction
        values = .allocate(capacity: Swift.max(slotCount, 1))
        values.initialize(repeating: ce_value(), count: Swift.max(slotCount, 1))
    }

    deinit {
        values.deallocate()
        slots.deallocate()
    }

    /// Every value null again (and the copies of `set(_:_:)` dropped).
    package func clear() {
        values.update(repeating: ce_value(), count: slotCount)
        arena.reset()
    }

    @inlinable package func setNull(_ property: Int) { values[slots[property]] = .null }

    @inlinable package func setInt(_ property: Int, _ value: Int64) { values[slots[property]] = .int(value) }

    @inlinable package func setBool(_ property: Int, _ value: Bool) { values[slots[property]] = .bool(value) }

    @inlinable package func setFloat(_ property: Int, _ value: Float) { values[slots[property]] = .float(value) }

    @inlinable package func setDouble(_ property: Int, _ value: Double) { values[slots[property]] = .double(value) }

    /// A string by its UTF-8 bytes (not copied, not checked here: the engine checks UTF-8).
    @inlinable package func setString(_ property: Int, _ bytes: UnsafeRawBufferPointer) {
        var raw = ce_value()
        raw.type = CE_TYPE_STRING
        raw.string.data = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        raw.string.size = bytes.count
        values[slots[property]] = raw
    }

    /// Any scalar value (copied until `clear()`).
    package func set(_ property: Int, _ value: DynamicValue) throws(EngineError) {
        values[slots[property]] = try transaction.cValue(value, arena)
    }
}

extension DynamicTransaction {
    /// Reads the objects of `className` at positions `first`, `first + 1`, ... (key order) into
    /// `block`, as many as it holds; how many were read (0 at the end). Every property of the
    /// class must be a scalar (no link, collection or mixed value).
    package func readRows(of className: String, from first: Int, into block: DynamicRowBlock) throws(EngineError) -> Int {
        let table = try table(className)
        guard table.columns.count == block.columns else {
            throw EngineError(code: .invalidArgument, message: "a block of \(block.columns) values per object for the \(table.columns.count) properties of '\(className)'")
        }
        var read = 0
        let ok = table.columns.withUnsafeBufferPointer { columns in
            ce_object_get_range(txn, table.key, first, block.capacity, columns.baseAddress, columns.count, nil, block.values, &read)
        }
        guard ok else { block.count = 0; throw EngineError.last() }
        block.count = read
        block.transaction = self
        return read
    }

    /// An empty row for the objects of `className`.
    package func row(for className: String) throws(EngineError) -> DynamicRow {
        let table = try table(className)
        let slotCount = Int(table.columns.last.map { $0 + 1 } ?? 0)
        return DynamicRow(className, table: table.key, slots: table.columns.map { Int($0) }, slotCount: slotCount,
                          hasPrimaryKey: table.cls.primaryKey != nil, transaction: self)
    }

    /// Creates the object `row` describes, or, when an object with its primary key exists,
    /// updates that object's properties whose values differ (Realm's `.modified`): its key and
    /// whether it was created. Objects of a class without a primary key are always created.
    package func createOrUpdate(_ row: DynamicRow) throws(EngineError) -> (key: Int64, created: Bool) {
        try check()
        var key: Int64 = 0
        var created = true
        let ok = !row.hasPrimaryKey
            ? ce_object_create_with_values(txn, row.table, row.values, row.slotCount, &key)
            : ce_object_create_or_update(txn, row.table, row.values, row.slotCount, CE_UPDATE_MODIFIED, &key, &created)
        guard ok else { throw EngineError.last() }
        return (key, created)
    }
}
