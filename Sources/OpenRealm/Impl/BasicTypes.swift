// BasicTypes.swift — the conformances of Int, Bool, Float, Double, String, Data, Date, UUID,
// Decimal128, ObjectId, AnyRealmValue and Optional to OpenRealm's internal protocols
// (_CValueConvertible, _Persistable, the query markers, _HasPersistedType, _MapKey), in one place;
// and LooseNumber, the kind of a loosely typed number, which every numeric conversion reads.

import CEngine
import Foundation

/// Integer conversions shared by the integer types.
extension FixedWidthInteger where Self: _CValueConvertible {
    public static var _ceType: ce_type { CE_TYPE_INT }
    public static func _ceDefault() -> Self { 0 }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self { Self(truncatingIfNeeded: value.integer) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { .int(Int64(self)) }
    /// As Realm's integer properties: an integer of any width that fits, or a Bool (0 or 1);
    /// never a floating-point number, even a whole one.
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let same = value as? Self { return same }
        switch LooseNumber(value) {
        case .integer(let integer): return Self(exactly: integer)
        case .largeUnsigned(let integer): return Self(exactly: integer)
        case .bool(let bool): return bool ? 1 : 0
        case .float, .double, nil: return nil
        }
    }
}

// MARK: - Numbers from loosely typed values

/// A number given to `init(value:)`, `create(_:value:)`, `setValue(_:forKey:)` or a subscript,
/// by its kind: Realm (RLMValidateValue) decides by the kind of number it is given, not by its
/// value, and so does each numeric type's `_ceFromAny` from this.
enum LooseNumber {
    /// An integer of any width (signed, or unsigned up to `Int64.max`).
    case integer(Int64)
    /// An unsigned integer above `Int64.max`.
    case largeUnsigned(UInt64)
    case bool(Bool)
    case float(Float)
    case double(Double)

    /// The kind of `value`; nil for a value that is no number.
    init?(_ value: Any) {
        switch value {
        case let number as Int: self = .integer(Int64(number))
        case let number as Int64: self = .integer(number)
        case let number as Int32: self = .integer(Int64(number))
        case let number as Int16: self = .integer(Int64(number))
        case let number as Int8: self = .integer(Int64(number))
        case let number as UInt: self.init(unsigned: UInt64(number))
        case let number as UInt64: self.init(unsigned: number)
        case let number as UInt32: self = .integer(Int64(number))
        case let number as UInt16: self = .integer(Int64(number))
        case let number as UInt8: self = .integer(Int64(number))
        case let bool as Bool: self = .bool(bool)
        case let number as Float: self = .float(number)
        case let number as Double: self = .double(number)
        default:
            // An NSNumber (not a Swift number bridged to one): by its Objective-C type, as Realm.
            guard type(of: value) is NSNumber.Type, let number = value as? NSNumber else { return nil }
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "f"): self = .float(number.floatValue)
            case UInt8(ascii: "d"): self = .double(number.doubleValue)
            case UInt8(ascii: "B"): self = .bool(number.boolValue)
            case UInt8(ascii: "c") where number.int64Value == 0 || number.int64Value == 1: self = .bool(number.boolValue)
            case UInt8(ascii: "Q"), UInt8(ascii: "L"): self.init(unsigned: number.uint64Value)
            default: self = .integer(number.int64Value)
            }
        }
    }

    private init(unsigned: UInt64) {
        self = unsigned <= UInt64(Int64.max) ? .integer(Int64(unsigned)) : .largeUnsigned(unsigned)
    }
}

extension Int: RealmCollectionValue {}
extension Int8: RealmCollectionValue {}
extension Int16: RealmCollectionValue {}
extension Int32: RealmCollectionValue {}
extension Int64: RealmCollectionValue {}

extension Bool: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_BOOL }
    public static func _ceDefault() -> Bool { false }
    /// As Realm's bool properties: a Bool, or an integer of any width that is 0 or 1.
    public static func _ceFromAny(_ value: Any) -> Bool? {
        switch LooseNumber(value) {
        case .bool(let bool): return bool
        case .integer(let integer) where integer == 0 || integer == 1: return integer == 1
        default: return nil
        }
    }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Bool { value.boolean }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_BOOL
        value.boolean = self
        return value
    }
}

extension Float: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_FLOAT }
    public static func _ceDefault() -> Float { 0 }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Float { value.float_value }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_FLOAT
        value.float_value = self
        return value
    }
    /// As Realm's float properties: a Float, an integer, or a Double within Float's range (or
    /// NaN); not a Bool.
    public static func _ceFromAny(_ value: Any) -> Float? {
        switch LooseNumber(value) {
        case .float(let float): return float
        case .double(let double) where double.isNaN || double.magnitude <= Double(Float.greatestFiniteMagnitude):
            return Float(double)
        case .integer(let integer): return Float(integer)
        case .largeUnsigned(let integer): return Float(integer)
        default: return nil
        }
    }
}

