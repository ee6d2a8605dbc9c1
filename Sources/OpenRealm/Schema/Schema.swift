// Schema.swift — Schema: the object schemas of a Realm.

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
