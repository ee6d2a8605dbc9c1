// PropertyShape.swift — _PropertyShape: what a @Persisted type stores (engine type, nullability,
// collection kind, link target).

import CEngine

// MARK: - The shape of a property type

/// What a `@Persisted` type stores: the engine type, nullability, collection kind and link target.
/// Internal machinery of OpenRealm.
public struct _PropertyShape {
    var type: ce_type
    var nullable: Bool
    var collection: ce_collection_type = CE_COLLECTION_NONE
    var linkTarget: ObjectBase.Type?
    /// The name of the link target's table when it is no model class's (a `DynamicObject`
    /// property read from the file: `linkTarget` is then `DynamicObject`).
    var linkTargetName: String?
    var isLinkingObjects = false

    init(type: ce_type, nullable: Bool, linkTarget: ObjectBase.Type?) {
        self.type = type
        self.nullable = nullable
        self.linkTarget = linkTarget
    }

    init<T: _CValueConvertible>(_ type: T.Type, collection: ce_collection_type = CE_COLLECTION_NONE) {
        self.init(type: T._ceType, nullable: T._ceNullable, linkTarget: T._ceLinkTarget)
        self.collection = collection
    }

    /// Whether the property holds one value that is not a link (no collection, no object).
    var holdsOneScalar: Bool { collection == CE_COLLECTION_NONE && type != CE_TYPE_LINK && !isLinkingObjects }

    /// Whether the property is a to-one link (an object or an embedded object).
    var holdsOneLink: Bool { collection == CE_COLLECTION_NONE && type == CE_TYPE_LINK && !isLinkingObjects }

    /// A list, set or map property.
    var isCollection: Bool { collection != CE_COLLECTION_NONE }
}
