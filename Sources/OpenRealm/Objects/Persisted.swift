// Persisted.swift — the @Persisted property wrapper, and the tokens that map a wrapper to its column.
//
// How a managed property access costs one C call (docs/DESIGN.md §9): every wrapper takes, when it is
// initialised, a token — its position in the order an instance initialises its wrappers, counted
// per thread and reset by ObjectBase.init. That order is the same for every instance of a class,
// so the class's schema (discovered once) maps each token to a property, and a TableInfo maps it
// to a column key (once per class and file). A managed get is then: the wrapper's token, an array
// index, ce_object_get. No dictionary, no key path lookup, nothing to set up per object.

import COpenRealmSupport
import Foundation

// MARK: - Tokens

/// The per-thread count of wrappers initialised since the last ObjectBase.init: a C thread-local
/// (COpenRealmSupport), so that taking a token is one %fs-relative load and store, inlined into
/// the wrapper's init (no call, no lazily created pthread key).
@inlinable
func nextToken() -> Int32 {
    openrealm_next_token()
}

/// The option bits of a wrapper being initialised: `managedOption` while RealmCore.makeObject
/// initialises a managed accessor, 0 otherwise.
@inlinable
func wrapperOptions() -> UInt8 {
    openrealm_wrapper_options()
}

/// Runs `body`, a managed accessor's init (RealmCore.makeObject), with the wrappers it
/// initialises marked managed.
@inline(__always)
func initializingManagedAccessor<T>(_ body: () -> T) -> T {
    let outer = openrealm_wrapper_options()
    openrealm_set_wrapper_options(Persisted<Int>.managedOption)
    defer { openrealm_set_wrapper_options(outer) }
    return body()
}

/// Called by ObjectBase.init, which runs after every wrapper of the instance is initialised.
@inline(__always)
func resetPersistedTokens() {
    openrealm_reset_tokens()
}

/// Runs `body` (schema discovery, whose probe instance counts tokens of its own) and gives the
/// thread back the token count it had: a class discovered while another object initialises its
/// wrappers (`@Persisted var dog: Dog? = Dog(value: ["Rex"])`, whose `init(value:)` reads Dog's
/// schema) leaves that object's count as it was.
func withSavedPersistedTokens<R>(_ body: () -> R) -> R {
    let saved = openrealm_save_tokens()
    defer { openrealm_restore_tokens(saved) }
    return body()
}

/// Restarts the token count at the end of `object`'s initialisation (ObjectBase.init),
/// remembering where it was (see `tokenAfterCreatedDefault`).
@inline(__always)
func objectInitialized(_ object: ObjectBase) {
    openrealm_object_initialized(Unmanaged.passUnretained(object).toOpaque())
}

