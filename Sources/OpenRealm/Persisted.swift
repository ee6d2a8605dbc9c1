// Persisted.swift — the @Persisted property wrapper and the _Persistable protocol.
//
// How a managed property access costs one C call (DESIGN.md §9): every wrapper takes, when it is
// initialised, a token — its position in the order an instance initialises its wrappers, counted
// per thread and reset by ObjectBase.init. That order is the same for every instance of a class,
// so the class's schema (discovered once) maps each token to a property, and a TableInfo maps it
// to a column key (once per class and file). A managed get is then: the wrapper's token, an array
// index, ce_object_get. No dictionary, no key path lookup, nothing to set up per object.

import CEngine
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Tokens

/// The per-thread count of wrappers initialised since the last ObjectBase.init.
private let tokenKey: pthread_key_t = {
    var key = pthread_key_t()
    let created = pthread_key_create(&key, nil)
    precondition(created == 0, "pthread_key_create failed")
    return key
}()

/// The next wrapper token of this thread.
@inline(__always)
private func nextToken() -> Int32 {
    let current = Int(bitPattern: pthread_getspecific(tokenKey))
    pthread_setspecific(tokenKey, UnsafeRawPointer(bitPattern: current + 1))
    return Int32(truncatingIfNeeded: current)
}

/// Called by ObjectBase.init, which runs after every wrapper of the instance is initialised.
func resetPersistedTokens() {
    pthread_setspecific(tokenKey, nil)
}

// MARK: - _Persistable

/// A type that a `@Persisted` property can have: the scalar types, their optionals, optional
/// links (`Dog?`), `List`, `MutableSet`, `Map`, `LinkingObjects`, `AnyRealmValue` and
/// `PersistableEnum` types. Internal machinery of OpenRealm: applications use the conforming types
/// and never call these requirements.
public protocol _Persistable {
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
    /// This type from a loosely typed value (`init(value:)`, `create(_:value:)`).
    static func _rlmFromAny(_ value: Any) -> Self?
    /// The origin property of a `LinkingObjects` value.
    var _rlmOriginProperty: String? { get }
}

extension _Persistable {
    public static var _rlmCachesManagedValue: Bool { false }
    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {}
    public var _rlmOriginProperty: String? { nil }
}

/// Scalars, optionals and links: one value in one column, read and written with ce_object_get/_set.
extension _Persistable where Self: _CValueConvertible {
    public static func _rlmShape() -> _PropertyShape { _PropertyShape(Self.self) }
    public static func _rlmDefault() -> Self { _ceDefault() }
    public static func _rlmFromAny(_ value: Any) -> Self? { _ceFromAny(value) }

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
        let arena = _CArena()
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
        guard let target = Self._ceLinkTarget, let linked = self as Any as? ObjectBase else { return }
        let core = object._core.unsafelyUnwrapped
        if target is EmbeddedObject.Type {
            core.setEmbedded(object, column, linked)
        } else if !linked.isManaged(by: core) {
            Self._rlmSet(object, column, self)
        }
    }
}

extension Int: _Persistable {}
extension Int8: _Persistable {}
extension Int16: _Persistable {}
extension Int32: _Persistable {}
extension Int64: _Persistable {}
extension Bool: _Persistable {}
extension Float: _Persistable {}
extension Double: _Persistable {}
extension String: _Persistable {}
extension Data: _Persistable {}
extension Date: _Persistable {}
extension UUID: _Persistable {}
extension Decimal128: _Persistable {}
extension ObjectId: _Persistable {}
extension Optional: _Persistable where Wrapped: _CValueConvertible {}

// MARK: - @Persisted

