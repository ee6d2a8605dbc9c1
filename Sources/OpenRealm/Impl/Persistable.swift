// Persistable.swift — the _Persistable protocol (what a @Persisted property can hold) and how
// schema discovery, `add` and `init(value:)` reach a wrapper in an instance's memory.

import CEngine
import Foundation

// MARK: - _Persistable

/// A type that a `@Persisted` property can have: the scalar types, their optionals, optional
/// links (`Dog?`), `List`, `MutableSet`, `Map`, `LinkingObjects`, `AnyRealmValue` and
/// `PersistableEnum` types. Internal machinery of OpenRealm: applications use the conforming types
/// and never call these requirements.
public protocol _Persistable: _RealmSchemaDiscoverable {
    /// The type the value is stored as (itself for the stored types; the raw value for
    /// `PersistableEnum`s; the persisted type of `CustomPersistable` types).
    associatedtype PersistedType
    /// What a property of this type stores.
    static func _rlmShape() -> _PropertyShape
    /// The value of a property that was never set.
    static func _rlmDefault() -> Self
    /// Whether a managed object keeps the value it read (collections: the same `List` each time).
    static var _rlmCachesManagedValue: Bool { get }
    /// Reads the property of a managed object.
    static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> Self
    /// Writes the property of a managed object (in a write transaction).
    static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Self)
    /// The value for the property's slot when an unmanaged object is added (collections, and links
    /// that must be added first, give null and are written by `_rlmAfterCreate`).
    func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value
    /// Writes what `_rlmCreationValue` could not, once the object exists. `replace`: the object
    /// existed (an update): collections are replaced rather than appended to.
    func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool)
    /// After `_rlmAfterCreate`: an unmanaged collection becomes the managed collection of the
    /// new object's property (as Realm, the instance the object held stays its collection);
    /// false if the value is not such a collection.
    func _rlmPromote(_ object: ObjectBase, _ column: _ManagedColumn) -> Bool
    /// This type from a loosely typed value (`init(value:)`, `create(_:value:)`).
    static func _rlmFromAny(_ value: Any) -> Self?
    /// The origin property of a `LinkingObjects` value.
    var _rlmOriginProperty: String? { get }
    /// Whether values of this type are objects (links): a default value of such a property may
    /// be an object created by the default (`@Persisted var owner: Person? = Person()`).
    static var _rlmHoldsObjects: Bool { get }

    // Reaching the `Persisted<Self>` wrapper of a property in an instance's memory (its offset
    // comes from schema discovery).

    /// The wrapper's token, the property's shape and options.
    static func _rlmDescribeField(at pointer: UnsafeRawPointer)
        -> (token: Int, shape: _PropertyShape, primaryKey: Bool, indexed: Bool, originProperty: String?)
    /// The unmanaged wrapper's value for the new object's slot. Unless `keep` (the value is
    /// needed by `_rlmAfterCreateField`), the wrapper forgets it: the object is about to be managed.
    /// The wrapper is marked managed, with `token` (its class's: a decoded wrapper has none).
    static func _rlmTakeCreationValue(
        at pointer: UnsafeMutableRawPointer, _ arena: _CArena, _ realm: Realm, keep: Bool, token: Int32) -> ce_value
    /// Writes the parts of the unmanaged value that need the object to exist, then forgets it.
    static func _rlmAfterCreateField(at pointer: UnsafeMutableRawPointer, _ object: ObjectBase, _ column: _ManagedColumn, replace: Bool)
    /// The unmanaged value, boxed.
    static func _rlmUnmanagedValue(at pointer: UnsafeMutableRawPointer) -> Any
    /// Sets the unmanaged value from a loosely typed value; false if it has the wrong type.
    static func _rlmSetUnmanaged(at pointer: UnsafeMutableRawPointer, _ value: Any) -> Bool
    /// The managed value, boxed: for a collection, the instance the property's getter gives
    /// (cached in the wrapper at `pointer`, if any), so that every read gives the same one.
    static func _rlmManagedValue(at pointer: UnsafeMutableRawPointer?, _ object: ObjectBase, _ column: _ManagedColumn) -> Any
    /// Sets the managed value from a loosely typed value; false if it has the wrong type.
    static func _rlmSetManaged(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Any) -> Bool
    /// The engine value of a loosely typed value (a primary key to look up); nil if it has the
    /// wrong type.
    static func _rlmCValue(fromAny value: Any, _ arena: _CArena, _ realm: Realm) -> ce_value?
}

