// Schema.swift — what a model class looks like (discovered once per class by reflection over its
// @Persisted wrappers), the public schema types (Schema, ObjectSchema, Property, PropertyType),
// and how a class maps onto a table of a given file (TableInfo: keys resolved once).

@_spi(Reflection) import Swift
import CEngine
import Synchronization

// MARK: - Public schema types

/// The type of a property, as Realm names it (`RLMPropertyType`).
///
///     person.objectSchema["age"]?.type == .int
public enum PropertyType: Int, Sendable, Hashable, CustomStringConvertible {
    /// Integers of every width.
    case int = 0
    /// `Bool`.
    case bool = 1
    /// `Float`.
    case float = 5
    /// `Double`.
    case double = 6
    /// `UUID`.
    case UUID = 12
    /// `String`.
    case string = 2
    /// `Data`.
    case data = 3
    /// `AnyRealmValue`: a value of any type.
    case any = 9
    /// `Date`.
    case date = 4
    /// `ObjectId`.
    case objectId = 10
    /// `Decimal128`.
    case decimal128 = 11
    /// A link to an object, or a collection of links.
    case object = 7
    /// `LinkingObjects`: the objects linking to this one through a property.
    case linkingObjects = 8

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

    /// Realm's name of the type: `"int"`, `"string"`, `"object"`, `"mixed"`, ...
    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .float: "float"
        case .double: "double"
        case .UUID: "uuid"
        case .string: "string"
        case .data: "data"
        case .any: "mixed"
        case .date: "date"
        case .objectId: "object id"
        case .decimal128: "decimal128"
        case .object: "object"
        case .linkingObjects: "linking objects"
        }
    }
}

/// One property of a model class, as Realm describes it.
///
///     let age = Person().objectSchema["age"]!
///     age.type == .int; age.isOptional == false; age.isIndexed == false
public struct Property: Sendable, Hashable, CustomStringConvertible {
    /// The property's name.
    public let name: String
    /// The type of the property (of its elements, for collections).
    public let type: PropertyType
    /// Whether the property is indexed (primary keys are).
    public let isIndexed: Bool
    /// Whether the property (or its elements) may hold nil.
    public let isOptional: Bool
    /// Whether the property is a `List`.
    public let isArray: Bool
    /// Whether the property is a `MutableSet`.
    public let isSet: Bool
    /// Whether the property is a `Map`.
    public let isMap: Bool
    /// Whether the property is the primary key.
    public let isPrimaryKey: Bool
    /// The class name of linked objects (`.object` and `.linkingObjects`), else nil.
    public let objectClassName: String?
    /// For `.linkingObjects`: the property of `objectClassName` whose links are listed.
    public let linkOriginPropertyName: String?

    /// The name in the file (the same as `name`).
    public var columnName: String { name }

    /// Realm's form: `name { type = int; indexed = NO; ... }`.
    public var description: String {
        """
        \(name) {
        \ttype = \(type);
        \tcolumnName = \(name);
        \tindexed = \(isIndexed ? "YES" : "NO");
        \tisPrimary = \(isPrimaryKey ? "YES" : "NO");
        \tarray = \(isArray ? "YES" : "NO");
        \tset = \(isSet ? "YES" : "NO");
        \tdictionary = \(isMap ? "YES" : "NO");
        \toptional = \(isOptional ? "YES" : "NO");
        }
        """
    }
}

/// The schema of one model class: its name, properties and primary key.
///
///     let schema = Person().objectSchema
///     schema.className == "Person"
///     schema.primaryKeyProperty?.name == "id"
///     schema["name"]?.type == .string
public struct ObjectSchema: Sendable, Hashable, CustomStringConvertible {
    let info: ObjectSchemaInfo

    /// The persisted properties, superclass properties first, in declaration order.
    public var properties: [Property] { info.properties.map(\.publicProperty) }

    /// The name of the class (without its module).
    public var className: String { info.className }

    /// The Swift class.
    public var objectClass: ObjectBase.Type { info.objectClass }

    /// The primary key property, if the class has one.
    public var primaryKeyProperty: Property? { info.primaryKey.map { info.properties[$0].publicProperty } }

