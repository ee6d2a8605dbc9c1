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

    /// Realm's form: `Schema {\n\tPerson {...}\n}`, the classes sorted by name.
    public var description: String {
        let body = objectSchema.sorted { $0.className < $1.className }
            .map { "\t" + $0.description.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n\t") + "\n" }
        return "Schema {\n\(body.joined())}"
    }

    /// Whether two schemas have the same object schemas (in any order), as Realm compares them.
    ///
    ///     realm.schema == otherRealm.schema
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.objectSchema.count == rhs.objectSchema.count
            && lhs.objectSchema.allSatisfy { schema in rhs[schema.className] == schema }
    }
}
