// Property.swift — Property: one property of an ObjectSchema.

/// One property of a model class, as Realm describes it.
///
///     let age = Person().objectSchema["age"]!
///     age.type == .int; age.isOptional == false; age.isIndexed == false
public struct Property: Sendable, Hashable, CustomStringConvertible {
    /// The property's name.
    public let name: String
    /// The property's name in the file: the persisted name `propertiesMapping()` gives it, else
    /// the same as `name`.
    public let columnName: String
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


    /// For links and linking objects, the lines Realm's description gives their target and origin
    /// (`(null)` for none).
    private var linkText: String {
        guard type == .object || type == .linkingObjects else { return "" }
        return "\tobjectClassName = \(objectClassName ?? "(null)");\n\tlinkOriginPropertyName = \(linkOriginPropertyName ?? "(null)");\n"
    }

    /// Realm's form: `name { type = int; columnName = name; indexed = NO; ... }`; links and
    /// linking objects also give `objectClassName` and `linkOriginPropertyName`.
    public var description: String {
        """
        \(name) {
        \ttype = \(type);
        \(linkText)\tcolumnName = \(columnName);
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