    /// Whether the class is an `EmbeddedObject`.
    public var isEmbedded: Bool { info.isEmbedded }

    /// The property named `propertyName`, or nil: `schema["age"]`.
    public subscript(propertyName: String) -> Property? {
        info.indexByName[propertyName].map { info.properties[$0].publicProperty }
    }

    /// Realm's form: `Person {\n\tname { ... }\n}`.
    public var description: String {
        let body = properties.map { $0.description.split(separator: "\n").map { "\t" + $0 }.joined(separator: "\n") }
        return "\(className) {\n\(body.joined(separator: "\n"))\n}"
    }

    /// Two schemas of the same class are equal.
    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool { lhs.info === rhs.info }

    /// Hashes the class.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(info)) }
}

/// The schema of a Realm: the object schemas of its model classes.
///
///     let realm = try Realm()
///     realm.schema["Person"]?.properties.count
public struct Schema: Sendable, CustomStringConvertible {
    /// The object schemas, sorted by class name.
    public let objectSchema: [ObjectSchema]

    /// The object schema of the class named `className`, or nil.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    /// Realm's form: `Schema {\n\tPerson {...}\n}`.
    public var description: String {
        "Schema {\n" + objectSchema.map { $0.description.split(separator: "\n").map { "\t" + $0 }.joined(separator: "\n") }
            .joined(separator: "\n") + "\n}"
    }
}

// MARK: - The shape of a property type

/// What a `@Persisted` type stores: the engine type, nullability, collection kind and link target.
/// Internal machinery of OpenRealm.
public struct _PropertyShape {
    var type: ce_type
    var nullable: Bool
    var collection: ce_collection_type = CE_COLLECTION_NONE
    var linkTarget: ObjectBase.Type?
    var isLinkingObjects = false

    init(type: ce_type, nullable: Bool, linkTarget: ObjectBase.Type?) {
        self.type = type
        self.nullable = nullable
        self.linkTarget = linkTarget
    }

    init<T: _CValueConvertible>(_ type: T.Type, collection: ce_collection_type = CE_COLLECTION_NONE) {
        self.init(type: T._ceType, nullable: T._ceNullable, linkTarget: T._ceLinkTarget)
        self.collection = collection
    }
}

// MARK: - Per-class information

/// One persisted property of a class: where its wrapper lives in an instance, and what it holds.
struct PropertyInfo: @unchecked Sendable {
    let name: String
    /// Byte offset of the `Persisted` wrapper within an instance.
    let offset: Int
    /// The position of the wrapper in the order instances initialise them (its token).
    let token: Int
    /// The property's value type, whose static requirements read and write the wrapper.
    let field: any _Persistable.Type
    let shape: _PropertyShape
    let isPrimaryKey: Bool
    let isIndexed: Bool
    let originProperty: String?

    /// A property with a column (not LinkingObjects).
    var isStored: Bool { !shape.isLinkingObjects }

    /// Whether adding an object writes this property after creating it (collections, links and
    /// mixed values: what may need the new object or other new objects).
    var needsAfterCreate: Bool {
        shape.collection != CE_COLLECTION_NONE || shape.type == CE_TYPE_LINK || shape.type == CE_TYPE_MIXED
    }

    var linkTargetName: String? { shape.linkTarget.map { ObjectSchemaInfo.className(of: $0) } }

    var publicProperty: Property {
        Property(
            name: name,
            type: shape.isLinkingObjects ? .linkingObjects : PropertyType(shape.type),
            isIndexed: isIndexed || isPrimaryKey,
            isOptional: shape.nullable && shape.type != CE_TYPE_MIXED,
            isArray: shape.collection == CE_COLLECTION_LIST,
            isSet: shape.collection == CE_COLLECTION_SET,
            isMap: shape.collection == CE_COLLECTION_DICTIONARY,
            isPrimaryKey: isPrimaryKey,
            objectClassName: linkTargetName,
            linkOriginPropertyName: originProperty)
    }

    /// Realm's name of the type for messages: `int`, `string?`, `array<Dog>`, `<Dog>`.
    var typeText: String { Self.typeText(type: shape.type, nullable: shape.nullable, collection: shape.collection, target: linkTargetName) }