/// The token of a wrapper whose default value is an object just created
/// (`@Persisted var owner: Person? = Person()`): that object's init restarted the count, so the
/// wrapper continues from where the count was before the object's own wrappers took theirs.
/// 0 (the token taken) when the value is not the object initialised last.
@usableFromInline
func tokenAfterCreatedDefault(_ value: Any) -> Int32 {
    guard let object = unwrapOptional(value) as? ObjectBase,
          openrealm_last_reset_object() == UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    else { return 0 }
    let before = openrealm_last_reset_count()
    // May discover the object's class, which counts tokens of its own: read the count first.
    let token = before - Int32(ObjectSchemaInfo.of(type(of: object)).properties.count)
    openrealm_continue_tokens(token + 1)
    return token
}

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
    @usableFromInline
    enum Storage {
        /// Unmanaged, never set: reads give `Value._rlmDefault()`.
        case unset
        /// Unmanaged value.
        case value(Value)
        /// A managed collection, kept so that each read gives the same instance.
        case managedCache(Value)
    }

    @usableFromInline var storage: Storage
    /// The wrapper's position in its class (see Tokens above). A decoded wrapper has none (-1)
    /// until its object is added to a Realm, which sets it from the class's schema.
    @usableFromInline var token: Int32
    @usableFromInline var options: UInt8

    @usableFromInline static var primaryKeyOption: UInt8 { 1 }
    @usableFromInline static var indexedOption: UInt8 { 2 }
    /// The wrapper belongs to a managed object (set when the object is added, or by the
    /// accessor's init): its storage is not the property's value.
    @usableFromInline static var managedOption: UInt8 { 4 }

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
    @inlinable
    public init() {
        token = nextToken()
        storage = .unset
        options = wrapperOptions()
    }

    /// A property with a default value.
    ///
    ///     @Persisted var age = 18
    @inlinable
    public init(wrappedValue value: Value) {
        let taken = nextToken()
        // 0 right after another object's init: the default value may be that object.
        token = taken == 0 && Value._rlmHoldsObjects ? tokenAfterCreatedDefault(value) : taken
        storage = .value(value)
        options = wrapperOptions()
    }

    /// The primary key of the class (Int, String, ObjectId or UUID, optional or not): unique, and
    /// how `object(ofType:forPrimaryKey:)` finds an object.
    ///
    ///     @Persisted(primaryKey: true) var id: Int
    @inlinable
    public init(primaryKey: Bool) {
        token = nextToken()
        storage = .unset
        options = (primaryKey ? Self.primaryKeyOption : 0) | wrapperOptions()
    }

    /// The primary key, with a default value.
    ///
    ///     @Persisted(primaryKey: true) var _id = ObjectId.generate()
    @inlinable
    public init(wrappedValue value: Value, primaryKey: Bool) {
        token = nextToken()
        storage = .value(value)
        options = (primaryKey ? Self.primaryKeyOption : 0) | wrapperOptions()
    }

    /// An indexed property: equality lookups without a scan.
    ///
    ///     @Persisted(indexed: true) var email: String
    @inlinable
    public init(indexed: Bool) {
        token = nextToken()
        storage = .unset
        options = (indexed ? Self.indexedOption : 0) | wrapperOptions()
    }

    /// An indexed property with a default value.
    ///
    ///     @Persisted(indexed: true) var category = "none"
    @inlinable
    public init(wrappedValue value: Value, indexed: Bool) {
        token = nextToken()
        storage = .value(value)
        options = (indexed ? Self.indexedOption : 0) | wrapperOptions()
    }

    /// The objects that link to this one through `originProperty` of `O`.
    ///
    ///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    public init<O: ObjectBase>(originProperty: String) where Value == LinkingObjects<O> {
        token = nextToken()
        storage = .value(LinkingObjects(fromType: O.self, property: originProperty))
        options = wrapperOptions()
    }

    /// Makes the wrapper one of a managed object's: `token` (from the class's schema: a decoded
    /// wrapper had none) and the managed mark.
    @inlinable
    mutating func becomeManaged(token: Int32) {
        self.token = token
        options |= Self.managedOption
    }

    /// The value of an unmanaged wrapper (its default stored on first read, so that a collection
    /// read twice is the same instance).
    @inlinable
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
    /// managed. Inlinable, so that it is specialised for each model class and property type.
    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance observed: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        @inline(__always) get {
            guard let table = observed._table else {
                if let recorder = observed._keyPathRecorder,
                    let link = recorder.record(observed, token: observed[keyPath: storageKeyPath].token, Value.self)
                {
                    return link
                }
                return observed[keyPath: storageKeyPath].unmanagedValue()
            }
            if Value._rlmCachesManagedValue && !observed._isFrozenObject {
                if case .managedCache(let value) = observed[keyPath: storageKeyPath].storage { return value }
                let value = Value._rlmGet(observed, table.columnsByToken[Int(observed[keyPath: storageKeyPath].token)])
                observed[keyPath: storageKeyPath].storage = .managedCache(value)
                return value
            }
            return Value._rlmGet(observed, table.columnsByToken[Int(observed[keyPath: storageKeyPath].token)])
        }
        @inline(__always) set {
            guard let table = observed._table else {
                // As Realm's: a collection assigned to an unmanaged object's property gives its
                // elements to the collection the property holds (which stays the same object).
                if Value._rlmCachesManagedValue, case .value(let current) = observed[keyPath: storageKeyPath].storage,
                    _assignElements(of: newValue, to: current)
                {
                    return
                }
                // Swapped in, the old value released after the access to the wrapper ends (an
                // assignment retains the object and the value around the old value's release).
                var replaced = Storage.value(newValue)
                swap(&replaced, &observed[keyPath: storageKeyPath].storage)
                return
            }
            let column = table.columnsByToken[Int(observed[keyPath: storageKeyPath].token)]
            if table.primaryKeyProperty == column.property {
                observed._primaryKeyChanged()
            }
            Value._rlmSet(observed, column, newValue)
        }
    }
}

/// Gives the elements of `value` to the unmanaged collection `current` (nothing when both are
/// the same collection); false when `current` is no collection.
@usableFromInline
func _assignElements(of value: Any, to current: Any) -> Bool {
    guard let collection = current as? _AssignableCollection else { return false }
    if let same = value as? _AssignableCollection, same === collection { return true }
    return collection._assign(from: value)
}
