// ObjectKeyIdentifiable.swift — ObjectKeyIdentifiable: a stable `id` for `Identifiable`.

import Foundation

/// Gives objects a stable `id` for `Identifiable` (SwiftUI lists), as Realm's
/// `ObjectKeyIdentifiable`: the object's key in its table once managed, a per-instance value
/// while unmanaged.
///
///     class Dog: Object, ObjectKeyIdentifiable {
///         @Persisted var name: String
///     }
///     ForEach(dogs) { dog in Text(dog.name) }
public protocol ObjectKeyIdentifiable: Identifiable {}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// The object's key once managed (stable for the object's life), else the instance's address.
    public var id: UInt64 {
        if _table != nil { return UInt64(bitPattern: _key) }
        return UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
    }
}
