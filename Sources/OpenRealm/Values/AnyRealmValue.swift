// AnyRealmValue.swift — AnyRealmValue: a value of any type Realm stores (a mixed property).

import CEngine
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

    /// The linked object as `type`, or nil: `item.value.object(Dog.self)?.name`.
    public func object<T: Object>(_ type: T.Type) -> T? {
        if case .object(let object) = self { return object as? T }
        return nil
    }

    /// The linked object, or nil for another case.
    public var dynamicObject: Object? { if case .object(let v) = self { v } else { nil } }

    /// Equal cases with equal values (objects: the same object; collections: the same instance).
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
        case (.object(let a), .object(let b)): a.isSameObject(as: b)
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

    public static var _ceType: ce_type { CE_TYPE_MIXED }
    public static var _ceNullable: Bool { true }
    public static func _ceDefault() -> AnyRealmValue { .none }

    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> AnyRealmValue {
        switch value.type {
        case CE_TYPE_INT: .int(Int(value.integer))
        case CE_TYPE_BOOL: .bool(value.boolean)
        case CE_TYPE_FLOAT: .float(value.float_value)
        case CE_TYPE_DOUBLE: .double(value.double_value)
        case CE_TYPE_STRING: .string(value.stringValue)
        case CE_TYPE_BINARY: .data(value.dataValue)
        case CE_TYPE_TIMESTAMP: .date(Date._ceRead(value, realm))
        case CE_TYPE_DECIMAL128: .decimal128(Decimal128(bits: value.decimal))
        case CE_TYPE_OBJECT_ID: .objectId(ObjectId(value.object_id))
        case CE_TYPE_UUID: .uuid(UUID(ceUUID: value.uuid))
        case CE_TYPE_LINK:
            if let realm, let object = realm.core.object(ofClass: Object.self, link: value.link) as? Object { .object(object) } else { .none }
        default: .none
        }
    }

    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        switch self {
        case .none: return .null
        case .int(let v): return v._ceValue(arena, realm)
        case .bool(let v): return v._ceValue(arena, realm)
        case .float(let v): return v._ceValue(arena, realm)
        case .double(let v): return v._ceValue(arena, realm)
        case .string(let v): return v._ceValue(arena, realm)
        case .data(let v): return v._ceValue(arena, realm)
        case .date(let v): return v._ceValue(arena, realm)
        case .object(let v): return v._ceValue(arena, realm)
        case .objectId(let v): return v._ceValue(arena, realm)
        case .decimal128(let v): return v._ceValue(arena, realm)
        case .uuid(let v): return v._ceValue(arena, realm)
        case .list:
            var value = ce_value()
            value.type = CE_TYPE_LIST
            return value
        case .dictionary:
            var value = ce_value()
            value.type = CE_TYPE_DICTIONARY
            return value
        }
    }

    public static func _ceFromAny(_ value: Any) -> AnyRealmValue? {
        switch value {
        case let v as AnyRealmValue: v
        case let v as Int: .int(v)
        case let v as Bool: .bool(v)
        case let v as Float: .float(v)
        case let v as Double: .double(v)
        case let v as String: .string(v)
        case let v as Data: .data(v)
        case let v as Date: .date(v)
        case let v as Object: .object(v)
        case let v as ObjectId: .objectId(v)
        case let v as Decimal128: .decimal128(v)
        case let v as UUID: .uuid(v)
        case is NSNull: AnyRealmValue.none
        case let dictionary as [String: Any]:
            Map<String, AnyRealmValue>._rlmFromAny(dictionary).map(AnyRealmValue.dictionary)
        case let array as [Any]:
            List<AnyRealmValue>._rlmFromAny(array).map(AnyRealmValue.list)
        default: nil
        }
    }

    // A mixed property holding a list or dictionary opens it as a nested collection.
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> AnyRealmValue {
        let core = object._core.unsafelyUnwrapped
        var value = ce_value()
        guard ce_object_get(core.txn(for: object), object._tableKey, object._key, column.key, &value) else { engineFailure() }
        switch value.type {
        case CE_TYPE_LIST: return .list(List(managed: ManagedCollection(owner: object, column: column.key, mixed: true)))
        case CE_TYPE_DICTIONARY: return .dictionary(Map(managed: ManagedCollection(owner: object, column: column.key, mixed: true)))
        default: return _ceRead(value, Realm(core))
        }
    }

    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: AnyRealmValue) {
        let core = object._core.unsafelyUnwrapped
        let txn = core.writeTxn(for: object)
        // Copy a collection's elements before the property (which may hold it) is replaced.
        let contents = nestedContents(value)
        let arena = _CArena()
        var cValue = value._ceValue(arena, Realm(core))
        guard ce_object_set(txn, object._tableKey, object._key, column.key, &cValue) else { engineFailure() }
        contents?(ManagedCollection(owner: object, column: column.key, mixed: true))
    }

    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value {
        switch self {
        case .object(let object) where !object.isManaged(by: realm.core): .null
        case .list, .dictionary: .null
        default: _ceValue(arena, realm)
        }
    }

    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        switch self {
        case .object(let linked) where !linked.isManaged(by: object._core.unsafelyUnwrapped):
            AnyRealmValue._rlmSet(object, column, self)
        case .list, .dictionary:
            AnyRealmValue._rlmSet(object, column, self)
        default: break
        }
    }
}

extension AnyRealmValue: _NestedCollectionHolder {
    static func _nested(_ type: ce_type, _ collection: ManagedCollection) -> Any {
        type == CE_TYPE_LIST ? AnyRealmValue.list(List(managed: collection)) : AnyRealmValue.dictionary(Map(managed: collection))
    }
}
