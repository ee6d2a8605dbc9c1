// ObjectId+Engine.swift — ObjectId as the engine stores it (ce_object_id): its _CValueConvertible
// conformance.

import CEngine
import Foundation

extension ObjectId {
    /// The ObjectId of the engine's twelve bytes.
    convenience init(_ id: ce_object_id) { self.init(bytes: id.bytes) }

    public static var _ceType: ce_type { CE_TYPE_OBJECT_ID }
    public static func _ceDefault() -> Self { Self(bytes: ObjectId.generate().bytes) }  // as Realm: a new ObjectId
    public static func _ceRead(_ value: ce_value, _ realm: Realm?) -> Self { Self(bytes: value.object_id.bytes) }
    public func _ceValue(_ arena: _CArena, _ realm: Realm?) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_OBJECT_ID
        value.object_id = ce_object_id(bytes: bytes)
        return value
    }
    public static func _ceFromAny(_ value: Any) -> Self? {
        if let id = value as? ObjectId { return Self(bytes: id.bytes) }
        if let string = value as? String, let id = try? ObjectId(string: string) { return Self(bytes: id.bytes) }
        return nil
    }
}
