// Projected.swift — @Projected: one property of a Projection, read and written through a key
// path of its object, as in Realm Swift.

import Foundation

/// What a `@Projected` wrapper is to the projection's description.
protocol _AnyProjected {
    /// The key path of the object the property reads.
    var _keyPath: AnyKeyPath { get }
    /// The names of the persisted properties that key path reads (none: it reads none).
    func _recordedNames() -> [String]
}

/// A property of a `Projection`: the value at a key path of its object (Realm's `@Projected`).
/// Writable when the key path is (in a write transaction for a managed object).
///
///     class PersonProjection: Projection<Person> {
///         @Projected(\Person.name) var name
///         @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
///     }
@propertyWrapper
public struct Projected<T: ObjectBase, Value>: _AnyProjected {
    let projectedKeyPath: KeyPath<T, Value>

    /// A property projecting `projectedKeyPath` of the object.
    ///
    ///     @Projected(\Person.dog?.name) var dogName
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        self.projectedKeyPath = projectedKeyPath
    }

    /// Not used: a projected property is read through its projection's object.
    @available(*, unavailable, message: "@Projected can only be used in a Projection")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// The value of the projected key path of the projection's object; setting writes it there
    /// (a key path that cannot be written stops with a message).
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance observed: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Projected<T, Value>>
    ) -> Value {
        get {
            observed.rootObject[keyPath: observed[keyPath: storageKeyPath].projectedKeyPath]
        }
        set {
            guard let writable = observed[keyPath: storageKeyPath].projectedKeyPath as? ReferenceWritableKeyPath<T, Value> else {
                throwRealmException("Cannot set a @Projected property of \(EnclosingSelf.self): its key path cannot be written.")
            }
            observed.rootObject[keyPath: writable] = newValue
        }
    }

    var _keyPath: AnyKeyPath { projectedKeyPath }

    func _recordedNames() -> [String] { recordedPropertyNames(of: projectedKeyPath as PartialKeyPath<T>).names }
}
