// RealmCollectionValueInsideOptional.swift — _RealmCollectionValueInsideOptional: the collection
// element types that may also be optional.

import Foundation

/// A collection element type that may also appear optional (`List<Int?>`, `Map<String, Dog?>`):
/// every stored type but `AnyRealmValue`, whose nil is `.none` (Realm's protocol of the same name).
///
///     func optionals<T: _RealmCollectionValueInsideOptional>(_: T.Type) -> List<T?> { List<T?>() }
public protocol _RealmCollectionValueInsideOptional: RealmCollectionValue
where PersistedType: _RealmCollectionValueInsideOptional {}

extension Int: _RealmCollectionValueInsideOptional {}
extension Int8: _RealmCollectionValueInsideOptional {}
extension Int16: _RealmCollectionValueInsideOptional {}
extension Int32: _RealmCollectionValueInsideOptional {}
extension Int64: _RealmCollectionValueInsideOptional {}
extension Float: _RealmCollectionValueInsideOptional {}
extension Double: _RealmCollectionValueInsideOptional {}
extension Bool: _RealmCollectionValueInsideOptional {}
extension String: _RealmCollectionValueInsideOptional {}
extension Data: _RealmCollectionValueInsideOptional {}
extension Date: _RealmCollectionValueInsideOptional {}
extension UUID: _RealmCollectionValueInsideOptional {}
extension Decimal128: _RealmCollectionValueInsideOptional {}
extension ObjectId: _RealmCollectionValueInsideOptional {}
extension Object: _RealmCollectionValueInsideOptional {}
extension EmbeddedObject: _RealmCollectionValueInsideOptional {}

extension Object {
    /// Objects are stored as links to objects.
    public typealias PersistedType = Object
}

extension EmbeddedObject {
    /// Embedded objects are stored as embedded objects.
    public typealias PersistedType = EmbeddedObject
}
