// Object.swift — ObjectBase, Object and EmbeddedObject: the model classes.

import CEngine
import Foundation

/// The base class of `Object` and `EmbeddedObject`: what every model object has, managed or not.
///
/// Subclass `Object` (or `EmbeddedObject`), not this class.
open class ObjectBase: CustomStringConvertible, Hashable {
    // These four are read by every property access of a managed object: their exclusivity is
    // not checked at run time (a runtime call per access, more than the C call; an object is
    // confined to its thread and nothing holds an access to them across a call).

    /// The Realm that manages the object; nil while unmanaged.
    @exclusivity(unchecked) final var _core: RealmCore?
    /// The object's table in that Realm; nil while unmanaged (the managed check of every access).
    @exclusivity(unchecked) @usableFromInline final var _table: TableInfo?
    /// The object's key in its table.
    @exclusivity(unchecked) final var _key: ce_object_key = -1
    /// The Realm's invalidation count when the object was bound: `invalidate()` ends every object.
    @exclusivity(unchecked) final var _epoch: UInt64 = 0
    /// Whether the object is bound to a frozen Realm: its collection properties are not cached
    /// in the object (threads read a frozen object at once). Read on the collection path only.
    @exclusivity(unchecked) @usableFromInline final var _isFrozenObject = false
    /// Set only on the unmanaged instances that read a key path to learn its property names
    /// (see `propertyPath(of:)`); read on the unmanaged path of an access, never the managed one.
    @usableFromInline final var _keyPathRecorder: KeyPathRecorder?

    /// Creates an unmanaged object with default values.
    ///
    ///     let person = Person()
    public required init() {
        // Every @Persisted wrapper of the instance has been initialised by now (subclass
        // properties are initialised before super.init): restart the token count.
        resetPersistedTokens()
    }

    /// The name of the class in the file, if it is not the class's own name. Override to map
    /// a class to a table of another name.
    ///
    ///     override class func _realmObjectName() -> String? { "Person" }
    open class func _realmObjectName() -> String? { nil }

    var _tableKey: ce_table_key { _table.unsafelyUnwrapped.tableKey }

    /// Stops for a write to the primary key of a managed object (Realm's message), after the
    /// checks every write has.
    @usableFromInline
    func _primaryKeyChanged() -> Never {
        _core?.checkWrite(self)
        throwRealmException("Primary key can't be changed after an object is inserted.")
    }

    /// The schema of the object's class.
    var _schemaInfo: ObjectSchemaInfo { _table?.schema ?? ObjectSchemaInfo.of(type(of: self)) }

    /// Whether `core` manages the object.
    func isManaged(by core: RealmCore) -> Bool { _core === core && _table != nil }

    /// Binds an object to a row: it is managed from now on. Inlined: `add` passes an unowned
    /// table, which a call would retain around it.
    @inline(__always)
    func bind(_ core: RealmCore, _ table: TableInfo, _ key: ce_object_key) {
        _core = core
        _table = table
        _key = key
        _epoch = core.epoch
        _isFrozenObject = core.frozen != nil
    }

    /// The Realm that manages the object, or nil if it is unmanaged.
    ///
    ///     let person = Person()
    ///     person.realm == nil                    // true
    ///     try realm.write { realm.add(person) }
    ///     person.realm == realm                  // true
    public var realm: Realm? { _core.map(Realm.init) }

    /// Whether the object can no longer be used: it was deleted, or its Realm was invalidated.
    /// Unmanaged objects are never invalidated.
    ///
    ///     try realm.write { realm.delete(person) }
    ///     person.isInvalidated    // true
    public var isInvalidated: Bool {
        guard let core = _core, let table = _table else { return false }
        return !core.objectExists(self, table)
    }

    /// The schema of the object's class.
    ///
    ///     person.objectSchema.className == "Person"
    public var objectSchema: ObjectSchema { _schemaInfo.publicSchema }