    static func typeText(type: ce_type, nullable: Bool, collection: ce_collection_type, target: String?) -> String {
        var base = type == CE_TYPE_LINK ? "<\(target ?? "?")>" : (type == CE_TYPE_MIXED ? "mixed" : String(cString: ce_type_name(type)))
        if nullable && type != CE_TYPE_MIXED && type != CE_TYPE_LINK { base += "?" }
        switch collection {
        case CE_COLLECTION_LIST: return "array\(base.hasPrefix("<") ? base : "<\(base)>")"
        case CE_COLLECTION_SET: return "set\(base.hasPrefix("<") ? base : "<\(base)>")"
        case CE_COLLECTION_DICTIONARY: return "dictionary<string, \(base)>"
        default: return base
        }
    }
}

/// What OpenRealm knows about a model class, discovered once: its name and persisted properties.
final class ObjectSchemaInfo: @unchecked Sendable {
    let objectClass: ObjectBase.Type
    let className: String
    let isEmbedded: Bool
    /// Persisted properties, superclass first, in declaration order.
    let properties: [PropertyInfo]
    /// For each wrapper token, the index of its property.
    let propertyIndexByToken: [Int]
    let indexByName: [String: Int]
    let primaryKey: Int?

    private init(_ cls: ObjectBase.Type) {
        objectClass = cls
        className = ObjectSchemaInfo.className(of: cls)
        isEmbedded = cls is EmbeddedObject.Type

        // A probe instance: its wrappers tell their tokens, options and default values.
        resetPersistedTokens()
        let probe = cls.init()
        var found: [PropertyInfo] = []
        withExtendedLifetime(probe) {
            let base = UnsafeRawPointer(Unmanaged.passUnretained(probe).toOpaque())
            // _EachFieldOptions.classType (rawValue 1): walk the stored fields of a class,
            // superclasses included.
            _ = _forEachField(of: cls, options: _EachFieldOptions(rawValue: 1)) { namePointer, offset, type, _ in
                guard let wrapper = type as? any _PersistedWrapper.Type else { return true }
                let field = wrapper.valueType
                var name = String(cString: namePointer)
                if name.hasPrefix("_") { name.removeFirst() }
                let described = field._rlmDescribeField(at: base + offset)
                found.append(PropertyInfo(
                    name: name, offset: offset, token: described.token, field: field, shape: described.shape,
                    isPrimaryKey: described.primaryKey, isIndexed: described.indexed, originProperty: described.originProperty))
                return true
            }
        }
        properties = found
        var byToken = [Int](repeating: -1, count: found.count)
        for (index, property) in found.enumerated() {
            guard property.token >= 0, property.token < found.count, byToken[property.token] == -1 else {
                throwRealmException(
                    "The @Persisted properties of '\(className)' were initialized in an unexpected order: the default "
                        + "value of a @Persisted property must not create Realm objects.")
            }
            byToken[property.token] = index
        }
        propertyIndexByToken = byToken
        var names: [String: Int] = [:]
        for (index, property) in found.enumerated() { names[property.name] = index }
        indexByName = names
        let keys = found.indices.filter { found[$0].isPrimaryKey }
        if keys.count > 1 {
            throwRealmException("Properties '\(found[keys[0]].name)' and '\(found[keys[1]].name)' are both marked as the primary key of '\(className)'.")
        }
        primaryKey = keys.first
        if let key = primaryKey {
            let shape = found[key].shape
            let allowed: Set<UInt32> = [CE_TYPE_INT.rawValue, CE_TYPE_STRING.rawValue, CE_TYPE_OBJECT_ID.rawValue, CE_TYPE_UUID.rawValue]
            if shape.collection != CE_COLLECTION_NONE || !allowed.contains(shape.type.rawValue) {
                throwRealmException(
                    "Property '\(className).\(found[key].name)' of type '\(found[key].typeText)' cannot be made the primary key.")
            }
            if isEmbedded {
                throwRealmException("Embedded object type '\(className)' cannot have a primary key.")
            }
        }
    }

