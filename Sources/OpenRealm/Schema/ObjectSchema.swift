// ObjectSchema.swift — ObjectSchema: the properties of one model class.

/// The schema of one model class: its name, properties and primary key.
///
///     let schema = Person().objectSchema
///     schema.className == "Person"
///     schema.primaryKeyProperty?.name == "id"
///     schema["name"]?.type == .string
public struct ObjectSchema: Sendable, Hashable, CustomStringConvertible {
    /// The persisted properties, superclass properties first, in declaration order.
    public let properties: [Property]

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

    init(className: String, properties: [Property], isEmbedded: Bool, objectClass: ObjectBase.Type) {
        self.className = className
        self.properties = properties
        self.isEmbedded = isEmbedded
        self.objectClass = objectClass
    }

    /// The property named `propertyName`, or nil: `schema["age"]`.
    public subscript(propertyName: String) -> Property? {
        properties.first { $0.name == propertyName }
    }

    /// Realm's form: `Person {\n\tname { ... }\n}`.
    public var description: String {
        let body = properties.map { $0.description.split(separator: "\n").map { "\t" + $0 }.joined(separator: "\n") }
        return "\(className) {\n\(body.joined(separator: "\n"))\n}"
    }

    /// Whether two schemas describe the same class: the same name, kind and properties (in any
    /// order), as Realm compares them.
    ///
    ///     Dog().objectSchema == realm.schema["Dog"]   // true
    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.className == rhs.className && lhs.isEmbedded == rhs.isEmbedded && lhs.properties.count == rhs.properties.count
            && lhs.properties.allSatisfy { property in rhs[property.name] == property }
    }

    /// Hashes the class name.
    public func hash(into hasher: inout Hasher) { hasher.combine(className) }
}
