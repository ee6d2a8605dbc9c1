// CollectionKeyValueOperators.swift — the key-value coding collection operators of
// `value(forKeyPath:)` on a collection of objects (`@min`, `@max`, `@sum`, `@avg`,
// `@unionOfObjects`, `@distinctUnionOfObjects`), as Realm's collections answer them.

import CEngine
import Foundation

/// The value of a collection operator key path (`"@max.age"`) on `collection`; nil when
/// `keyPath` does not start with one of the operators it knows (the caller reads it as a
/// property path then). The aggregates are the collection's own (`min(ofProperty:)` and the
/// others, with their messages), of the property's stored type; an empty collection gives nil
/// for `@min`, `@max` and `@avg`.
func collectionOperatorValue<C: RealmCollection>(_ collection: C, _ keyPath: String) -> Any?? {
    guard keyPath.hasPrefix("@"), let dot = keyPath.firstIndex(of: ".") else { return nil }
    let operation = keyPath[..<dot]
    let property = String(keyPath[keyPath.index(after: dot)...])
    switch operation {
    case "@unionOfObjects":
        return .some(presentValues(collection, property))
    case "@distinctUnionOfObjects":
        var seen = Set<AnyHashable>()
        return .some(presentValues(collection, property).filter { value in
            guard let hashable = value as? AnyHashable else { return true }
            return seen.insert(hashable).inserted
        })
    case "@min", "@max", "@sum", "@avg":
        return .some(aggregateOperator(collection, String(operation), property))
    default:
        return nil
    }
}

/// The values of `property` of the collection's objects, nil values left out (as Foundation's
/// union operators leave them out).
private func presentValues<C: RealmCollection>(_ collection: C, _ property: String) -> [Any] {
    (collection.value(forKeyPath: property) as? [Any] ?? []).filter { !($0 is NSNull) }
}

/// `@min`, `@max`, `@sum` or `@avg` of `property`, read as the Swift type of its stored type.
private func aggregateOperator<C: RealmCollection>(_ collection: C, _ operation: String, _ property: String) -> Any? {
    var type = CE_TYPE_INT
    if let objectClass = C.Element.self as? ObjectBase.Type {
        let info = ObjectSchemaInfo.of(objectClass)
        if let index = info.indexByName[property] { type = info.properties[index].shape.type }
    }
    switch (operation, type) {
    case ("@sum", CE_TYPE_FLOAT): return collection.sum(ofProperty: property) as Float
    case ("@sum", CE_TYPE_DOUBLE): return collection.sum(ofProperty: property) as Double
    case ("@sum", CE_TYPE_DECIMAL128): return collection.sum(ofProperty: property) as Decimal128
    case ("@sum", _): return collection.sum(ofProperty: property) as Int
    case ("@avg", CE_TYPE_DECIMAL128): return collection.average(ofProperty: property) as Decimal128?
    case ("@avg", _): return collection.average(ofProperty: property) as Double?
    case (_, CE_TYPE_FLOAT): return minOrMax(collection, operation, property, as: Float.self)
    case (_, CE_TYPE_DOUBLE): return minOrMax(collection, operation, property, as: Double.self)
    case (_, CE_TYPE_DECIMAL128): return minOrMax(collection, operation, property, as: Decimal128.self)
    case (_, CE_TYPE_TIMESTAMP): return minOrMax(collection, operation, property, as: Date.self)
    case (_, CE_TYPE_MIXED): return minOrMax(collection, operation, property, as: AnyRealmValue.self)
    default: return minOrMax(collection, operation, property, as: Int.self)
    }
}

private func minOrMax<C: RealmCollection, T: _HasPersistedType>(_ collection: C, _ operation: String, _ property: String,
                                                               as _: T.Type) -> T? where T.PersistedType: MinMaxType {
    operation == "@min" ? collection.min(ofProperty: property) : collection.max(ofProperty: property)
}