/// Declares a persisted property of an `Object` or `EmbeddedObject`, as in Realm Swift.
///
///     class Person: Object {
///         @Persisted(primaryKey: true) var id: Int
///         @Persisted(indexed: true) var name: String
///         @Persisted var age = 18
///         @Persisted var dog: Dog?
///         @Persisted var nicknames: List<String>
///         @Persisted var scores: Map<String, Int>
///     }
///     class Dog: Object {
///         @Persisted var name: String
///         @Persisted(originProperty: "dog") var owners: LinkingObjects<Person>
///     }
///
/// An unmanaged object keeps the values itself; once the object is managed by a Realm, each read
/// and write goes to the database (one C call).
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    enum Storage {
        /// Unmanaged, never set: reads give `Value._rlmDefault()`.
        case unset
        /// Unmanaged value.
        case value(Value)
        /// A managed collection, kept so that each read gives the same instance.
        case managedCache(Value)
    }

    var storage: Storage
    let token: Int32
    let options: UInt8

    static var primaryKeyOption: UInt8 { 1 }
    static var indexedOption: UInt8 { 2 }

    /// Not available: a `@Persisted` property is reached through its object.
    @available(*, unavailable, message: "@Persisted can only be used as a property on a Realm object")
    public var wrappedValue: Value {
        get { fatalError("@Persisted can only be used as a property on a Realm object") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("@Persisted can only be used as a property on a Realm object") }
    }

    /// A property with the type's default value (0, "", nil, an empty list...).
    ///
    ///     @Persisted var name: String
    public init() {
        token = nextToken()
        storage = .unset
        options = 0
    }

    /// A property with a default value.
    ///
    ///     @Persisted var age = 18
    public init(wrappedValue value: Value) {
        token = nextToken()
        storage = .value(value)
        options = 0
    }

    /// The primary key of the class (Int, String, ObjectId or UUID, optional or not): unique, and
    /// how `object(ofType:forPrimaryKey:)` finds an object.
    ///
    ///     @Persisted(primaryKey: true) var id: Int
    public init(primaryKey: Bool) {
        token = nextToken()
        storage = .unset
        options = primaryKey ? Self.primaryKeyOption : 0
    }

    /// The primary key, with a default value.
    ///
    ///     @Persisted(primaryKey: true) var _id = ObjectId.generate()
    public init(wrappedValue value: Value, primaryKey: Bool) {
        token = nextToken()
        storage = .value(value)
        options = primaryKey ? Self.primaryKeyOption : 0
    }

    /// An indexed property: equality lookups without a scan.
    ///
    ///     @Persisted(indexed: true) var email: String
    public init(indexed: Bool) {
        token = nextToken()
        storage = .unset
        options = indexed ? Self.indexedOption : 0
    }

    /// An indexed property with a default value.
    ///
    ///     @Persisted(indexed: true) var category = "none"
    public init(wrappedValue value: Value, indexed: Bool) {
        token = nextToken()
        storage = .value(value)
        options = indexed ? Self.indexedOption : 0
    }

    /// The objects that link to this one through `originProperty` of `O`.
    ///
    ///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    public init<O: ObjectBase>(originProperty: String) where Value == LinkingObjects<O> {
        token = nextToken()
        storage = .value(LinkingObjects(fromType: O.self, property: originProperty))
        options = 0
    }

    /// The value of an unmanaged wrapper (its default stored on first read, so that a collection
    /// read twice is the same instance).
    mutating func unmanagedValue() -> Value {
        switch storage {
        case .value(let value), .managedCache(let value): return value
        case .unset:
            let value = Value._rlmDefault()
            storage = .value(value)
            return value
        }
    }

    /// Routes a property access to the object: its own value while unmanaged, the database once
    /// managed.
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance observed: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            guard let table = observed._table else {
                return observed[keyPath: storageKeyPath].unmanagedValue()
            }
            if Value._rlmCachesManagedValue {
                if case .managedCache(let value) = observed[keyPath: storageKeyPath].storage { return value }
                let value = Value._rlmGet(observed, table.columnsByToken[Int(observed[keyPath: storageKeyPath].token)])
                observed[keyPath: storageKeyPath].storage = .managedCache(value)
                return value
            }
            return Value._rlmGet(observed, table.columnsByToken[Int(observed[keyPath: storageKeyPath].token)])
        }
        set {
            guard let table = observed._table else {
                observed[keyPath: storageKeyPath].storage = .value(newValue)
                return
            }
            let column = table.columnsByToken[Int(observed[keyPath: storageKeyPath].token)]
            if table.schema.primaryKey == column.property {
                observed._core?.checkWrite(observed)
                throwRealmException("Primary key can't be changed after an object is inserted.")
            }
            Value._rlmSet(observed, column, newValue)
        }
    }
}

// MARK: - Reaching a wrapper by its offset

