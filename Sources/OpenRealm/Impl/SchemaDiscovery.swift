// SchemaDiscovery.swift — what a model class looks like, discovered once per class by reflection
// over its @Persisted wrappers (PropertyInfo, ObjectSchemaInfo).

@_spi(Reflection) import Swift
import CEngine
import Synchronization

// MARK: - Per-class information

/// One persisted property of a class: where its wrapper lives in an instance, and what it holds.
struct PropertyInfo: @unchecked Sendable {
    /// The Swift name: what queries, key-value coding and the schema use.
    let name: String
    /// The name in the file (`propertiesMapping()`, else `name`).
    let columnName: String
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

    var linkTargetName: String? { shape.linkTargetName ?? shape.linkTarget.map { ObjectSchemaInfo.className(of: $0) } }

    var publicProperty: Property {
        Property(
            name: name,
            columnName: columnName,
            type: shape.isLinkingObjects ? .linkingObjects : PropertyType(shape.type),
            isIndexed: isIndexed || isPrimaryKey,
            isOptional: shape.nullable && shape.type != CE_TYPE_MIXED,
            // Realm's linking objects are arrays (realm-core's PropertyType::Array).
            isArray: shape.collection == CE_COLLECTION_LIST || shape.isLinkingObjects,
            isSet: shape.collection == CE_COLLECTION_SET,
            isMap: shape.collection == CE_COLLECTION_DICTIONARY,
            isPrimaryKey: isPrimaryKey,
            objectClassName: linkTargetName,
            linkOriginPropertyName: originProperty)
    }

    /// Realm's name of the type for messages: `int`, `string?`, `array<Dog>`, `<Dog>`.
    var typeText: String { Self.typeText(type: shape.type, nullable: shape.nullable, collection: shape.collection, target: linkTargetName) }

    /// The type as Realm Swift's "Invalid value" messages name it (see `valueTypeText`).
    var valueTypeText: String {
        Self.valueTypeText(type: shape.type, nullable: shape.nullable, collection: shape.collection, target: linkTargetName)
    }

    /// The type as Realm Swift names it between "for " and " property" in its "Invalid value"
    /// messages (RLMThrowTypeError), quotes included: the linked class or Realm's name of the type
    /// (`data`, `date`, `object id`...), `?` when optional, and the kind of collection after the
    /// quotes: `'int'`, `'Dog?'`, `'string?' array`, `'Dog' set`, `'date' dictionary`.
    static func valueTypeText(type: ce_type, nullable: Bool, collection: ce_collection_type, target: String?) -> String {
        let name = switch type {
        case CE_TYPE_LINK: target ?? "object"
        case CE_TYPE_BINARY: "data"
        case CE_TYPE_TIMESTAMP: "date"
        case CE_TYPE_OBJECT_ID: "object id"
        default: String(cString: ce_type_name(type))
        }
        // A to-one link is always optional; a mixed value never is.
        let linkToOne = type == CE_TYPE_LINK && collection == CE_COLLECTION_NONE
        let optional = (nullable || linkToOne) && type != CE_TYPE_MIXED ? "?" : ""
        let kind = switch collection {
        case CE_COLLECTION_LIST: " array"
        case CE_COLLECTION_SET: " set"
        case CE_COLLECTION_DICTIONARY: " dictionary"
        default: ""
        }
        return "'\(name)\(optional)'\(kind)"
    }

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

    /// The schema of a table read from a file rather than discovered from a class (the
    /// `DynamicObject`s of `Realm.dynamicObjects(_:)`: DynamicSchema.swift). Each property's
    /// token is its index.
    init(objectClass: ObjectBase.Type, className: String, isEmbedded: Bool, properties: [PropertyInfo]) {
        self.objectClass = objectClass
        self.className = className
        self.isEmbedded = isEmbedded
        self.properties = properties
        propertyIndexByToken = Array(properties.indices)
        indexByName = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        primaryKey = properties.firstIndex(where: \.isPrimaryKey)
    }

