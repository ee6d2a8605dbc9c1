// TableInfo.swift — how a class maps onto a table of a given file (TableInfo: keys resolved once,
// _ManagedColumn handed to accessors).

import CEngine

// MARK: - A class's table in one file

/// The column of a managed property: resolved once per class and file, handed to accessors.
/// Internal machinery of OpenRealm.
public struct _ManagedColumn: Sendable {
    /// The column key of the property (unused for LinkingObjects).
    let key: ce_column_key
    /// The index of the property in its class's schema.
    @usableFromInline let property: Int
}

/// A model class bound to its table in one open file: the table key and every column key.
@usableFromInline
final class TableInfo {
    let schema: ObjectSchemaInfo
    let tableKey: ce_table_key
    /// By property index.
    let columns: [_ManagedColumn]
    /// By wrapper token: what a managed accessor uses, one array index per access.
    @usableFromInline let columnsByToken: [_ManagedColumn]
    /// The index of the primary key property, or -1.
    @usableFromInline let primaryKeyProperty: Int
    /// The number of column slots of the table (values for ce_object_create_with_values).
    let slotCount: Int
    /// The stored properties as adding an object reads them, without copying a PropertyInfo.
    /// A buffer of this instance's own (freed by deinit), not an array: `add` walks it without
    /// retaining anything.
    let creationFields: UnsafeMutableBufferPointer<CreationField>
    /// Whether any stored property is written after the object is created (`needsAfterCreate`):
    /// `add` walks the fields a second time only then.
    let anyNeedsAfterCreate: Bool
    /// Whether a property is a to-one link to embedded objects (`add(_:update: .modified)`
    /// keeps and updates those).
    let hasEmbeddedLink: Bool

    /// One stored property, for adding an object.
    struct CreationField {
        let offset: Int
        let field: any _Persistable.Type
        let column: _ManagedColumn
        /// The wrapper's token (a decoded wrapper gets it when its object is added).
        let token: Int32
        let needsAfterCreate: Bool
        let isCollection: Bool
        /// The common value types, which `add` reads with a direct (inlined) call rather than
        /// through `field`'s witness table.
        let kind: Kind

        enum Kind: UInt8 {
            case other, int, int64, double, float, bool, string, optionalInt, optionalDouble, optionalString

            init(_ type: any _Persistable.Type) {
                switch ObjectIdentifier(type) {
                case ObjectIdentifier(Int.self): self = .int
                case ObjectIdentifier(Int64.self): self = .int64
                case ObjectIdentifier(Double.self): self = .double
                case ObjectIdentifier(Float.self): self = .float
                case ObjectIdentifier(Bool.self): self = .bool
                case ObjectIdentifier(String.self): self = .string
                case ObjectIdentifier(Int?.self): self = .optionalInt
                case ObjectIdentifier(Double?.self): self = .optionalDouble
                case ObjectIdentifier(String?.self): self = .optionalString
                default: self = .other
                }
            }
        }
    }

    init(schema: ObjectSchemaInfo, tableKey: ce_table_key, columns: [_ManagedColumn], slotCount: Int) {
        self.schema = schema
        self.tableKey = tableKey
        self.columns = columns
        self.columnsByToken = schema.propertyIndexByToken.map { columns[$0] }
        self.primaryKeyProperty = schema.primaryKey ?? -1
        self.slotCount = slotCount
        let fields = schema.properties.indices.filter { schema.properties[$0].isStored }.map { index in
            let property = schema.properties[index]
            return CreationField(
                offset: property.offset, field: property.field, column: columns[index], token: Int32(property.token),
                needsAfterCreate: property.needsAfterCreate, isCollection: property.shape.collection != CE_COLLECTION_NONE,
                kind: property.needsAfterCreate ? .other : CreationField.Kind(property.field))
        }
        let buffer = UnsafeMutableBufferPointer<CreationField>.allocate(capacity: fields.count)
        _ = buffer.initialize(from: fields)
        self.creationFields = buffer
        self.anyNeedsAfterCreate = fields.contains { $0.needsAfterCreate }
        self.hasEmbeddedLink = schema.properties.contains { $0.shape.holdsOneLink && $0.shape.linkTarget is EmbeddedObject.Type }
    }

    deinit {
        creationFields.deinitialize()
        creationFields.deallocate()
    }
}