/// `Persisted<Value>` seen without its Value: what schema discovery, `add` and `init(value:)`
/// need of a wrapper in an instance's memory.
protocol _PersistedField {
    static func describe(at pointer: UnsafeRawPointer)
        -> (token: Int, shape: _PropertyShape, primaryKey: Bool, indexed: Bool, originProperty: String?)
    /// The unmanaged wrapper's value, for the engine (the value of its slot on creation).
    static func creationValue(at pointer: UnsafeMutableRawPointer, _ arena: _CArena, _ realm: Realm) -> ce_value
    /// Writes the parts of the unmanaged value that need the object to exist.
    static func afterCreate(at pointer: UnsafeMutableRawPointer, _ object: ObjectBase, _ column: _ManagedColumn, replace: Bool)
    /// Forgets the unmanaged value (after the object became managed).
    static func reset(at pointer: UnsafeMutableRawPointer)
    /// The unmanaged value, boxed.
    static func unmanagedValue(at pointer: UnsafeMutableRawPointer) -> Any
    /// Sets the unmanaged value from a loosely typed value; false if it has the wrong type.
    static func setUnmanaged(at pointer: UnsafeMutableRawPointer, _ value: Any) -> Bool
    /// The managed value, boxed.
    static func managedValue(_ object: ObjectBase, _ column: _ManagedColumn) -> Any
    /// Sets the managed value from a loosely typed value; false if it has the wrong type.
    static func setManaged(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Any) -> Bool
    /// The engine value of a loosely typed value (a primary key to look up); nil if it has the
    /// wrong type.
    static func cValue(fromAny value: Any, _ arena: _CArena, _ realm: Realm) -> ce_value?
}

extension Persisted: _PersistedField {
    private static func wrapper(_ pointer: UnsafeRawPointer) -> UnsafePointer<Persisted<Value>> {
        pointer.assumingMemoryBound(to: Persisted<Value>.self)
    }

    private static func wrapper(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Persisted<Value>> {
        pointer.assumingMemoryBound(to: Persisted<Value>.self)
    }

    static func describe(at pointer: UnsafeRawPointer)
        -> (token: Int, shape: _PropertyShape, primaryKey: Bool, indexed: Bool, originProperty: String?)
    {
        let field = wrapper(pointer).pointee
        var origin: String?
        if case .value(let value) = field.storage { origin = value._rlmOriginProperty }
        return (Int(field.token), Value._rlmShape(), field.options & primaryKeyOption != 0,
                field.options & indexedOption != 0, origin)
    }

    static func creationValue(at pointer: UnsafeMutableRawPointer, _ arena: _CArena, _ realm: Realm) -> ce_value {
        wrapper(pointer).pointee.unmanagedValue()._rlmCreationValue(arena, realm)
    }

    static func afterCreate(at pointer: UnsafeMutableRawPointer, _ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        let value = wrapper(pointer).pointee.unmanagedValue()
        value._rlmAfterCreate(object, column, replace: replace)
    }

    static func reset(at pointer: UnsafeMutableRawPointer) {
        wrapper(pointer).pointee.storage = .unset
    }

    static func unmanagedValue(at pointer: UnsafeMutableRawPointer) -> Any {
        wrapper(pointer).pointee.unmanagedValue()
    }

    static func setUnmanaged(at pointer: UnsafeMutableRawPointer, _ value: Any) -> Bool {
        if Value._rlmCachesManagedValue, let collection = wrapper(pointer).pointee.unmanagedValue() as? _AssignableCollection {
            return collection._assign(from: value)
        }
        guard let converted = Value._rlmFromAny(value) else { return false }
        wrapper(pointer).pointee.storage = .value(converted)
        return true
    }

    static func managedValue(_ object: ObjectBase, _ column: _ManagedColumn) -> Any {
        Value._rlmGet(object, column)
    }

    static func setManaged(_ object: ObjectBase, _ column: _ManagedColumn, _ value: Any) -> Bool {
        if Value._rlmCachesManagedValue, let collection = Value._rlmGet(object, column) as? _AssignableCollection {
            return collection._assign(from: value)
        }
        guard let converted = Value._rlmFromAny(value) else { return false }
        Value._rlmSet(object, column, converted)
        return true
    }

    static func cValue(fromAny value: Any, _ arena: _CArena, _ realm: Realm) -> ce_value? {
        guard let converted = Value._rlmFromAny(value) else { return nil }
        return converted._rlmCreationValue(arena, realm)
    }
}

/// Collections that `init(value:)` and `subscript(key:)` fill from an array or a dictionary.
protocol _AssignableCollection: AnyObject {
    func _assign(from value: Any) -> Bool
}
