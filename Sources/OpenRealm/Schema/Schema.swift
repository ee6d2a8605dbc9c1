// Schema.swift — Schema: the object schemas of a Realm.

/// The schema of a Realm: the object schemas of its model classes.
///
///     let realm = try Realm()
///     realm.schema["Person"]?.properties.count
public struct Schema: Sendable, CustomStringConvertible, Equatable {
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

    /// Whether two schemas have the same object schemas (in any order), as Realm compares them.
    ///
    ///     realm.schema == otherRealm.schema
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.objectSchema.count == rhs.objectSchema.count
            && lhs.objectSchema.allSatisfy { schema in rhs[schema.className] == schema }
    }
}
