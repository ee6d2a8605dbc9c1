// ObjectSchema.swift — ObjectSchema: the properties of one model class.

/// The schema of one model class: its name, properties and primary key.
///
///     let schema = Person().objectSchema
///     schema.className == "Person"
///     schema.primaryKeyProperty?.name == "id"
///     schema["name"]?.type == .string
public struct ObjectSchema: Sendable, Hashable, CustomStringConvertible {
    /// The persisted properties, superclass properties first, in declaration order. As in
    /// Realm, `LinkingObjects` properties are computed, not persisted: they are not listed
    /// here, but `schema["owners"]` finds them.
    public let properties: [Property]

    /// The `LinkingObjects` properties (Realm's computed properties), in declaration order.
    let computedProperties: [Property]

    /// The name of the class (without its module).
    public let className: String

    /// The Swift class (`DynamicObject` for the old schema of a migration, which has no class).
    public let objectClass: ObjectBase.Type

    /// The primary key property, if the class has one.
    public var primaryKeyProperty: Property? { properties.first(where: \.isPrimaryKey) }

    /// Whether the class is an `EmbeddedObject`.
    public let isEmbedded: Bool

    init(info: ObjectSchemaInfo) {
        self.init(className: info.className, properties: info.properties.map(\.publicProperty),
                  isEmbedded: info.isEmbedded, objectClass: info.objectClass)
    }

    /// `properties` may hold linking objects properties: they become computed properties.
    init(className: String, properties: [Property], isEmbedded: Bool, objectClass: ObjectBase.Type) {
        self.className = className
        self.properties = properties.filter { $0.type != .linkingObjects }
        self.computedProperties = properties.filter { $0.type == .linkingObjects }
        self.isEmbedded = isEmbedded
        self.objectClass = objectClass
    }

    /// The property named `propertyName` (persisted or linking objects), or nil: `schema["age"]`.
    public subscript(propertyName: String) -> Property? {
        properties.first { $0.name == propertyName } ?? computedProperties.first { $0.name == propertyName }
    }

    /// Realm's form: `Person {\n\tname {\n\t\ttype = string;\n ... \t}\n}`, the persisted
    /// properties, then the linking objects; `Address (embedded) {` for an embedded class.
    public var description: String {
        let body = (properties + computedProperties).map {
            "\t" + $0.description.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n\t") + "\n"
        }
        return "\(className) \(isEmbedded ? "(embedded) " : ""){\n\(body.joined())}"
    }

    /// Whether two schemas describe the same class: the same name, kind and properties (in any
    /// order). Realm compares only the properties, in order (README, "Differences").
    ///
    ///     Dog().objectSchema == realm.schema["Dog"]   // true
    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        let left = lhs.properties + lhs.computedProperties, right = rhs.properties + rhs.computedProperties
        return lhs.className == rhs.className && lhs.isEmbedded == rhs.isEmbedded && left.count == right.count
            && left.allSatisfy { property in rhs[property.name] == property }
    }

    /// Hashes the class name.
    public func hash(into hasher: inout Hasher) { hasher.combine(className) }
}
