// QueryProtocols.swift — the marker protocols that say which types a query and an aggregate take
// (_QueryComparable, _QueryNumeric, _QueryString, _QueryableCollection, _QueryableMap,
// _HasPersistedType). Internal machinery of OpenRealm.

import Foundation

// MARK: - Marker protocols

/// Types whose properties compare with `<`, `<=`, `>`, `>=` in a query: numbers, `Date`,
/// `Decimal128`, `String`, `ObjectId`, `UUID`, `AnyRealmValue` and their optionals.
/// Internal machinery of OpenRealm.
public protocol _QueryComparable: _CValueConvertible {}

/// Types whose properties take ranges (`contains(1...5)`) and collection aggregates (`.avg`) in a
/// query: numbers, `Date`, `Decimal128` and their optionals. Internal machinery of OpenRealm.
public protocol _QueryNumeric: _QueryComparable {}

/// Types whose properties take string operators (`contains`, `starts(with:)`, `like`) in a
/// query: `String` and `String?`. Internal machinery of OpenRealm.
public protocol _QueryString: _QueryComparable {}

/// Types whose properties take the substring operators (`contains`, `starts(with:)`,
/// `ends(with:)`, `equals`, `notEquals`) in a query: `String`, `Data` and their optionals.
/// Internal machinery of OpenRealm.
public protocol _QueryBinary: _CValueConvertible {}

/// The collections a query reaches into: `List`, `MutableSet` and `LinkingObjects` properties (and
/// `AnyRealmCollection`, the type `rawValue` of a collection of enums has).
/// Internal machinery of OpenRealm.
public protocol _QueryableCollection: Sequence {}

/// The dictionaries a query reaches into: `Map` properties. Internal machinery of OpenRealm.
public protocol _QueryableMap {
    /// The type of the keys.
    associatedtype Key: _MapKey
    /// The type of the values.
    associatedtype Value: RealmCollectionValue
}

extension List: _QueryableCollection {}
extension MutableSet: _QueryableCollection {}
extension LinkingObjects: _QueryableCollection {}
extension AnyRealmCollection: _QueryableCollection {}
extension Map: _QueryableMap {}
extension String: _QueryBinary {}
extension Data: _QueryBinary {}
extension Optional: _QueryBinary where Wrapped: _QueryBinary {}

/// A type that a persisted property has, naming the type it is stored as (Realm's protocol of
/// the same name). Internal machinery of OpenRealm: aggregates use it to check their types.
public protocol _HasPersistedType: _CValueConvertible {
    /// The type the value is stored as.
    associatedtype PersistedType
}