extension _Persistable {
    public static var _rlmType: PropertyType {
        let shape = _rlmShape()
        return shape.isLinkingObjects ? .linkingObjects : PropertyType(shape.type)
    }
    public static var _rlmOptional: Bool {
        let shape = _rlmShape()
        return shape.nullable && shape.type != CE_TYPE_MIXED
    }
    public static var _rlmCachesManagedValue: Bool { false }
    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {}
    public func _rlmPromote(_ object: ObjectBase, _ column: _ManagedColumn) -> Bool { false }
    public var _rlmOriginProperty: String? { nil }
    public static var _rlmHoldsObjects: Bool { false }
}

/// Scalars, optionals and links: one value in one column, read and written with ce_object_get/_set.
extension _Persistable where Self: _CValueConvertible {
    public static func _rlmShape() -> _PropertyShape { _PropertyShape(Self.self) }
    public static func _rlmDefault() -> Self { _ceDefault() }
    public static func _rlmFromAny(_ value: Any) -> Self? { _ceFromAny(value) }
    public static var _rlmHoldsObjects: Bool { _ceLinkTarget != nil }

    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> Self {
        let core = object._core.unsafelyUnwrapped
        let txn = core.txn(for: object)
        var value = ce_value()
        guard ce_object_get(txn, object._tableKey, object._key, column.key, &value) else { engineFailure() }
        return _ceRead(value, Realm(core))
    }

    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Self) {
        let core = object._core.unsafelyUnwrapped
        let txn = core.writeTxn(for: object)
        if let target = _ceLinkTarget, target is EmbeddedObject.Type {
            core.setEmbedded(object, column, value as Any)
            return
        }
        let arena = core.borrowArena()
        defer { core.returnArena(arena) }
        var cValue = value._ceValue(arena, Realm(core))
        guard ce_object_set(txn, object._tableKey, object._key, column.key, &cValue) else {
            engineFailure("Property '\(object._schemaInfo.className).\(object._schemaInfo.properties[column.property].name)'")
        }
    }

    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value {
        // Links to unmanaged or embedded objects are written once the object exists (a cycle of
        // new objects then needs no special case).
        if Self._ceLinkTarget != nil, let object = self as Any as? ObjectBase, !object.isManaged(by: realm.core) {
            return .null
        }
        if Self._ceLinkTarget != nil, Self._ceLinkTarget is EmbeddedObject.Type { return .null }
        return _ceValue(arena, realm)
    }

    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        guard let target = Self._ceLinkTarget else { return }
        let core = object._core.unsafelyUnwrapped
        if target is EmbeddedObject.Type {
            // An embedded object, or a custom persistable value mapped to one.
            if let embedded = embeddedObject(self) {
                core.setEmbedded(object, column, embedded, updateExisting: replace && core.isAddingModified)
            } else if replace {
                Self._rlmSet(object, column, self)  // none: the one the object had goes
            }
            return
        }
        guard let linked = self as Any as? ObjectBase else { return }
        if !linked.isManaged(by: core) {
            Self._rlmSet(object, column, self)
            return
        }
        // A target that was unmanaged when the values were taken (its link written as null) may
        // have been added since, by an earlier property (a list holding it too): link it now.
        var current = ce_value()
        guard ce_object_get(core.writeTxn(for: object), object._tableKey, object._key, column.key, &current) else { engineFailure() }
        if current.type == CE_TYPE_NULL { Self._rlmSet(object, column, self) }
    }
}

// MARK: - Reaching a wrapper by its offset

/// `Persisted<Value>` seen without its Value, for schema discovery.
protocol _PersistedWrapper {
    static var valueType: any _Persistable.Type { get }
}

extension Persisted: _PersistedWrapper {
    static var valueType: any _Persistable.Type { Value.self }
}