    /// Checks that each LinkingObjects property names a property of its class that links here.
    /// (Not in init: two classes may each list the objects linking from the other.)
    func validateLinkingObjects() {
        for property in properties where property.shape.isLinkingObjects {
            guard let origin = property.originProperty, let target = property.shape.linkTarget else { continue }
            let targetInfo = ObjectSchemaInfo.of(target)
            guard let originIndex = targetInfo.indexByName[origin],
                targetInfo.properties[originIndex].shape.linkTarget.map({ isSubclass(objectClass, of: $0) }) ?? false
            else {
                throwRealmException(
                    "Property '\(targetInfo.className).\(origin)' declared as origin of linking objects property '\(className).\(property.name)' does not exist or does not link to '\(className)'.")
            }
        }
    }

    private static let registry = Mutex<[ObjectIdentifier: ObjectSchemaInfo]>([:])

    /// The schema of `cls`, discovered on first use.
    static func of(_ cls: ObjectBase.Type) -> ObjectSchemaInfo {
        if let known = registry.withLock({ $0[ObjectIdentifier(cls)] }) { return known }
        let info = ObjectSchemaInfo(cls)
        return registry.withLock { registry in
            if let raced = registry[ObjectIdentifier(cls)] { return raced }
            registry[ObjectIdentifier(cls)] = info
            return info
        }
    }

    /// Every class discovered so far in the process.
    static var known: [ObjectSchemaInfo] { registry.withLock { Array($0.values) } }

    /// The name of a class in the file: `_realmObjectName()` or the class's name without module.
    static func className(of cls: ObjectBase.Type) -> String {
        if let name = cls._realmObjectName() { return name }
        var name = String(describing: cls)
        if let local = name.range(of: " #") { name = String(name[..<local.lowerBound]) }
        if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        return name
    }

    /// The classes this class links to (links, collections of links, linking objects' origins).
    var linkedClasses: [ObjectBase.Type] { properties.compactMap(\.shape.linkTarget) }

    var publicSchema: ObjectSchema { ObjectSchema(info: self) }
}

/// Whether `cls` is `base` or a subclass of it.
func isSubclass(_ cls: ObjectBase.Type, of base: ObjectBase.Type) -> Bool {
    var current: AnyClass? = cls
    while let c = current {
        if c == base { return true }
        current = _getSuperclass(c)
    }
    return false
}

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

    /// One stored property, for adding an object.
    struct CreationField {
        let offset: Int
        let field: any _Persistable.Type
        let column: _ManagedColumn
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
                offset: property.offset, field: property.field, column: columns[index],
                needsAfterCreate: property.needsAfterCreate, isCollection: property.shape.collection != CE_COLLECTION_NONE,
                kind: property.needsAfterCreate ? .other : CreationField.Kind(property.field))
        }
        let buffer = UnsafeMutableBufferPointer<CreationField>.allocate(capacity: fields.count)
        _ = buffer.initialize(from: fields)
        self.creationFields = buffer
        self.anyNeedsAfterCreate = fields.contains { $0.needsAfterCreate }
    }

    deinit {
        creationFields.deinitialize()
        creationFields.deallocate()
    }
}

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

    var typeText: String { PropertyInfo.typeText(type: type, nullable: nullable, collection: collection, target: targetName) }
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
                targetName: targetName))
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
            if property.isPrimaryKey { modelKey = property.name }
            guard let (_, stored) = table.properties[property.name] else {
                messages.append("Property '\(c).\(property.name)' has been added.")
                continue
            }
            let sameKind = stored.type == property.shape.type && stored.collection == property.shape.collection
                && (stored.type != CE_TYPE_LINK || stored.targetName == property.linkTargetName)
            if !sameKind {
                messages.append("Property '\(c).\(property.name)' has been changed from '\(stored.typeText)' to '\(property.typeText)'.")
            } else if stored.type != CE_TYPE_MIXED && stored.type != CE_TYPE_LINK && stored.nullable != property.shape.nullable {
                messages.append("Property '\(c).\(property.name)' has been made \(property.shape.nullable ? "optional" : "required").")
            }
        }
        let modelNames = Set(schema.properties.filter(\.isStored).map(\.name))
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
        property.name.withCString { cName in
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