extension Double: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_DOUBLE }
    public static func _ceDefault() -> Double { 0 }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Double { value.double_value }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_DOUBLE
        value.double_value = self
        return value
    }
    /// As Realm's double properties: a Double, a Float or an integer; not a Bool.
    public static func _ceFromAny(_ value: Any) -> Double? {
        switch LooseNumber(value) {
        case .double(let double): return double
        case .float(let float): return Double(float)
        case .integer(let integer): return Double(integer)
        case .largeUnsigned(let integer): return Double(integer)
        default: return nil
        }
    }
}

extension String: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_STRING }
    public static func _ceDefault() -> String { "" }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> String { value.stringValue }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { arena.string(self) }
}

extension Data: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_BINARY }
    public static func _ceDefault() -> Data { Data() }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Data { value.dataValue }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { arena.binary(self) }
}

extension Date: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_TIMESTAMP }
    public static func _ceDefault() -> Date { Date() }  // as Realm: now
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Date { Date(ceTimestamp: value.timestamp) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_TIMESTAMP
        value.timestamp = ceTimestamp
        return value
    }
}

/// Seconds from 1970 to 2001, Foundation's reference date.
private let referenceDateSince1970: Int64 = 978_307_200

extension Date {
    /// The date of an engine timestamp (seconds and nanoseconds since 1970, of the same sign).
    /// Computed from the reference date, which `Date` stores, so that a date read back equals
    /// the date written whenever the date's own precision is no finer than a nanosecond.
    init(ceTimestamp timestamp: ce_timestamp) {
        let (difference, overflow) = timestamp.seconds.subtractingReportingOverflow(referenceDateSince1970)
        let seconds = overflow ? Double(timestamp.seconds) - Double(referenceDateSince1970) : Double(difference)
        self.init(timeIntervalSinceReferenceDate: seconds + Double(timestamp.nanoseconds) / 1e9)
    }

    /// The engine timestamp of this date: whole seconds since 1970 and the nanoseconds (rounded)
    /// of the same sign, as the engine requires. Split from the reference date, as `Date` stores
    /// it (as Realm does): splitting the interval since 1970 loses the low bits of sub-second
    /// values first. Dates beyond the timestamp's range are clamped to it.
    var ceTimestamp: ce_timestamp {
        let interval = timeIntervalSinceReferenceDate
        if interval.isNaN { return ce_timestamp(seconds: 0, nanoseconds: 0) }
        let limit = 9.2e18  // below Int64.max - referenceDateSince1970
        if interval >= limit { return ce_timestamp(seconds: .max, nanoseconds: 999_999_999) }
        if interval <= -limit { return ce_timestamp(seconds: .min, nanoseconds: -999_999_999) }
        var whole = interval.rounded(.towardZero)
        var nanoseconds = ((interval - whole) * 1e9).rounded()
        if abs(nanoseconds) >= 1e9 {
            whole += nanoseconds > 0 ? 1 : -1
            nanoseconds = 0
        }
        var seconds = Int64(whole) + referenceDateSince1970
        var nanos = Int32(nanoseconds)
        if seconds > 0, nanos < 0 {
            seconds -= 1
            nanos += 1_000_000_000
        } else if seconds < 0, nanos > 0 {
            seconds += 1
            nanos -= 1_000_000_000
        }
        return ce_timestamp(seconds: seconds, nanoseconds: nanos)
    }
}

extension UUID: RealmCollectionValue {
    public static var _ceType: ce_type { CE_TYPE_UUID }
    public static func _ceDefault() -> UUID { UUID() }  // as Realm: a new random UUID
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> UUID { UUID(ceUUID: value.uuid) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_UUID
        withUnsafeBytes(of: uuid) { bytes in
            withUnsafeMutableBytes(of: &value.uuid.bytes) { $0.copyMemory(from: bytes) }
        }
        return value
    }
    public static func _ceFromAny(_ value: Any) -> UUID? {
        if let uuid = value as? UUID { return uuid }
        if let string = value as? String { return UUID(uuidString: string) }
        return nil
    }

    init(ceUUID: ce_uuid) {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { target in
            withUnsafeBytes(of: ceUUID.bytes) { target.copyMemory(from: $0) }
        }
        self.init(uuid: raw)
    }
}