/// What schema discovery, `add` and `init(value:)` need of a wrapper in an instance's memory.
/// They are requirements of `_Persistable` (rather than of `Persisted`) so that each concrete
/// type's witness is specialised: `add` calls them through the property's value type, with no
/// generic metadata to look up per call.
extension _Persistable {
    private static func wrapper(_ pointer: UnsafeRawPointer) -> UnsafePointer<Persisted<Self>> {
        pointer.assumingMemoryBound(to: Persisted<Self>.self)
    }

    private static func wrapper(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Persisted<Self>> {
        pointer.assumingMemoryBound(to: Persisted<Self>.self)
    }

    public static func _rlmDescribeField(at pointer: UnsafeRawPointer)
        -> (token: Int, shape: _PropertyShape, primaryKey: Bool, indexed: Bool, originProperty: String?)
    {
        let field = wrapper(pointer).pointee
        var origin: String?
        if case .value(let value) = field.storage { origin = value._rlmOriginProperty }
        return (Int(field.token), _rlmShape(), field.options & Persisted<Self>.primaryKeyOption != 0,
                field.options & Persisted<Self>.indexedOption != 0, origin)
    }

    public static func _rlmTakeCreationValue(
        at pointer: UnsafeMutableRawPointer, _ arena: _CArena, _ realm: Realm, keep: Bool, token: Int32) -> ce_value
    {
        let field = wrapper(pointer)
        field.pointee.becomeManaged(token: token)
        if keep {
            return field.pointee.unmanagedValue()._rlmCreationValue(arena, realm)
        }
        // Moved out of the wrapper (no copy of the value, no retain): it forgets it.
        var storage = Persisted<Self>.Storage.unset
        swap(&storage, &field.pointee.storage)
        switch consume storage {
        case .value(let value), .managedCache(let value): return value._rlmCreationValue(arena, realm)
        case .unset: return _rlmDefault()._rlmCreationValue(arena, realm)
        }
    }

    public static func _rlmAfterCreateField(at pointer: UnsafeMutableRawPointer, _ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        let value = wrapper(pointer).pointee.unmanagedValue()
        wrapper(pointer).pointee.storage = .unset
        value._rlmAfterCreate(object, column, replace: replace)
        if _rlmCachesManagedValue && value._rlmPromote(object, column) {
            wrapper(pointer).pointee.storage = .managedCache(value)
        }
    }

    public static func _rlmUnmanagedValue(at pointer: UnsafeMutableRawPointer) -> Any {
        wrapper(pointer).pointee.unmanagedValue()
    }

    public static func _rlmSetUnmanaged(at pointer: UnsafeMutableRawPointer, _ value: Any) -> Bool {
        if _rlmCachesManagedValue, let collection = wrapper(pointer).pointee.unmanagedValue() as? _AssignableCollection {
            return collection._assign(from: value)
        }
        guard let converted = _rlmFromAny(value) else { return false }
        wrapper(pointer).pointee.storage = .value(converted)
        return true
    }

    public static func _rlmManagedValue(at pointer: UnsafeMutableRawPointer?, _ object: ObjectBase, _ column: _ManagedColumn) -> Any {
        guard _rlmCachesManagedValue && !object._isFrozenObject, let pointer else { return _rlmGet(object, column) }
        if case .managedCache(let value) = wrapper(pointer).pointee.storage { return value }
        let value = _rlmGet(object, column)
        wrapper(pointer).pointee.storage = .managedCache(value)
        return value
    }

    public static func _rlmSetManaged(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Any) -> Bool {
        if _rlmCachesManagedValue, let collection = _rlmGet(object, column) as? _AssignableCollection {
            return collection._assign(from: value)
        }
        guard let converted = _rlmFromAny(value) else { return false }
        _rlmSet(object, column, converted)
        return true
    }

    public static func _rlmCValue(fromAny value: Any, _ arena: _CArena, _ realm: Realm) -> ce_value? {
        guard let converted = _rlmFromAny(value) else { return nil }
        return converted._rlmCreationValue(arena, realm)
    }
}

/// Collections that `init(value:)` and `subscript(key:)` fill from an array or a dictionary.
protocol _AssignableCollection: AnyObject {
    func _assign(from value: Any) -> Bool
}
