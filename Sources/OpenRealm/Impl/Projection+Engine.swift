// Projection+Engine.swift — how a Projection is stored and read where its object would be: as a
// link to the object (so Results, lists and queries of projections read their objects).

import CEngine
import Foundation

extension Projection {
    /// A link to the object.
    public static var _ceType: ce_type { Root._ceType }
    /// Links name `Root`.
    public static var _ceLinkTarget: ObjectBase.Type? { Root.self }
    /// A projection of a new object.
    public static func _ceDefault() -> Self { Self(projecting: Root._ceDefault()) }
    /// A projection of the object a link names.
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self { Self(projecting: Root._ceRead(value, realm)) }
    /// The link to the object.
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value { rootObject._ceValue(arena, realm) }
    /// A projection of an object (or of one made from a dictionary or array).
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let projection = value as? Self { return projection }
        return Root._ceFromAny(value).map { Self(projecting: $0) }
    }
}
