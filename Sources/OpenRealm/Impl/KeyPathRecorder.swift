// KeyPathRecorder.swift — how Swift key paths map to property names: a recording instance reads
// the key path.

import CEngine
import Foundation
import Synchronization

// MARK: - Property names of key paths

/// Reads a key path on an unmanaged instance whose accessors report the properties they reach:
/// each `@Persisted` getter of such an instance records its property's name (through its token,
/// as schema discovery maps it) and, for a to-one link, returns another recording instance so
/// that the key path can go on (`\Person.dog?.name` is `dog.name`); for a `List`, `MutableSet`,
/// `Map` or `LinkingObjects` of objects, a collection whose one element is a recording instance,
/// so that a path through an element goes on as in Realm (`\Person.dogs[0].name`,
/// `\Person.dogSet.first?.name`, `\Person.dogMap["a"]??.name` and `\Dog.owners[0].name` are
/// `dogs.name`, `dogSet.name`, `dogMap.name` and `owners.name`).
@usableFromInline
final class KeyPathRecorder {
    private(set) var names: [String] = []
    /// Whether the reads formed one path: each property read on the object the previous read
    /// returned (a computed property that reads several properties is not a path).
    private(set) var isPath = true
    /// The instance the next read must come from: the root, then each linked instance.
    private var next: ObjectIdentifier?

    /// A recording instance of `objectClass`, from which the next read must come.
    func instance(of objectClass: ObjectBase.Type) -> ObjectBase {
        resetPersistedTokens()
        let object = objectClass.init()
        object._keyPathRecorder = self
        next = ObjectIdentifier(object)
        return object
    }

    /// Records the property of `object` whose wrapper has `token`; returns a recording instance
    /// of the target for a to-one link, nil otherwise (the caller returns the unmanaged value).
    @usableFromInline
    func record<Value: _Persistable>(_ object: ObjectBase, token: Int32, _: Value.Type) -> Value? {
        if next != ObjectIdentifier(object) { isPath = false }
        next = nil
        let info = ObjectSchemaInfo.of(type(of: object))
        let property = info.properties[info.propertyIndexByToken[Int(token)]]
        let shape = Value._rlmShape()
        names.append(property.name)
        guard let target = shape.linkTarget else { return nil }
        if shape.isLinkingObjects {
            return (Value.self as? _KeyPathRecordingLinks.Type)?._recording(instance(of: target)) as? Value
        }
        if shape.collection == CE_COLLECTION_NONE { return instance(of: target) as? Value }
        guard let collection = Value._rlmDefault() as? _KeyPathRecordingCollection else { return nil }
        collection._holdForRecording(instance(of: target))
        return collection as? Value
    }
}

/// An unmanaged collection that holds a recording instance, the element a key path reads next.
protocol _KeyPathRecordingCollection: AnyObject {
    func _holdForRecording(_ element: ObjectBase)
}

extension List: _KeyPathRecordingCollection {
    func _holdForRecording(_ element: ObjectBase) {
        if let element = element as? Element { unmanaged = [element] }
    }
}

extension MutableSet: _KeyPathRecordingCollection {
    func _holdForRecording(_ element: ObjectBase) {
        if let element = element as? Element { unmanaged = [element] }
    }
}

extension Map: _KeyPathRecordingCollection {
    func _holdForRecording(_ element: ObjectBase) {
        if let element = element as? Value { recordingValue = element }
    }
}

/// Linking objects whose one element is a recording instance.
protocol _KeyPathRecordingLinks {
    static func _recording(_ element: ObjectBase) -> Self
}

extension LinkingObjects: _KeyPathRecordingLinks {
    static func _recording(_ element: ObjectBase) -> LinkingObjects {
        LinkingObjects(recording: element as! Element)
    }
}

/// A key path as a dictionary key (key paths are immutable values: safe to share).
private struct KeyPathKey: Hashable, @unchecked Sendable {
    let keyPath: AnyKeyPath
}

/// Key paths already read: a key path is read once per process.
private let propertyPaths = Mutex<[KeyPathKey: String]>([:])

/// The property path (`"age"`, `"dog.name"`) a Swift key path of a model class reaches. A key
/// path that reaches no `@Persisted` property is a programmer error.
///
///     propertyPath(of: \Person.dog?.name) == "dog.name"
func propertyPath<Root: ObjectBase>(of keyPath: PartialKeyPath<Root>) -> String {
    let key = KeyPathKey(keyPath: keyPath)
    if let known = propertyPaths.withLock({ $0[key] }) { return known }
    let (names, isPath) = recordedPropertyNames(of: keyPath)
    guard !names.isEmpty, isPath else {
        throwRealmException("Key path '\(keyPath)' does not reach a persisted property of '\(ObjectSchemaInfo.className(of: Root.self))'.")
    }
    let path = names.joined(separator: ".")
    propertyPaths.withLock { $0[key] = path }
    return path
}

/// The names of the `@Persisted` properties reading `keyPath` reaches, in order (none: it reads
/// no persisted property), and whether they form one path.
///
///     recordedPropertyNames(of: \Person.name.count) == (["name"], true)
func recordedPropertyNames<Root: ObjectBase>(of keyPath: PartialKeyPath<Root>) -> (names: [String], isPath: Bool) {
    recordedPropertyNames(Root.self) { _ = ($0 as! Root)[keyPath: keyPath] }
}

/// The names of the `@Persisted` properties `read` reaches on a recording instance of
/// `objectClass` (a projection's key path reads through one), and whether they form one path.
func recordedPropertyNames(_ objectClass: ObjectBase.Type, _ read: (ObjectBase) -> Void) -> (names: [String], isPath: Bool) {
    let recorder = KeyPathRecorder()
    let root = recorder.instance(of: objectClass)
    withExtendedLifetime(root) { read($0) }
    return (recorder.names, recorder.isPath)
}
