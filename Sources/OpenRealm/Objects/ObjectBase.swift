// ObjectBase.swift — ObjectBase: what every model object has, managed or not (the base of
// Object and EmbeddedObject); how objects describe themselves; freezing an object.

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
    @exclusivity(unchecked) final var _key: ObjectKey = -1
    /// The Realm's invalidation count when the object was bound: `invalidate()` ends every object.
    @exclusivity(unchecked) final var _epoch: UInt64 = 0
    /// Whether the object is bound to a frozen Realm: its collection properties are not cached
    /// in the object (threads read a frozen object at once). Read on the collection path only.
    @exclusivity(unchecked) @usableFromInline final var _isFrozenObject = false
    /// Whether this accessor was passed to `Realm.delete`: as in Realm, its `realm` is nil from
    /// then on (other accessors of the deleted object keep theirs).
    final var _deletedThroughSelf = false
    /// Set only on the unmanaged instances that read a key path to learn its property names
    /// (see `propertyPath(of:)`); read on the unmanaged path of an access, never the managed one.
    @usableFromInline final var _keyPathRecorder: KeyPathRecorder?

    /// Creates an unmanaged object with default values.
    ///
    ///     let person = Person()
    public required init() {
        // Every @Persisted wrapper of the instance has been initialised by now (subclass
        // properties are initialised before super.init): restart the token count.
        objectInitialized(self)
    }

    /// The name of the class in the file, if it is not the class's own name. Override to map
    /// a class to a table of another name.
    ///
    ///     override class func _realmObjectName() -> String? { "Person" }
    open class func _realmObjectName() -> String? { nil }

    /// The class name in the file, as Realm's `className()` of every model class (`Object` and
    /// `EmbeddedObject` subclasses alike): the name `_realmObjectName()` gives, or the class's
    /// own name.
    ///
    ///     Person.className()     // "Person"
    ///     Address.className()    // "Address" (an EmbeddedObject)
    ///     realm.configuration.objectTypes!.map { $0.className() }
    open class func className() -> String { ObjectSchemaInfo.className(of: self) }

    /// Whether the class is left out of the default schema (the schema of a Realm whose
    /// configuration has no `objectTypes`). A class listed in `objectTypes` is used all the same.
    ///
    ///     override class func _realmIgnoreClass() -> Bool { true }
    open class func _realmIgnoreClass() -> Bool { false }

    /// Whether the class is in the default schema (the schema of a Realm whose configuration has
    /// no `objectTypes`); true unless overridden. Override it to return false for a class no
    /// Realm should manage unless its configuration lists it in `objectTypes` (a base class
    /// of models, for instance).
    ///
    ///     class Versioned: Object {
    ///         @Persisted var updated = Date()
    ///         override class func shouldIncludeInDefaultSchema() -> Bool { self != Versioned.self }
    ///     }
    open class func shouldIncludeInDefaultSchema() -> Bool { true }

    /// Override to give properties another name in the file than their Swift name (Swift name
    /// to persisted name); properties left out keep their Swift name. Everything else (queries,
    /// sorting, key-value coding, observation, `objectSchema`) uses the Swift name; the schema's
    /// `Property.columnName` is the persisted one.
    ///
    ///     class Person: Object {
    ///         @Persisted var firstName: String
    ///         override class func propertiesMapping() -> [String: String] { ["firstName": "first_name"] }
    ///     }
    open class func propertiesMapping() -> [String: String] { [:] }

    var _tableKey: TableKey { _table.unsafelyUnwrapped.tableKey }

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
    func bind(_ core: RealmCore, _ table: TableInfo, _ key: ObjectKey) {
        _core = core
        _table = table
        _key = key
        _epoch = core.epoch
        _isFrozenObject = core.frozen != nil
    }

    /// The Realm that manages the object, or nil if it is unmanaged. As in Realm, an object
    /// passed to `Realm.delete` has none from then on (it stays invalidated).
    ///
    ///     let person = Person()
    ///     person.realm == nil                    // true
    ///     try realm.write { realm.add(person) }
    ///     person.realm == realm                  // true
    ///     try realm.write { realm.delete(person) }
    ///     person.realm == nil                    // true; person.isInvalidated too
    public var realm: Realm? { _deletedThroughSelf ? nil : _core.map(Realm.init) }

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
    public var objectSchema: ObjectSchema {
        // A migration's object: its class in the migration's old or new schema.
        if let dynamic = self as? DynamicObject, dynamic.proxied == nil, let schema = dynamic.bindingSchema { return schema }
        return _unproxied._schemaInfo.publicSchema
    }

    /// The object a DynamicObject stands for (`DynamicObject.proxied`), or this one.
    var _unproxied: ObjectBase { (self as? DynamicObject)?.proxied ?? self }

    /// Whether `object` is this object: the same instance, or the same object of the same Realm,
    /// neither deleted nor invalidated (as Realm's `isSameObject(as:)`).
    ///
    ///     let a = realm.object(ofType: Person.self, forPrimaryKey: 1)!
    ///     let b = realm.object(ofType: Person.self, forPrimaryKey: 1)!
    ///     a.isSameObject(as: b)    // true (two accessors, one object)
    public func isSameObject(as object: ObjectBase?) -> Bool {
        guard let object else { return false }
        if object._unproxied === _unproxied { return true }
        guard let core = _core, let table = _table, let otherTable = object._table else { return false }
        return object._core === core && table.tableKey == otherTable.tableKey && object._key == _key
            && !isInvalidated && !object.isInvalidated
    }

    /// Whether equality and hashing follow the row (Realm's `isEqual:`): a managed object of a
    /// class with a primary key, or a frozen object. Others compare by identity.
    private var _equatesByRow: Bool {
        _table != nil && (_schemaInfo.primaryKey != nil || _core?.frozen != nil)
    }

    /// As Realm documents for `isSameObject(as:)`: "If the object type is defined with a primary
    /// key, `isEqual(_:)` behaves identically to this method. If the object type is not defined
    /// with a primary key, `isEqual(_:)` uses the `NSObject` behavior of comparing object
    /// identity" (frozen objects compare as the same object too).
    ///
    ///     realm.object(ofType: Person.self, forPrimaryKey: 1)! == realm.object(ofType: Person.self, forPrimaryKey: 1)!   // true
    ///     realm.objects(Dog.self)[0] == realm.objects(Dog.self)[0]     // false: two accessors, no primary key
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        if lhs === rhs || ((lhs is DynamicObject || rhs is DynamicObject) && lhs._unproxied === rhs._unproxied) { return true }
        return lhs._equatesByRow && lhs.isSameObject(as: rhs)
    }

    /// Hashes what `==` compares: the row of a managed object with a primary key or of a frozen
    /// object, otherwise the instance.
    public func hash(into hasher: inout Hasher) {
        if _equatesByRow, let table = _table {
            hasher.combine(table.tableKey)
            hasher.combine(_key)
        } else {
            hasher.combine(ObjectIdentifier(_unproxied))
        }
    }

    /// The hash value `==` goes by, as `NSObject`'s `hash` of a Realm object: equal objects (the
    /// same row of a class with a primary key, or of a frozen object) have equal hashes.
    ///
    ///     let a = realm.object(ofType: Person.self, forPrimaryKey: 1)!
    ///     let b = realm.object(ofType: Person.self, forPrimaryKey: 1)!
    ///     a.hash == b.hash    // true
    public var hash: Int { hashValue }

    /// The value of the property named `key`, boxed; nil for a nil value. Setting it writes the
    /// property (in a write transaction if the object is managed). An unknown name is a
    /// programmer error.
    ///
    ///     person["name"] = "Ada"
    ///     person["age"] as? Int
    public subscript(key: String) -> Any? {
        get {
            if let dynamic = self as? DynamicObject {
                if dynamic.dynamic != nil { return dynamic.dynamicValue(key) }
                if let proxied = dynamic.proxied { return proxied[key] }
            }
            let info = _schemaInfo
            guard let index = info.indexByName[key] else {
                throwRealmException("Invalid property name '\(key)' for class '\(info.className)'.")
            }
            // As Realm's: enums give their raw values, CustomPersistable types their persisted
            // values, AnyRealmValue what it holds.
            return keyValueCodingValue(_value(of: index))
        }
        set {
            if let dynamic = self as? DynamicObject {
                if dynamic.dynamic != nil { return dynamic.setDynamicValue(newValue, key) }
                if let proxied = dynamic.proxied {
                    proxied[key] = newValue
                    return
                }
                // A link to an embedded object takes a dictionary, an array or an unmanaged object.
                if let core = _core, let index = _schemaInfo.indexByName[key], core.setDynamicEmbedded(dynamic, index, newValue) {
                    return
                }
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
            // A DynamicObject has no wrappers: its schema is the table's, not its class's.
            if self is DynamicObject { return property.field._rlmManagedValue(at: nil, self, table.columns[index]) }
            return withUnsafeMutableFieldPointer(property) { property.field._rlmManagedValue(at: $0, self, table.columns[index]) }
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
            // The value given, not the optional that `setValue(_:forKey:)` and the subscript box.
            let given = unwrapOptional(value)
            if property.shape.isCollection, let given, !Self.isEnumerable(given) {
                throwRealmException(
                    "Invalid value (\(given)) for \(property.valueTypeText) property '\(info.className).\(property.name)': "
                        + "value is not enumerable.")
            }
            throwRealmException(
                "Invalid value '\(given.map { "\($0)" } ?? "nil")' of type '\(type(of: given ?? value))' for "
                    + "\(property.valueTypeText) property '\(info.className).\(property.name)'.")
        }
    }

    /// Whether a value given for a list, set or map property holds elements, as Realm's
    /// RLMAsFastEnumeration sees it: a sequence, but not a string or data.
    private static func isEnumerable(_ value: Any) -> Bool {
        value is any Sequence && !(value is String) && !(value is Substring) && !(value is Data)
    }

    /// Runs `body` with a pointer to the wrapper of `property` in this instance.
    func withUnsafeMutableFieldPointer<R>(_ property: PropertyInfo, _ body: (UnsafeMutableRawPointer) -> R) -> R {
        withExtendedLifetime(self) {
            body(Unmanaged.passUnretained(self).toOpaque() + property.offset)
        }
    }

    /// A readable form of the object, as Realm prints it (nested objects and collections
    /// indented, `<Maximum depth exceeded>` five levels down); a model class may override it:
    ///
    ///     Person {
    ///         name = Ada;
    ///         age = 36;
    ///     }
    open var description: String { realmDescription(depth: realmDescriptionMaxDepth) }

    func realmDescription(depth: Int) -> String {
        if let proxied = (self as? DynamicObject)?.proxied { return proxied.realmDescription(depth: depth) }
        if let dynamic = self as? DynamicObject, let binding = dynamic.dynamic {
            // In the order of the class's schema (as Realm lists them), else by name.
            let names = dynamic.bindingSchema.map { $0.properties.filter { $0.type != .linkingObjects }.map(\.name) }
                ?? binding.context.table(binding.table).properties.keys.sorted()
            return realmObjectDescription(className: dynamic.objectTypeName,
                                          names.map { ($0, dynamic.dynamicValue($0) as Any) }, depth: depth)
        }
        let info = _schemaInfo
        if _table != nil, isInvalidated { return "[invalid object]" }
        // Realm lists the persisted properties, not the linking objects.
        let stored = info.properties.indices.filter { info.properties[$0].isStored }
        return realmObjectDescription(className: info.className,
                                      stored.map { (info.properties[$0].name, _value(of: $0)) }, depth: depth)
    }

    /// Sets the properties of an unmanaged object from a dictionary (by name), an array (in
    /// property order) or another object (by name).
    func _assign(from value: Any) {
        let info = _schemaInfo
        switch value {
        case let dictionary as [String: Any]:
            // As Realm: the persisted properties are read from the dictionary by name; other
            // keys are ignored.
            for (name, propertyValue) in dictionary {
                guard let index = info.indexByName[name], info.properties[index].isStored else { continue }
                _setValue(propertyValue, of: index)
            }
        case let array as [Any]:
            let stored = info.properties.indices.filter { info.properties[$0].isStored }
            // Realm refuses only more values than properties: the rest keep their defaults.
            if array.count > stored.count {
                throwRealmException("Invalid array input: more values (\(array.count)) than properties (\(stored.count)).")
            }
            for (index, propertyValue) in zip(stored, array) { _setValue(propertyValue, of: index) }
        case let object as ObjectBase:
            // As Realm, which reads each property by key-value coding: an object of another
            // class must have every persisted property of this one.
            let source = object._schemaInfo
            for (index, property) in info.properties.enumerated() where property.isStored {
                guard let sourceIndex = source.indexByName[property.name] else {
                    throwRealmException(
                        "Invalid value '\(value)' to initialize object of type '\(info.className)': missing key '\(property.name)'")
                }
                _setValue(object._value(of: sourceIndex), of: index)
            }
        case is NSNull:
            throwRealmException("Must provide a non-nil value.")
        default:
            // Realm reads a value's properties by key-value coding: any other value lacks the
            // first property's key.
            guard let first = info.properties.first(where: \.isStored) else {
                throwRealmException("Invalid value '\(value)' to initialize object of type '\(info.className)'.")
            }
            throwRealmException("Invalid value '\(value)' to initialize object of type '\(info.className)': missing key '\(first.name)'")
        }
    }
}