    private init(_ cls: ObjectBase.Type) {
        objectClass = cls
        className = ObjectSchemaInfo.className(of: cls)
        isEmbedded = cls is EmbeddedObject.Type

        // A probe instance: its wrappers tell their tokens, options and default values.
        resetPersistedTokens()
        let mapping = cls.propertiesMapping()
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
                    name: name, columnName: mapping[name] ?? name, offset: offset, token: described.token, field: field, shape: described.shape,
                    isPrimaryKey: described.primaryKey, isIndexed: described.indexed, originProperty: described.originProperty))
                return true
            }
        }
        found = ObjectSchemaInfo.applyingLegacyCustomization(of: cls, className: className, to: found)
        ObjectSchemaInfo.checkLinkShapes(found, className: className)
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

    /// Stops with Realm's message for a link property Realm refuses when it reads the class (its
    /// `_rlmPopulateProperty` checks, and realm-core's for a set of embedded objects): a
    /// LinkingObjects property without an origin, a list or set of optional objects, a map of
    /// non-optional objects, a set of embedded objects, an optional AnyRealmValue (also as a
    /// collection's element).
    private static func checkLinkShapes(_ properties: [PropertyInfo], className: String) {
        for property in properties {
            if let type = optionalMixedTypes.first(where: { $0.0 == ObjectIdentifier(property.field) })?.1 {
                throwRealmException("\(type) property '\(property.name)' must not be marked as optional: nil values are represented as AnyRealmValue.none")
            }
            let shape = property.shape
            guard shape.type == CE_TYPE_LINK, let target = property.linkTargetName else { continue }
            let name = property.name
            if shape.isLinkingObjects {
                if property.originProperty == nil {
                    throwRealmException("LinkingObjects<\(target)> property '\(name)' must set the origin property name with @Persisted(originProperty: \"name\").")
                }
                continue
            }
            switch shape.collection {
            case CE_COLLECTION_LIST where shape.nullable:
                throwRealmException("List<\(target)> property '\(name)' must not be marked as optional.")
            case CE_COLLECTION_SET where shape.nullable:
                throwRealmException("MutableSet<\(target)> property '\(name)' must not be marked as optional.")
            case CE_COLLECTION_SET where shape.linkTarget is EmbeddedObject.Type:
                throwRealmException("Set property '\(className).\(name)' cannot contain embedded object type '\(target)'. "
                    + "Set semantics are not applicable to embedded objects.")
            case CE_COLLECTION_DICTIONARY where !shape.nullable:
                throwRealmException("Map<String, \(target)> property '\(name)' must be marked as optional.")
            default:
                break
            }
        }
    }

    /// The optional AnyRealmValue property types Realm refuses, as its message names them.
    private static let optionalMixedTypes: [(ObjectIdentifier, String)] = [
        (ObjectIdentifier(AnyRealmValue?.self), "AnyRealmValue"),
        (ObjectIdentifier(List<AnyRealmValue?>.self), "List<AnyRealmValue>"),
        (ObjectIdentifier(MutableSet<AnyRealmValue?>.self), "MutableSet<AnyRealmValue>"),
        (ObjectIdentifier(Map<String, AnyRealmValue?>.self), "Map<String, AnyRealmValue>"),
    ]

    /// `properties` with the primary key named by `Object.primaryKey()` and the indexes named by
    /// `indexedProperties()`, when a class overrides them (Realm reads both for every class,
    /// `@Persisted` ones included): an unknown primary key, or one that differs from a
    /// `@Persisted(primaryKey: true)` property, stops with Realm's message.
    private static func applyingLegacyCustomization(of cls: ObjectBase.Type, className: String,
                                                    to properties: [PropertyInfo]) -> [PropertyInfo] {
        let primaryKey = (cls as? Object.Type)?.primaryKey()
        let indexed = Set((cls as? Object.Type)?.indexedProperties() ?? [])
        guard primaryKey != nil || !indexed.isEmpty else { return properties }
        if let primaryKey {
            guard properties.contains(where: { $0.name == primaryKey }) else {
                throwRealmException("Primary key property '\(primaryKey)' does not exist on object '\(className)'")
            }
            if let marked = properties.first(where: { $0.isPrimaryKey && $0.name != primaryKey }) {
                throwRealmException("Properties '\(marked.name)' and '\(primaryKey)' are both marked as the primary key of '\(className)'.")
            }
        }
        return properties.map { property in
            let isKey = property.isPrimaryKey || property.name == primaryKey
            return PropertyInfo(name: property.name, columnName: property.columnName, offset: property.offset, token: property.token, field: property.field,
                                shape: property.shape, isPrimaryKey: isKey,
                                isIndexed: property.isIndexed || indexed.contains(property.name), originProperty: property.originProperty)
        }
    }

    /// Checks that each LinkingObjects property names a property of its class that links here.
    /// (Not in init: two classes may each list the objects linking from the other.)
    func validateLinkingObjects() {
        for property in properties where property.shape.isLinkingObjects {
            guard let origin = property.originProperty, let target = property.shape.linkTarget else { continue }
            let targetInfo = ObjectSchemaInfo.of(target)
            // realm-core's three messages (ObjectSchema::validate).
            let prefix = "Property '\(targetInfo.className).\(origin)' declared as origin of linking objects property '\(className).\(property.name)'"
            guard let originIndex = targetInfo.indexByName[origin] else { throwRealmException("\(prefix) does not exist") }
            guard let originTarget = targetInfo.properties[originIndex].shape.linkTarget else {
                throwRealmException("\(prefix) is not a link")
            }
            // realm-core compares class names: two classes may share one (`_realmObjectName()`).
            if !isSubclass(objectClass, of: originTarget) && ObjectSchemaInfo.className(of: originTarget) != className {
                throwRealmException("\(prefix) links to type '\(ObjectSchemaInfo.className(of: originTarget))'")
            }
        }
    }

    private static let registry = Mutex<[ObjectIdentifier: ObjectSchemaInfo]>([:])

    /// The schema of `cls`, discovered on first use.
    static func of(_ cls: ObjectBase.Type) -> ObjectSchemaInfo {
        if let known = registry.withLock({ $0[ObjectIdentifier(cls)] }) { return known }
        let info = withSavedPersistedTokens { ObjectSchemaInfo(cls) }
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