    /// Whether `object` is this object: the same instance, or the same object of the same Realm.
    ///
    ///     let a = realm.object(ofType: Person.self, forPrimaryKey: 1)!
    ///     let b = realm.object(ofType: Person.self, forPrimaryKey: 1)!
    ///     a.isSameObject(as: b)    // true (two accessors, one object)
    public func isSameObject(as object: ObjectBase?) -> Bool {
        guard let object else { return false }
        if object === self { return true }
        guard let core = _core, let table = _table, let otherTable = object._table else { return false }
        return object._core === core && table.tableKey == otherTable.tableKey && object._key == _key
    }

    /// Two objects are equal when they are the same object (see `isSameObject(as:)`).
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool { lhs.isSameObject(as: rhs) }

    /// Hashes the object's identity (its row once managed).
    public func hash(into hasher: inout Hasher) {
        if let table = _table {
            hasher.combine(table.tableKey)
            hasher.combine(_key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    /// The value of the property named `key`, boxed; nil for a nil value. Setting it writes the
    /// property (in a write transaction if the object is managed). An unknown name is a
    /// programmer error.
    ///
    ///     person["name"] = "Ada"
    ///     person["age"] as? Int
    public subscript(key: String) -> Any? {
        get {
            if let dynamic = self as? DynamicObject, dynamic.dynamic != nil { return dynamic.dynamicValue(key) }
            let info = _schemaInfo
            guard let index = info.indexByName[key] else {
                throwRealmException("Invalid property name '\(key)' for class '\(info.className)'.")
            }
            let value = _value(of: index)
            return unwrapOptional(value)
        }
        set {
            if let dynamic = self as? DynamicObject, dynamic.dynamic != nil {
                dynamic.setDynamicValue(newValue, key)
                return
            }
            let info = _schemaInfo
            guard let index = info.indexByName[key] else {
                throwRealmException("Invalid property name '\(key)' for class '\(info.className)'.")
            }
            _setValue(newValue as Any, of: index)
        }
    }

    /// The value of the property named `key` (key-value coding, as Realm objects have it from
    /// NSObject): the same as `self[key]`.
    ///
    ///     person.value(forKey: "name") as? String
    open func value(forKey key: String) -> Any? { self[key] }

    /// Sets the property named `key` (key-value coding): the same as `self[key] = value`.
    ///
    ///     person.setValue("Ada", forKey: "name")
    open func setValue(_ value: Any?, forKey key: String) { self[key] = value }

    /// The property at `index` of the schema, boxed.
    func _value(of index: Int) -> Any {
        let property = _schemaInfo.properties[index]
        if let table = _table {
            return property.field._rlmManagedValue(self, table.columns[index])
        }
        return withUnsafeMutableFieldPointer(property) { property.field._rlmUnmanagedValue(at: $0) }
    }

    /// Sets the property at `index` from a loosely typed value.
    func _setValue(_ value: Any, of index: Int) {
        let info = _schemaInfo
        let property = info.properties[index]
        let ok: Bool
        if let table = _table {
            if info.primaryKey == index {
                _core?.checkWrite(self)
                throwRealmException("Primary key can't be changed after an object is inserted.")
            }
            ok = property.field._rlmSetManaged(self, table.columns[index], value)
        } else {
            ok = withUnsafeMutableFieldPointer(property) { property.field._rlmSetUnmanaged(at: $0, value) }
        }
        if !ok {
            throwRealmException(
                "Invalid value '\(value)' of type '\(type(of: value))' for '\(property.typeText)' property '\(info.className).\(property.name)'.")
        }
    }

    /// Runs `body` with a pointer to the wrapper of `property` in this instance.
    func withUnsafeMutableFieldPointer<R>(_ property: PropertyInfo, _ body: (UnsafeMutableRawPointer) -> R) -> R {
        withExtendedLifetime(self) {
            body(Unmanaged.passUnretained(self).toOpaque() + property.offset)
        }
    }

    /// A readable form of the object, as Realm prints it:
    ///
    ///     Person {
    ///         name = Ada;
    ///         age = 36;
    ///     }
    public var description: String { _describe(depth: DescriptionNesting.depth) }

    func _describe(depth: Int) -> String {
        // Objects reach collections that reach objects again (a dog's owners own the dog): the
        // depth travels through collections' descriptions (DescriptionNesting) and ends here.
        if depth > DescriptionNesting.maximumDepth { return "<Maximum depth exceeded>" }
        if let dynamic = self as? DynamicObject, let binding = dynamic.dynamic {
            let names = binding.context.table(binding.table).properties.keys.sorted()
            let lines = names.map { "\t\($0) = \(dynamic.dynamicValue($0).map { "\($0)" } ?? "(null)");" }
            return "\(dynamic.objectTypeName) {\n" + lines.joined(separator: "\n") + "\n}"
        }
        let info = _schemaInfo
        if _table != nil, isInvalidated { return "[invalid object]" }
        let indent = String(repeating: "\t", count: depth + 1)
        var lines = ["\(info.className) {"]
        for (index, property) in info.properties.enumerated() {
            let value = _value(of: index)
            let text: String
            if let object = unwrapOptional(value) as? ObjectBase {
                text = depth < 2 ? object._describe(depth: depth + 1) : "<\(object._schemaInfo.className)>"
            } else if let described = unwrapOptional(value) {
                text = DescriptionNesting.$depth.withValue(depth + 1) { "\(described)" }
            } else {
                text = "(null)"
            }
            lines.append("\(indent)\(property.name) = \(text);")
        }
        lines.append(String(repeating: "\t", count: depth) + "}")
        return lines.joined(separator: "\n")
    }

    /// Sets the properties of an unmanaged object from a dictionary (by name), an array (in
    /// property order) or another object (by name).
    func _assign(from value: Any) {
        let info = _schemaInfo
        switch value {
        case let dictionary as [String: Any]:
            for (name, propertyValue) in dictionary {
                guard let index = info.indexByName[name] else {
                    throwRealmException("Invalid property name '\(name)' for class '\(info.className)'.")
                }
                _setValue(propertyValue, of: index)
            }
        case let array as [Any]:
            let stored = info.properties.indices.filter { info.properties[$0].isStored }
            if array.count != stored.count {
                throwRealmException("Invalid array input: number of values (\(array.count)) does not match number of properties (\(stored.count)) of '\(info.className)'.")
            }
            for (index, propertyValue) in zip(stored, array) { _setValue(propertyValue, of: index) }
        case let object as ObjectBase:
            let source = object._schemaInfo
            for (index, property) in info.properties.enumerated() where property.isStored {
                guard let sourceIndex = source.indexByName[property.name] else { continue }
                _setValue(object._value(of: sourceIndex), of: index)
            }
        default:
            throwRealmException("Invalid value '\(value)' to initialize object of type '\(info.className)': an object, a dictionary or an array is required.")
        }
    }
}

/// A model class whose objects are stored in a Realm: subclass it and declare properties with
/// `@Persisted`.
///
///     class Person: Object {
///         @Persisted(primaryKey: true) var id: Int
///         @Persisted var name: String
///         @Persisted var dogs: List<Dog>
///     }
///
///     let ada = Person(value: ["id": 1, "name": "Ada"])
///     try realm.write { realm.add(ada) }
open class Object: ObjectBase, RealmCollectionValue {
    /// Creates an unmanaged object with default values.
    ///
    ///     let person = Person()
    public required init() {
        super.init()
    }

    /// Creates an unmanaged object from a dictionary of values by property name, an array of
    /// values in property order, or another object. Linked objects may be given as dictionaries or
    /// arrays too.
    ///
    ///     let person = Person(value: ["name": "Ada", "age": 36, "dogs": [["name": "Rex"]]])
    ///     let copy = Person(value: person)
    public convenience init(value: Any) {
        self.init()
        _assign(from: value)
    }

    /// The class name in the file: `Person.className() == "Person"`.
    open class func className() -> String { ObjectSchemaInfo.className(of: self) }

    public static var _ceType: ce_type { CE_TYPE_LINK }
    public static var _ceLinkTarget: ObjectBase.Type? { self }
    public static func _ceDefault() -> Self { Self() }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        guard value.type == CE_TYPE_LINK, let realm else {
            throwRealmException("Expected a link in a Realm, read \(value.debugText).")
        }
        return realm.core.object(ofClass: self, link: value.link) as! Self
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        guard let realm else { throwRealmException("A link needs a Realm.") }
        if !isManaged(by: realm.core) { realm.core.addForLink(self) }
        return .link(_tableKey, _key)
    }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let object = value as? Self { return object }
        if value is [String: Any] || value is [Any] {
            let object = Self()
            object._assign(from: value)
            return object
        }
        return nil
    }
}

/// A model class whose objects live inside one parent object (a link, list or map property of
/// another class) and are deleted with it. It has no primary key and cannot be added to a Realm
/// by itself.
///
///     class Address: EmbeddedObject {
///         @Persisted var street: String
///         @Persisted var city: String
///     }
///     class Person: Object {
///         @Persisted var address: Address?
///     }
///     try realm.write { person.address = Address(value: ["street": "1 Main St", "city": "Oslo"]) }
open class EmbeddedObject: ObjectBase, RealmCollectionValue {
    /// Creates an unmanaged embedded object with default values.
    ///
    ///     let address = Address()
    public required init() {
        super.init()
    }