extension Optional: _CValueConvertible where Wrapped: _CValueConvertible {
    public static var _ceType: ce_type { Wrapped._ceType }
    public static var _ceNullable: Bool { true }
    public static var _ceLinkTarget: ObjectBase.Type? { Wrapped._ceLinkTarget }
    public static func _ceDefault() -> Wrapped? { nil }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Wrapped? {
        Wrapped._ceReadInsideOptional(value, realm)
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped._ceValue(arena, realm)
        }
    }
    public static func _ceFromAny(_ value: Any) -> Wrapped?? {
        // `value` may itself be an Optional boxed in Any, or several (an optional given to
        // `setValue(_:forKey:)`, which boxes it once more): nil at any level is nil.
        guard let unwrapped = unwrapOptional(value), !(unwrapped is NSNull) else { return .some(nil) }
        return Wrapped._ceFromAnyInsideOptional(unwrapped)
    }
}

extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue {}

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
extension Optional: _RealmSchemaDiscoverable, _Persistable where Wrapped: RealmCollectionValue {}

extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryNumeric {}
extension String: _QueryString {}
extension ObjectId: _QueryComparable {}
extension UUID: _QueryComparable {}
extension AnyRealmValue: _QueryComparable {}
extension Optional: _QueryComparable where Wrapped: _QueryComparable {}
extension Optional: _QueryNumeric where Wrapped: _QueryNumeric {}
extension Optional: _QueryString where Wrapped: _QueryString {}

extension Int: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = Int }
extension Int8: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = Int8 }
extension Int16: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = Int16 }
extension Int32: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = Int32 }
extension Int64: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = Int64 }
extension Float: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = Float }
extension Double: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = Double }
extension Decimal128: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = Decimal128 }
extension AnyRealmValue: _HasPersistedType, MinMaxType, AddableType { public typealias PersistedType = AnyRealmValue }
extension Date: _HasPersistedType, MinMaxType { public typealias PersistedType = Date }
extension Bool: _HasPersistedType { public typealias PersistedType = Bool }
extension String: _HasPersistedType { public typealias PersistedType = String }
extension Data: _HasPersistedType { public typealias PersistedType = Data }
extension UUID: _HasPersistedType { public typealias PersistedType = UUID }
extension ObjectId: _HasPersistedType { public typealias PersistedType = ObjectId }
extension Optional: _HasPersistedType where Wrapped: _HasPersistedType {
    public typealias PersistedType = Wrapped.PersistedType?
}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
extension Optional: AddableType where Wrapped: AddableType {}

extension String: _MapKey {
    public var _mapKeyString: String { self }
    public init(_mapKeyString: String) { self = _mapKeyString }
}

// MARK: - PersistableEnum

/// A PersistableEnum is stored as its raw value.
extension PersistableEnum {
    public static var _ceType: ce_type { RawValue._ceType }
    public static func _ceDefault() -> Self {
        guard let first = allCases.first else { throwRealmException("PersistableEnum '\(Self.self)' has no cases.") }
        return first
    }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        let raw = RawValue._ceRead(value, realm)
        guard let result = Self(rawValue: raw) else {
            throwRealmException("The stored value '\(raw)' is not a raw value of '\(Self.self)'.")
        }
        return result
    }
    /// As Realm: in an optional context a raw value no case has reads as nil.
    public static func _ceReadInsideOptional(_ value: ce_value, _ realm: Realm?) -> Self? {
        value.isNull ? nil : Self(rawValue: RawValue._ceRead(value, realm))
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { rawValue._ceValue(arena, realm) }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let same = value as? Self { return same }
        return RawValue._ceFromAny(value).flatMap(Self.init(rawValue:))
    }
    /// A raw value no case has is nil in an optional context (Realm reads it so).
    public static func _ceFromAnyInsideOptional(_ value: Any) -> Self?? {
        if let converted = _ceFromAny(value) { return .some(converted) }
        return RawValue._ceFromAny(value) == nil ? nil : .some(nil)
    }
}

// MARK: - Object (a link)

extension Object {
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
        if Self.self == DynamicObject.self {
            // As Realm's dynamic setters: a managed object of any class, read as a DynamicObject.
            guard let object = value as? ObjectBase, let core = object._core, object._table != nil else { return nil }
            return core.dynamicObject(of: object) as? Self
        }
        if let dynamic = value as? DynamicObject {
            // A DynamicObject of this class: the object it stands for, or its row read as this class.
            if let proxied = dynamic.proxied as? Self { return proxied }
            guard let core = dynamic._core, dynamic._table != nil, let table = core.tableInfo(for: Self.self),
                table.tableKey == dynamic._tableKey
            else { return nil }
            return core.makeObject(table, dynamic._key) as? Self
        }
        if value is [String: Any] || value is [Any] {
            let object = Self()
            object._assign(from: value)
            return object
        }
        return nil
    }
}


// MARK: - EmbeddedObject (a link)

extension EmbeddedObject {
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
