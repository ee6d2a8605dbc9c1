// ObjectSchema.swift — ObjectSchema: the properties of one model class.

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
