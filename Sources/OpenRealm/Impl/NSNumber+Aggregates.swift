// NSNumber+Aggregates.swift — NSNumber and NSDate as the result types of the aggregates by
// property name (`min(ofProperty:)`, `max(ofProperty:)`, `sum(ofProperty:)`,
// `average(ofProperty:)`), as Realm Swift has them. Neither is a property type.

import CEngine
import Foundation

// Realm Swift (RealmSwift/Persistable.swift and Aggregateable.swift): "These two types need
// PersistedType for collection aggregate functions but aren't persistable or valid collection
// types": NSNumber is a MinMaxType and an AddableType, NSDate a MinMaxType.

/// The result of an aggregate read as an `NSNumber`, as Realm Swift gives it: the number of
/// the property's type (an integer, a `Float` or a `Double`; a `Decimal128` as its `Double`
/// value).
///
///     let youngest = dogs.min(ofProperty: "age") as NSNumber?     // 3
///     let total = dogs.sum(ofProperty: "age") as NSNumber         // 0 when there are no dogs
extension NSNumber: _HasPersistedType, MinMaxType, AddableType {
    public typealias PersistedType = NSNumber

    /// Any engine type: the aggregate's value is read as it comes.
    public static var _ceType: ce_type { CE_TYPE_MIXED }
    public static func _ceDefault() -> Self { _nsNumber(NSNumber(value: 0)) }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self {
        let number: NSNumber = switch value.type {
        case CE_TYPE_INT: NSNumber(value: value.integer)
        case CE_TYPE_BOOL: NSNumber(value: value.boolean)
        case CE_TYPE_FLOAT: NSNumber(value: value.float_value)
        case CE_TYPE_DOUBLE: NSNumber(value: value.double_value)
        case CE_TYPE_DECIMAL128: NSNumber(value: Decimal128(bits: value.decimal).doubleValue)
        default: NSNumber(value: 0)
        }
        return _nsNumber(number)
    }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        switch LooseNumber(self) {
        case .integer(let integer): .int(Int64(integer))
        case .float(let float): .float(float)
        default: .double(doubleValue)
        }
    }
    public static func _ceFromAny(_ value: Any) -> Self? { (value as? NSNumber).map(_nsNumber) }

    /// `number` as `Self`, which is NSNumber: the aggregates are read as NSNumber, no subclass.
    private static func _nsNumber(_ number: NSNumber) -> Self { unsafeDowncast(number, to: self) }
}

/// The result of `min(ofProperty:)` or `max(ofProperty:)` of a date property read as an
/// `NSDate`, as Realm Swift gives it.
///
///     let first = events.min(ofProperty: "date") as NSDate?
extension NSDate: _HasPersistedType, MinMaxType {
    public typealias PersistedType = NSDate

    public static var _ceType: ce_type { CE_TYPE_TIMESTAMP }
    public static func _ceDefault() -> Self { _nsDate(Date()) }
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self { _nsDate(Date._ceRead(value, realm)) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { (self as Date)._ceValue(arena, realm) }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let date = value as? Date { return _nsDate(date) }
        return (value as? NSDate).map { _nsDate($0 as Date) }
    }

    /// `date` as `Self`, which is NSDate: the aggregates are read as NSDate, no subclass.
    private static func _nsDate(_ date: Date) -> Self { unsafeDowncast(NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate), to: self) }
}
