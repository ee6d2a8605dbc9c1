// PropertyType.swift — PropertyType: the type of a property, as Realm names it.

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
