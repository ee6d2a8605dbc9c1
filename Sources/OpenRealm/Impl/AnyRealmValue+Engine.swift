// AnyRealmValue+Engine.swift — AnyRealmValue as the engine stores it (a mixed value): its
// _CValueConvertible and _Persistable witnesses, and the nested list or dictionary a mixed
// property or element holds.

import CEngine
import Foundation

extension AnyRealmValue {
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
            if let realm { .object(realm.core.mixedLinkTarget(value.link)) } else { .none }
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
        default:
            // The other numbers, as Realm stores any NSNumber in a mixed property.
            switch LooseNumber(value) {
            case .integer(let integer): .int(Int(integer))
            case .bool(let bool): .bool(bool)
            case .float(let float): .float(float)
            case .double(let double): .double(double)
            case .largeUnsigned, nil: nil
            }
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
        defer { withExtendedLifetime(arena) {} }  // the C calls below read its bytes
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
