// Realm.swift — Realm: an open database of objects, as in Realm Swift.

import Dispatch
import Foundation

/// An open Realm: a database of objects in a file (or in memory), used on the thread that opened
/// it, or in the blocks of the serial queue it was opened for (`Realm(configuration:queue:)`).
/// Opening the same configuration again on the same thread (or queue) gives the same instance.
///
/// A Realm is live: with `autorefresh` (the default) it moves to each version committed by
/// another thread or process by itself, on its queue or thread (see `observe(_:)` for where
/// notifications run), and `refresh()` or a write does it at once.
///
///     class Dog: Object {
///         @Persisted(primaryKey: true) var name: String
///         @Persisted var age: Int
///     }
///
///     let realm = try Realm()                        // default.realm in the current directory
///     try realm.write {
///         realm.add(Dog(value: ["name": "Rex", "age": 3]))
///     }
///     let rex = realm.object(ofType: Dog.self, forPrimaryKey: "Rex")
///     print(realm.objects(Dog.self).count)           // 1
public struct Realm: Equatable {
    let core: RealmCore

    init(_ core: RealmCore) { self.core = core }

    // MARK: Opening

    /// Opens the Realm of `Realm.Configuration.defaultConfiguration`, confined to the calling
    /// thread, or to `queue` (see `init(configuration:queue:)`).
    ///
    ///     let realm = try Realm()
    ///
    /// Throws `Realm.Error`: `.fileNotFound`, `.filePermissionDenied`, `.invalidDatabase`,
    /// `.schemaMismatch` (the models changed without a new `schemaVersion`), ...
    public init(queue: DispatchQueue? = nil) throws {
        try self.init(configuration: .defaultConfiguration, queue: queue)
    }

    /// Opens the Realm that `configuration` describes, confined to the calling thread; or, with
    /// `queue`, a serial dispatch queue: the Realm may then be used in any block of the queue,
    /// whatever thread runs it, and its notifications are delivered on the queue. It must be
    /// opened in a block of that queue (otherwise Realm's "Realm opened from incorrect dispatch
    /// queue." stops the program). A global queue is refused with Realm's message; a concurrent
    /// queue of your own cannot be told apart on Linux: do not pass one.
    ///
    ///     let realm = try Realm(configuration: .init(inMemoryIdentifier: "test"))
    ///
    ///     let queue = DispatchQueue(label: "db")
    ///     queue.async {
    ///         let realm = try! Realm(configuration: configuration, queue: queue)
    ///         token = realm.observe { _, _ in print("changed") }     // runs on `queue`
    ///     }
    ///     queue.async {
    ///         let realm = try! Realm(configuration: configuration, queue: queue)   // the same instance
    ///         try! realm.write { realm.add(Dog()) }
    ///     }
    public init(configuration: Realm.Configuration, queue: DispatchQueue? = nil) throws {
        core = try RealmCore.instance(for: configuration, queue: queue)
    }

    /// Opens the Realm in the file at `fileURL`, with the default configuration's other options.
    ///
    ///     let realm = try Realm(fileURL: URL(fileURLWithPath: "/data/app.realm"))
    public init(fileURL: URL) throws {
        var configuration = Realm.Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    /// The configuration the Realm was opened with.
    public var configuration: Realm.Configuration { core.configuration }

    /// The schema of the Realm: the model classes it holds.
    ///
    ///     realm.schema["Dog"]?.properties.map(\.name)    // ["name", "age"]
    public var schema: Schema {
        Schema(objectSchema: core.schemaInfos.map(\.publicSchema))
    }

    /// Whether the Realm holds no objects.
    ///
    ///     try Realm(configuration: .init(inMemoryIdentifier: "new")).isEmpty   // true
    public var isEmpty: Bool { core.isEmpty }

    /// Two Realms are equal when they are the same instance (the same file, on the same thread or
    /// queue).
    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.core === rhs.core }

    // MARK: Transactions

    /// Whether the Realm is in a write transaction.
    ///
    ///     try realm.write { realm.isInWriteTransaction }    // true
    public var isInWriteTransaction: Bool { core.isInWriteTransaction }