// MARK: - Objects

extension ObjectBase {
    /// Whether the object belongs to a frozen Realm: readable from any thread, never changing,
    /// and any change to it stops with Realm's message.
    ///
    ///     dog.freeze().isFrozen    // true
    public var isFrozen: Bool { _core?.frozen != nil }

    /// A frozen copy of the managed object: its values at the Realm's current version, readable
    /// from any thread. A frozen object returns itself. An object without a Realm (unmanaged, or
    /// passed to `delete`), or one created in the current write transaction, cannot be frozen
    /// (Realm's messages).
    ///
    ///     let frozen = dog.freeze()
    ///     Thread { print(frozen.name) }.start()
    public func freeze() -> Self {
        guard let core = _core, _table != nil, !_deletedThroughSelf else { throwRealmException("Unmanaged objects cannot be frozen.") }
        if core.frozen != nil { return self }
        if isInvalidated { throwRealmException(invalidatedObjectMessage) }
        guard let frozen = core.frozenCore().importObject(self) else {
            throwRealmException("Cannot freeze an object in the same write transaction as it was created in.")
        }
        return frozen as! Self
    }

    /// The live object, in the calling thread's Realm, of a frozen object; nil if it was deleted
    /// since. A live object returns itself; one without a Realm (unmanaged, or passed to
    /// `delete`) cannot be thawed (Realm's message).
    ///
    ///     if let live = frozenDog.thaw() {
    ///         try live.realm!.write { live.age += 1 }
    ///     }
    public func thaw() -> Self? {
        guard let core = _core, _table != nil, !_deletedThroughSelf else { throwRealmException("Unmanaged objects cannot be thawed.") }
        if core.frozen == nil { return self }
        return core.thawedCore().importObject(self) as? Self
    }
}

extension ObjectBase: RealmMovable {
    func moved(to core: RealmCore) -> Any? { core.importObject(self) }
}