    /// Creates an unmanaged embedded object from a dictionary, an array or another object, as
    /// `Object.init(value:)`.
    ///
    ///     let address = Address(value: ["street": "1 Main St", "city": "Oslo"])
    public convenience init(value: Any) {
        self.init()
        _assign(from: value)
    }

    public static var _ceType: ce_type { CE_TYPE_LINK }
    public static var _ceLinkTarget: ObjectBase.Type? { self }
    public static func _ceDefault() -> Self { Self() }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        guard value.type == CE_TYPE_LINK, let realm else {
            throwRealmException("Expected a link in a Realm, read \(value.debugText).")
        }
        return realm.core.object(ofClass: self, link: value.link) as! Self
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        guard let realm, isManaged(by: realm.core) else {
            throwRealmException("Cannot add an embedded object to a Realm directly: assign it to a property of an object instead.")
        }
        return .link(_tableKey, _key)
    }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let object = value as? Self { return object }
        if value is [String: Any] || value is [Any] {
            let object = Self()
            object._assign(from: value)
            return object
        }
        return nil
    }
}

/// Gives objects a stable `id` for `Identifiable` (SwiftUI lists), as Realm's
/// `ObjectKeyIdentifiable`: the object's key in its table once managed, a per-instance value
/// while unmanaged.
///
///     class Dog: Object, ObjectKeyIdentifiable {
///         @Persisted var name: String
///     }
///     ForEach(dogs) { dog in Text(dog.name) }
public protocol ObjectKeyIdentifiable: Identifiable {}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// The object's key once managed (stable for the object's life), else the instance's address.
    public var id: UInt64 {
        if _table != nil { return UInt64(bitPattern: _key) }
        return UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
    }
}

/// How deep the description being built is nested. A collection's description describes its
/// objects one level deeper than itself, an object's its collections' one level deeper again,
/// so that a cycle of links (a dog's owners own the dog) ends at Realm's maximum depth.
enum DescriptionNesting {
    /// Realm prints `<Maximum depth exceeded>` past five levels.
    static let maximumDepth = 5
    @TaskLocal static var depth = 0
}

/// A collection's description in Realm's form, `header (\n\t[0] element\n)`: its objects one
/// level deeper than the collection, at most `limit` elements.
func describeCollection<S: Sequence>(_ header: String, _ elements: S, count: Int, limit: Int = .max) -> String {
    var lines = [header + " ("]
    for (index, element) in elements.enumerated() {
        if index == limit {
            lines.append("\t... \(count - limit) objects skipped.")
            break
        }
        let text = (element as Any as? ObjectBase)?._describe(depth: DescriptionNesting.depth + 1) ?? "\(element)"
        lines.append("\t[\(index)] \(text)")
    }
    lines.append(")")
    return lines.joined(separator: "\n")
}