    /// Runs `block` in a write transaction and commits it; returns the block's value. If the
    /// block throws, the transaction is cancelled and the error rethrown. A write inside another
    /// write of the same Realm is a programmer error. Like `beginWrite()`, it first moves the
    /// Realm to the latest version, delivering its notifications.
    ///
    ///     let dog = try realm.write {
    ///         realm.create(Dog.self, value: ["name": "Rex"])
    ///     }
    ///
    /// `tokens`: notification tokens of this Realm (its `observe` and its collections' and
    /// objects') whose blocks are not called for this commit (see `commitWrite(withoutNotifying:)`).
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws -> Result {
        try core.beginWrite()
        let result: Result
        do {
            result = try block()
        } catch {
            if core.isInWriteTransaction { core.cancelWrite() }
            throw error
        }
        if core.isInWriteTransaction { try core.commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Begins a write transaction: changes made until `commitWrite()` are committed together, or
    /// discarded by `cancelWrite()`. Waits while another thread or process writes. As in Realm,
    /// it first moves the Realm to the latest version, as `refresh()` does, delivering the
    /// notifications of that.
    ///
    ///     realm.beginWrite()
    ///     realm.add(dog)
    ///     try realm.commitWrite()
    public func beginWrite() {
        do {
            try core.beginWrite()
        } catch {
            throwRealmException(error.message)
        }
    }

    /// Commits the write transaction: the changes are durable when it returns. Throws
    /// `Realm.Error` (`.outOfDiskSpace`, `.fileAccess`) if the commit fails; nothing is changed
    /// then.
    ///
    /// As in Realm, the `observe` blocks of this Realm instance are called (`.didChange`) before
    /// it returns; the blocks of collections and objects, and of other threads' and processes'
    /// Realms, are called later, on their queue or thread. The blocks of `tokens` (which must be
    /// tokens of this Realm, otherwise Realm's "Incorrect Realm: only notifications for the Realm
    /// being modified can be skipped." stops the program) are not called for this commit.
    ///
    ///     try realm.commitWrite()
    ///     try realm.commitWrite(withoutNotifying: [tableToken])   // the UI made the change already
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        try core.commitWrite(withoutNotifying: tokens)
    }

    /// Discards the changes of the write transaction. Objects added in it are invalidated.
    ///
    ///     realm.beginWrite()
    ///     realm.add(dog)
    ///     realm.cancelWrite()          // dog.isInvalidated == true
    public func cancelWrite() {
        core.cancelWrite()
    }

    /// Moves the Realm to the latest committed version (writes of other threads and processes
    /// become visible) and delivers the notifications of that before it returns; returns whether
    /// the version changed. Called from a notification block, it does nothing and returns false
    /// (as in Realm).
    ///
    ///     if realm.refresh() { print("updated") }
    @discardableResult
    public func refresh() -> Bool { core.refresh() }

    /// Whether the Realm moves to each new version by itself (true by default, as in Realm).
    ///
    /// When another thread or process commits, a notifier thread of the file wakes and schedules
    /// the refresh on the Realm's queue, or on its thread's run loop: the Realm moves to the new
    /// version there and delivers the notifications. A thread that does not run its run loop
    /// gets the new version at its next `refresh()` or write (see `observe(_:)`). When false,
    /// the Realm stays at its version until `refresh()` or a write, and its `observe` blocks get
    /// `.refreshRequired` when another thread or process commits. A frozen Realm never
    /// refreshes: its `autorefresh` is false, and setting it to true stops with Realm's message.
    ///
    ///     realm.autorefresh = false
    ///     let token = realm.observe { notification, realm in
    ///         if notification == .refreshRequired { realm.refresh() }
    ///     }
    public var autorefresh: Bool {
        get { core.autorefresh }
        nonmutating set { core.autorefresh = newValue }
    }

    /// Releases the version the Realm reads: every object, list and result read from it is
    /// invalidated. The next access reads the latest version. A write transaction is cancelled.
    ///
    ///     realm.invalidate()
    ///     dog.isInvalidated    // true
    public func invalidate() { core.invalidate() }

    // MARK: Adding and creating

    /// Adds an unmanaged object, and the unmanaged objects it links to, to the Realm. With a
    /// primary key, `update` says what happens when an object with that key exists: `.error` (a
    /// programmer error), `.modified` (changed properties are written) or `.all`.
    ///
    ///     try realm.write {
    ///         realm.add(Dog(value: ["name": "Rex", "age": 3]))
    ///         realm.add(Dog(value: ["name": "Rex", "age": 4]), update: .modified)
    ///     }
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        if update != .error { Realm.requirePrimaryKey(type(of: object)) }
        core.add(object, policy: update.cValue, in: self)
    }

