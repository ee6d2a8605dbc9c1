// AnyRealmValue.swift — AnyRealmValue: a value of any type Realm stores (a mixed property).

import Foundation

/// A value of any type Realm stores, as Realm's `AnyRealmValue` (a mixed property).
///
///     class Item: Object {
///         @Persisted var value: AnyRealmValue
///     }
///     try realm.write {
///         item.value = .int(5)
///         item.value = .string("five")
///         item.value = .object(dog)
///     }
///     item.value.stringValue    // "five" before the last write
public enum AnyRealmValue: RealmCollectionValue, _Persistable {
    /// No value (null).
    case none
    /// An integer.
    case int(Int)
    /// A boolean.
    case bool(Bool)
    /// A float.
    case float(Float)
    /// A double.
    case double(Double)
    /// A string.
    case string(String)
    /// Binary data.
    case data(Data)
    /// A date.
    case date(Date)
    /// A link to an object.
    case object(Object)
    /// An ObjectId.
    case objectId(ObjectId)
    /// A Decimal128.
    case decimal128(Decimal128)
    /// A UUID.
    case uuid(UUID)
    /// A list of values (in a property: stored as a nested list).
    case list(List<AnyRealmValue>)
    /// A dictionary of values (in a property: stored as a nested dictionary).
    case dictionary(Map<String, AnyRealmValue>)

    /// The integer, or nil for another case: `AnyRealmValue.int(5).intValue == 5`.
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The boolean, or nil for another case.
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    /// The float, or nil for another case.
    public var floatValue: Float? { if case .float(let v) = self { v } else { nil } }
    /// The double, or nil for another case.
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The string, or nil for another case: `AnyRealmValue.string("a").stringValue == "a"`.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The data, or nil for another case.
    public var dataValue: Data? { if case .data(let v) = self { v } else { nil } }
    /// The date, or nil for another case.
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    /// The ObjectId, or nil for another case.
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { v } else { nil } }
    /// The Decimal128, or nil for another case.
    public var decimal128Value: Decimal128? { if case .decimal128(let v) = self { v } else { nil } }
    /// The UUID, or nil for another case.
    public var uuidValue: UUID? { if case .uuid(let v) = self { v } else { nil } }
    /// The list, or nil for another case.
    public var listValue: List<AnyRealmValue>? { if case .list(let v) = self { v } else { nil } }
    /// The dictionary, or nil for another case.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let v) = self { v } else { nil } }

    /// No value: `AnyRealmValue() == .none` (Realm's initializer, for `AddableType` code).
    public init() {
        self = .none
    }

    /// A `.dictionary` of a new unmanaged map holding `dictionary`'s entries (Realm's
    /// `fromDictionary`); stored in a property, it becomes a nested dictionary.
    ///
    ///     item.value = .fromDictionary(["name": .string("Rex"), "age": .int(3)])
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        map.merge(dictionary) { _, new in new }
        return .dictionary(map)
    }

    /// A `.list` of a new unmanaged list holding `array`'s values (Realm's `fromArray`); stored
    /// in a property, it becomes a nested list.
    ///
    ///     item.value = .fromArray([.int(1), .fromArray([.string("nested")])])
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// What the value holds, as key-value coding gives it: the Int, String, object... of its
    /// case; nil for `.none`.
    var keyValueCodingValue: Any? {
        switch self {
        case .none: nil
        case .int(let v): v
        case .bool(let v): v
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .object(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        case .list(let v): v
        case .dictionary(let v): v
        }
    }

    /// The linked object as `type`, or nil: `item.value.object(Dog.self)?.name`.
    public func object<T: Object>(_ type: T.Type) -> T? {
        if case .object(let object) = self { return object as? T }
        return nil
    }

    /// The linked object as a `DynamicObject`, or nil for another case: its properties read by
    /// name, also when its class is not in the Realm's schema (left out of `objectTypes`).
    ///
    ///     let name = holder.value.dynamicObject?.name as? String
    public var dynamicObject: DynamicObject? {
        guard case .object(let object) = self else { return nil }
        if let dynamic = object as? DynamicObject { return dynamic }
        if let core = object._core, object._table != nil { return core.dynamicObject(of: object) }
        let proxy = DynamicObject()
        proxy.proxied = object
        return proxy
    }

    /// Equal cases with equal values (objects: as `Object`'s `==`, so by row with a primary key
    /// or frozen, otherwise by identity, as Realm's; collections: the same instance).
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a), .int(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.objectId(let a), .objectId(let b)): a == b
        case (.decimal128(let a), .decimal128(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.list(let a), .list(let b)): a === b
        case (.dictionary(let a), .dictionary(let b)): a === b
        default: false
        }
    }

    /// Hashes the case and value.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .object(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .list(let v): hasher.combine(ObjectIdentifier(v))
        case .dictionary(let v): hasher.combine(ObjectIdentifier(v))
        }
    }
}
