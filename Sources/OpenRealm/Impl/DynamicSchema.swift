// DynamicSchema.swift — the Swift types of a file's columns as DynamicObject reads them (Int,
// String?, DynamicObject?, List<DynamicObject>, Map<String, Int?>, ...), and the schema of a
// table built from them for the DynamicObjects of `Realm.dynamicObjects(_:)`.

import CEngine
import Foundation

/// Something done with the Swift type of a stored element (`visitElementType`).
protocol _ElementTypeVisitor {
    associatedtype Result
    func visit<T: RealmCollectionValue>(_ type: T.Type) -> Result
}

/// Calls `visitor` with the Swift type of a stored element of `type`: `Int`, `String?`, ...;
/// `AnyRealmValue` for mixed; a link is a `DynamicObject` (`DynamicObject?` when `nullable`).
func visitElementType<V: _ElementTypeVisitor>(_ type: ce_type, nullable: Bool, _ visitor: V) -> V.Result {
    switch type {
    case CE_TYPE_INT: nullable ? visitor.visit(Int?.self) : visitor.visit(Int.self)
    case CE_TYPE_BOOL: nullable ? visitor.visit(Bool?.self) : visitor.visit(Bool.self)
    case CE_TYPE_FLOAT: nullable ? visitor.visit(Float?.self) : visitor.visit(Float.self)
    case CE_TYPE_DOUBLE: nullable ? visitor.visit(Double?.self) : visitor.visit(Double.self)
    case CE_TYPE_STRING: nullable ? visitor.visit(String?.self) : visitor.visit(String.self)
    case CE_TYPE_BINARY: nullable ? visitor.visit(Data?.self) : visitor.visit(Data.self)
    case CE_TYPE_TIMESTAMP: nullable ? visitor.visit(Date?.self) : visitor.visit(Date.self)
    case CE_TYPE_DECIMAL128: nullable ? visitor.visit(Decimal128?.self) : visitor.visit(Decimal128.self)
    case CE_TYPE_OBJECT_ID: nullable ? visitor.visit(ObjectId?.self) : visitor.visit(ObjectId.self)
    case CE_TYPE_UUID: nullable ? visitor.visit(UUID?.self) : visitor.visit(UUID.self)
    case CE_TYPE_MIXED: visitor.visit(AnyRealmValue.self)
    default: nullable ? visitor.visit(DynamicObject?.self) : visitor.visit(DynamicObject.self)
    }
}

/// The Swift type of a stored property as Realm's DynamicObject gives it: the element type, or
/// a `List`, `MutableSet` or `Map<String, _>` of it. A to-one link and a map's links may be nil
/// (`DynamicObject?`); a list's and a set's may not.
private struct FieldType: _ElementTypeVisitor {
    let collection: ce_collection_type

    func visit<T: RealmCollectionValue>(_: T.Type) -> any _Persistable.Type {
        switch collection {
        case CE_COLLECTION_LIST: List<T>.self
        case CE_COLLECTION_SET: MutableSet<T>.self
        case CE_COLLECTION_DICTIONARY: Map<String, T>.self
        default:
            // Every element type is a persistable type of its own (BasicTypes.swift).
            T.self as! any _Persistable.Type
        }
    }
}

extension StoredProperty {
    /// Whether an element of the property read as a link may be nil (a to-one link, a map's).
    var linksMayBeNil: Bool { collection == CE_COLLECTION_NONE || collection == CE_COLLECTION_DICTIONARY }

    /// The Swift type DynamicObject reads and writes the property as.
    var dynamicFieldType: any _Persistable.Type {
        visitElementType(type, nullable: type == CE_TYPE_LINK ? linksMayBeNil : nullable, FieldType(collection: collection))
    }
}

extension ObjectSchemaInfo {
    /// The schema of the table `stored`, named `name`, as DynamicObjects read it: its properties
    /// in column order, by their names in the file, typed by `dynamicFieldType`; its class is
    /// `DynamicObject`.
    /// `swiftNames` gives the Swift names of the properties whose persisted names differ
    /// (`propertiesMapping()` of the Realm's class of that name), as Realm's dynamic schema has them.
    static func dynamic(_ stored: StoredTable, named name: String, swiftNames: [String: String] = [:]) -> ObjectSchemaInfo {
        let columns = stored.properties.sorted { $0.value.column < $1.value.column }
        let properties = columns.enumerated().map { index, entry in
            let info = entry.value.info
            let field = info.dynamicFieldType
            var shape = field._rlmShape()
            shape.linkTargetName = info.targetName
            return PropertyInfo(name: swiftNames[entry.key] ?? entry.key, columnName: entry.key, offset: 0, token: index, field: field, shape: shape,
                                isPrimaryKey: info.primaryKey, isIndexed: info.indexed, originProperty: nil)
        }
        return ObjectSchemaInfo(objectClass: DynamicObject.self, className: name, isEmbedded: stored.isEmbedded, properties: properties)
    }
}
