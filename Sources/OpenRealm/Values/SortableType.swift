// SortableType.swift — SortableType: the types whose collections can be sorted and made distinct.

import Foundation

/// A type whose values can be sorted or made distinct directly (Realm's protocol of the same
/// name): numbers, strings, data, dates, Decimal128, ObjectId, UUID, Bool, AnyRealmValue and
/// their optionals.
///
///     func smallestFirst<T: RealmCollectionValue & SortableType>(_ list: List<T>) -> [T] {
///         list.sorted(by: { "\($0)" < "\($1)" })
///     }
public protocol SortableType {}

extension Int: SortableType {}
extension Int8: SortableType {}
extension Int16: SortableType {}
extension Int32: SortableType {}
extension Int64: SortableType {}
extension Float: SortableType {}
extension Double: SortableType {}
extension Bool: SortableType {}
extension String: SortableType {}
extension Data: SortableType {}
extension Date: SortableType {}
extension UUID: SortableType {}
extension Decimal128: SortableType {}
extension ObjectId: SortableType {}
extension AnyRealmValue: SortableType {}
extension Optional: SortableType where Wrapped: SortableType {}
