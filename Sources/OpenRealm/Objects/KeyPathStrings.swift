// KeyPathStrings.swift — _name(for:): the property path of a Swift key path of a model or a
// projection, public as in Realm Swift.

/// The property path a key path of a model class reaches, its names joined by dots: through
/// links and embedded objects, and through an element of a `List`, `MutableSet`, `Map` or
/// `LinkingObjects`. Names are the Swift names (not `propertiesMapping()`'s persisted names);
/// a key path that reads no `@Persisted` property gives "".
///
///     _name(for: \Person.dogs[0].name)         // "dogs.name"
///     _name(for: \Person.address?.city)        // "address.city"
///     ObjectBase._name(for: \Person.name)      // "name"
public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
    joinedPath(recordedPropertyNames(of: keyPath))
}

/// The property path of the object a key path of a projection reaches (the key path its
/// `@Projected` property projects).
///
///     _name(for: \PersonProjection.firstDogName)   // "dogs.name"
public func _name<O: ObjectBase, T>(for keyPath: PartialKeyPath<T>) -> String where T: Projection<O> {
    joinedPath(recordedPropertyNames(O.self) { _ = T(projecting: $0 as! O)[keyPath: keyPath] })
}

/// The names joined by dots; "" when the reads form no path.
private func joinedPath(_ recorded: (names: [String], isPath: Bool)) -> String {
    recorded.isPath ? recorded.names.joined(separator: ".") : ""
}

extension ObjectBase {
    /// The property path a key path of a model class reaches: `_name(for:)`, spelled as Realm's
    /// documentation spells it.
    ///
    ///     ObjectBase._name(for: \Person.dogs[0].name)   // "dogs.name"
    public static func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
        joinedPath(recordedPropertyNames(of: keyPath))
    }

    /// `_name(for:)`, so that the unqualified call reads the same inside a model class's
    /// instance methods (where the static method would otherwise hide the module function).
    public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
        Self._name(for: keyPath)
    }
}
