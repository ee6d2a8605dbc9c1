// Realm+Update.swift — create(_:value:update:) of an object that exists: the values given are
// written to it, and with `.modified` its embedded objects (and lists of them) are updated in
// place and its dictionaries take the keys given, as realm-core's Object::create with a
// diffing policy.

import Foundation

extension Realm {
    /// Writes the properties `value` gives (a dictionary's keys, an array's positions, all of an
    /// object's) to the managed object `existing`, as realm-core's Object::create of an existing
    /// object: properties not given keep their values. `.all` sets every property given (each a
    /// change for the observers, even to the value it had) and replaces embedded objects;
    /// `.modified` leaves equal values alone and updates the embedded objects already there in
    /// place (those of a list position by position: extra values are appended, extra objects
    /// removed), so that they keep their identity and the values not given; a dictionary
    /// property takes the keys given and keeps the others (realm-core's Dictionary::assign).
    static func update(_ existing: ObjectBase, from value: Any, policy: UpdatePolicy) {
        let info = existing._schemaInfo
        let copy = type(of: existing).init()
        copy._assign(from: value)
        let stored = info.properties.indices.filter { info.properties[$0].isStored && $0 != info.primaryKey }
        var given: [(index: Int, value: Any)] = []
        switch value {
        case let dictionary as [String: Any]:
            // Keys that name no persisted property are ignored, as Realm does.
            for (name, propertyValue) in dictionary {
                guard let index = info.indexByName[name], stored.contains(index) else { continue }
                given.append((index, propertyValue))
            }
        case let array as [Any]:
            let positions = info.properties.indices.filter { info.properties[$0].isStored }
            for (index, propertyValue) in zip(positions, array) where index != info.primaryKey {
                given.append((index, propertyValue))
            }
        default:
            given = stored.map { ($0, copy._value(of: $0)) }
        }
        for (index, newValue) in given {
            if policy == .modified {
                if updateEmbeddedInPlace(existing, index, newValue) { continue }
                if let map = existing._value(of: index) as? _MergingMap, let entries = newValue as? [String: Any],
                   map._merge(entries, updateEmbedded: { update($0, from: $1, policy: .modified) }) {
                    continue
                }
                if holdsSameValue(existing, copy, index) { continue }
            }
            existing._setValue(newValue, of: index)
        }
    }

    /// With `.modified`: updates in place the embedded object the property at `index` holds
    /// (or those of its list) from `newValue`; false when the property is no embedded link or
    /// list, holds no embedded object, or `newValue` is nil (the property is then set as any).
    private static func updateEmbeddedInPlace(_ existing: ObjectBase, _ index: Int, _ newValue: Any) -> Bool {
        let shape = existing._schemaInfo.properties[index].shape
        guard let target = shape.linkTarget, target is EmbeddedObject.Type,
              let newValue = unwrapOptional(newValue), !(newValue is NSNull)
        else { return false }
        if shape.holdsOneLink {
            guard let current = unwrapOptional(existing._value(of: index)) as? ObjectBase else { return false }
            if let object = newValue as? ObjectBase, object === current { return true }
            update(current, from: newValue, policy: .modified)
            return true
        }
        guard let list = existing._value(of: index) as? _EmbeddedObjectList,
              !(newValue is String), !(newValue is [String: Any]), let elements = newValue as? any Sequence
        else { return false }
        var values: [Any] = []
        for element in elements { values.append(element) }
        guard list._takesEmbedded(values.dropFirst(list._embeddedCount)) else { return false }
        for (position, element) in values.enumerated() {
            if position < list._embeddedCount {
                update(list._embeddedObject(at: position), from: element, policy: .modified)
            } else {
                _ = list._appendEmbedded(element)
            }
        }
        while list._embeddedCount > values.count { list._removeLastEmbedded() }
        return true
    }
}

/// A list of embedded objects seen without its element type, for `create(_:value:update:)`.
protocol _EmbeddedObjectList: AnyObject {
    var _embeddedCount: Int { get }
    func _embeddedObject(at index: Int) -> ObjectBase
    /// Whether each value converts to an element (a dictionary, an array or an object).
    func _takesEmbedded<S: Sequence>(_ values: S) -> Bool where S.Element == Any
    func _appendEmbedded(_ value: Any) -> Bool
    func _removeLastEmbedded()
}

extension List: _EmbeddedObjectList {
    var _embeddedCount: Int { count }
    func _embeddedObject(at index: Int) -> ObjectBase { self[index] as! ObjectBase }
    func _takesEmbedded<S: Sequence>(_ values: S) -> Bool where S.Element == Any {
        values.allSatisfy { Element._ceFromAny($0) != nil }
    }
    func _appendEmbedded(_ value: Any) -> Bool {
        guard let element = Element._ceFromAny(value) else { return false }
        append(element)
        return true
    }
    func _removeLastEmbedded() { removeLast() }
}

/// A dictionary property seen without its types, for `create(_:value:update: .modified)`.
protocol _MergingMap: AnyObject {
    /// Sets the entries given and keeps the others; an embedded object at a key given is updated
    /// in place by `updateEmbedded`, an equal value left alone. False, with nothing changed, when
    /// a value does not convert to the map's value type.
    func _merge(_ entries: [String: Any], updateEmbedded: (ObjectBase, Any) -> Void) -> Bool
}

extension Map: _MergingMap {
    func _merge(_ entries: [String: Any], updateEmbedded: (ObjectBase, Any) -> Void) -> Bool {
        var converted: [(key: Key, value: Value, source: Any?)] = []
        for (name, value) in entries {
            // Null is nil in a map of optionals (the key stays), as Realm.
            let source = unwrapOptional(value).flatMap { $0 is NSNull ? nil : $0 }
            guard let element = Value._ceFromAny(source ?? NSNull()) else { return false }
            converted.append((Key(_mapKeyString: name), element, source))
        }
        for (key, element, source) in converted {
            let current = self[key].flatMap { unwrapOptional($0) }
            if let embedded = current as? EmbeddedObject, let source {
                if let object = source as? ObjectBase, object === embedded { continue }
                updateEmbedded(embedded, source)
                continue
            }
            if let old = current as? AnyHashable, let new = unwrapOptional(element) as? AnyHashable, old == new { continue }
            updateValue(element, forKey: key)
        }
        return true
    }
}