    /// Adds each object of a sequence, as `add(_:update:)`.
    ///
    ///     try realm.write { realm.add([rex, fido]) }
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Iterator.Element: Object {
        for object in objects {
            if update != .error { Realm.requirePrimaryKey(type(of: object)) }
            core.add(object, policy: update.cValue, in: self)
        }
    }

    /// Stops with Realm's message when an update policy other than `.error` is used for a class
    /// without a primary key.
    private static func requirePrimaryKey(_ type: ObjectBase.Type) {
        let info = ObjectSchemaInfo.of(type)
        if info.primaryKey == nil {
            throwRealmException("'\(info.className)' does not have a primary key and can not be updated")
        }
    }

    /// Creates an object of `type` from a dictionary, an array in property order or another
    /// object, and returns it managed. With a primary key and `.modified` or `.all`, an existing
    /// object with that key is updated instead (only the properties in `value`).
    ///
    ///     let rex = try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 3]) }
    ///     try realm.write { realm.create(Dog.self, value: ["name": "Rex", "age": 4], update: .modified) }
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        if update != .error { Realm.requirePrimaryKey(type) }
        core.checkInWrite()
        // As in Realm, the unmanaged objects in `value`, and those of other Realms, are copied:
        // never added themselves.
        // An object given as the value is always copied (with its embedded objects).
        let value = value is ObjectBase || holdsForeignObject(value) ? copyingForeignObjects(value) : value
        let info = ObjectSchemaInfo.of(type)
        if update != .error, let pk = info.primaryKey {
            var keyValue: Any?
            if let dictionary = value as? [String: Any] {
                keyValue = dictionary[info.properties[pk].name]
            } else if let array = value as? [Any] {
                let stored = info.properties.indices.filter { info.properties[$0].isStored }
                if let position = stored.firstIndex(of: pk), position < array.count { keyValue = array[position] }
            } else if let object = value as? ObjectBase {
                keyValue = object[info.properties[pk].name]
            }
            if let keyValue, let existing = object(ofType: type, forPrimaryKey: keyValue) {
                Realm.update(existing, from: value, policy: update)
                return existing
            }
        }
        let object = type.init()
        object._assign(from: value)
        core.add(object, policy: update.cValue)
        return object
    }

    /// Whether the property at `index`, a scalar or a to-one link (not a collection), holds the
    /// same value in `existing` and `copy` (`.modified` then leaves it alone): equal values, or
    /// no object in both, or the same managed object.
    static func holdsSameValue(_ existing: ObjectBase, _ copy: ObjectBase, _ index: Int) -> Bool {
        let shape = existing._schemaInfo.properties[index].shape
        if shape.holdsOneLink {
            let old = unwrapOptional(existing._value(of: index)) as? ObjectBase
            let new = unwrapOptional(copy._value(of: index)) as? ObjectBase
            guard let old, let new else { return old == nil && new == nil }
            return new._table != nil && old.isSameObject(as: new)
        }
        guard shape.holdsOneScalar,
              let old = existing._value(of: index) as? AnyHashable, let new = copy._value(of: index) as? AnyHashable
        else { return false }
        return old == new
    }

    /// Whether `value` holds an object that is not managed by this Realm (unmanaged, or of
    /// another Realm): is one, or has one in an array, a dictionary, a list or a set (such an
    /// object's own links are not looked into: it is copied).
    private func holdsForeignObject(_ value: Any) -> Bool {
        if let object = value as? ObjectBase { return isForeign(object) }
        if value is String || value is Data { return false }
        if let dictionary = value as? [String: Any] { return dictionary.values.contains { holdsForeignObject($0) } }
        if let array = value as? [Any] { return array.contains { holdsForeignObject($0) } }
        // A map's values (its elements are key-value entries, not the objects).
        if let map = value as? _MapEntriesReadable { return map._entriesAsAny.contains { holdsForeignObject($0.1) } }
        if let sequence = value as? any Sequence { return sequence.contains { holdsForeignObject($0) } }
        return false
    }

    /// Whether `object` must be copied to be linked from an object of this Realm: unmanaged, of
    /// another Realm, or embedded (an embedded object has one parent).
    private func isForeign(_ object: ObjectBase) -> Bool {
        object._table == nil || object._core !== core || object is EmbeddedObject
    }

    /// `value` (an object is copied whatever it is) with each foreign object in it replaced by a
    /// new unmanaged copy, whose links, lists and sets are copied the same way (an object reached
    /// twice is copied once; the sources are kept in `copies` while it runs, so that no accessor
    /// read on the way is freed and its address reused by the next).
    private func copyingForeignObjects(_ value: Any) -> Any {
        var copies: [ObjectIdentifier: (source: ObjectBase, copy: ObjectBase)] = [:]
        return copyingForeignObjects(value, &copies, always: true)
    }

    private func copyingForeignObjects(_ value: Any, _ copies: inout [ObjectIdentifier: (source: ObjectBase, copy: ObjectBase)], always: Bool = false) -> Any {
        if let object = value as? ObjectBase {
            if !always, !isForeign(object) { return object }
            if let known = copies[ObjectIdentifier(object)] { return known.copy }
            let copy = type(of: object).init()
            copies[ObjectIdentifier(object)] = (object, copy)
            for (index, property) in object._schemaInfo.properties.enumerated() where property.isStored {
                copy._setValue(copyingForeignObjects(object._value(of: index), &copies), of: index)
            }
            return copy
        }
        if !holdsForeignObject(value) { return value }
        if let dictionary = value as? [String: Any] { return dictionary.mapValues { copyingForeignObjects($0, &copies) } }
        if let array = value as? [Any] { return array.map { copyingForeignObjects($0, &copies) } }
        if let map = value as? _MapEntriesReadable {
            var entries: [String: Any] = [:]
            for (key, item) in map._entriesAsAny { entries[key] = copyingForeignObjects(item, &copies) }
            return entries
        }
        if let sequence = value as? any Sequence {
            var items: [Any] = []
            for item in sequence { items.append(copyingForeignObjects(item, &copies)) }
            return items
        }
        return value
    }

    // MARK: Deleting

    /// Deletes an object from the Realm; it is invalidated. Its embedded objects go with it,
    /// links to it become nil.
    ///
    ///     try realm.write { realm.delete(rex) }
    public func delete(_ object: ObjectBase) {
        core.delete(object)
    }

    /// Deletes every object of a sequence (a Results, a List, an array...).
    ///
    ///     try realm.write { realm.delete(realm.objects(Dog.self)) }
    public func delete<S: Sequence>(_ objects: S) where S.Iterator.Element: ObjectBase {
        core.checkThread()
        // Collect first: deleting changes the live collections being iterated.
        let all = Array(objects)
        for object in all { core.delete(object) }
    }

    /// Deletes every object of the Realm.
    ///
    ///     try realm.write { realm.deleteAll() }
    public func deleteAll() {
        core.deleteAll()
    }

    // MARK: Reading

    /// Every object of `type` in the Realm, as a live `Results` (in creation order).
    ///
    ///     let dogs = realm.objects(Dog.self)
    ///     print(dogs.count, dogs.first?.name ?? "-")
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        core.checkThread()
        return Results(core: core, objectClass: type)
    }

    /// The object of `type` whose primary key is `key`, or nil. A class without a primary key, or
    /// a key of the wrong type, is a programmer error.
    ///
    ///     let rex = realm.object(ofType: Dog.self, forPrimaryKey: "Rex")
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        object(ofSchema: ObjectSchemaInfo.of(type), in: { core.tableInfo(for: type) }, forPrimaryKey: key, of: KeyType.self) as! Element?
    }

    /// The object of the class `info` (whose table `table` gives, nil while the file has none)
    /// whose primary key is `key` (of the static type `keyType`, for messages), or nil; Realm's
    /// messages for a class without a primary key and a key of the wrong type.
    func object(ofSchema info: ObjectSchemaInfo, in table: () -> TableInfo?, forPrimaryKey key: Any, of keyType: Any.Type) -> ObjectBase? {
        guard let pk = info.primaryKey else {
            throwRealmException("\(info.className) does not have a primary key")
        }
        let property = info.properties[pk]
        if !property.shape.nullable, key is NSNull || unwrapOptional(key) == nil {
            throwRealmException("Invalid null value for non-nullable primary key.")
        }
        // A frozen Realm's threads read at once: not its shared scratch arena.
        let arena = core.frozen == nil ? core.borrowArena() : _CArena()
        defer { core.returnArena(arena) }
        guard var value = property.field._rlmCValue(fromAny: key, arena, self) else {
            throwRealmException(
                "Invalid value '\(key)' of type '\(keyType)' for \(property.valueTypeText) property '\(info.className).\(property.name)'.")
        }
        guard let table = table() else { return nil }
        guard let objectKey = core.findObject(table, primaryKey: &value, className: info.className) else { return nil }
        return core.makeObject(table, objectKey)
    }
}
