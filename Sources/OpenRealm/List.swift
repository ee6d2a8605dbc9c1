// List.swift — the collection handle shared by List, MutableSet and Map, and List itself.

import CEngine
import Foundation

// MARK: - A managed collection

/// A collection property of a managed object, reached through a `ce_collection` handle that is
/// opened on first use in each transaction (the engine's handles belong to one transaction).
final class ManagedCollection {
    /// Where the collection is: a collection property (or the list or dictionary a mixed
    /// property holds), or the list or dictionary held by an element of another collection.
    enum Origin {
        case property(mixed: Bool)
        case nested(parent: ManagedCollection, at: NestedPosition)
    }

    /// The element of a parent collection that holds a nested collection.
    enum NestedPosition {
        case index(Int)
        case key(String)
    }

    let core: RealmCore
    /// The owning object's row, copied rather than referenced: the object caches its collections,
    /// and a reference back would keep both (and the Realm) alive forever.
    let table: TableInfo
    let key: ce_object_key
    let epoch: UInt64
    let column: ce_column_key
    let origin: Origin
    private var handle: OpaquePointer?
    private var generation: UInt64 = .max

    init(owner: ObjectBase, column: ce_column_key, mixed: Bool = false) {
        self.core = owner._core.unsafelyUnwrapped
        self.table = owner._table.unsafelyUnwrapped
        self.key = owner._key
        self.epoch = owner._epoch
        self.column = column
        self.origin = .property(mixed: mixed)
    }

    /// The collection held by the element `at` of `parent`. (It follows the position, not the
    /// element: an insertion before it in the parent makes it name another element.)
    init(parent: ManagedCollection, at position: NestedPosition) {
        self.core = parent.core
        self.table = parent.table
        self.key = parent.key
        self.epoch = parent.epoch
        self.column = parent.column
        self.origin = .nested(parent: parent, at: position)
    }

    var realm: Realm { Realm(core) }

    /// The handle, for reading.
    func read() -> OpaquePointer {
        _ = core.txn(epoch: epoch)
        return current()
    }

    /// The handle, for writing (stops outside a write transaction).
    func write() -> OpaquePointer {
        _ = core.writeTxn(epoch: epoch)
        return current()
    }

    /// The handle in the current transaction, opened if needed. A frozen Realm's threads read
    /// at once: each has its own handles, by collection.
    private func current() -> OpaquePointer {
        if let frozen = core.frozen { return frozen.collection(frozenKey) { open() } }
        if generation == core.collectionGeneration, let handle { return handle }
        let raw = open()
        core.register(raw)
        handle = raw
        generation = core.collectionGeneration
        return raw
    }

    /// What names the collection among a frozen Realm's handles.
    private var frozenKey: String {
        switch origin {
        case .property(let mixed): "\(table.tableKey)/\(key)/\(column)/\(mixed)"
        case .nested(let parent, .index(let index)): parent.frozenKey + "/#\(index)"
        case .nested(let parent, .key(let name)): parent.frozenKey + "/k\(name.utf8.count):" + name
        }
    }

    /// The same collection in `core` (a frozen or thawed Realm of the same file); nil if its
    /// object does not exist there.
    func rebased(onto core: RealmCore) -> ManagedCollection? {
        switch origin {
        case .property(let mixed):
            guard let table = core.tableInfo(for: table.schema.objectClass),
                core.objectExists(epoch: core.epoch, table: table, key: key)
            else { return nil }
            return ManagedCollection(core: core, table: table, key: key, column: column, origin: .property(mixed: mixed))
        case .nested(let parent, let position):
            guard let parent = parent.rebased(onto: core) else { return nil }
            return ManagedCollection(parent: parent, at: position)
        }
    }

    private init(core: RealmCore, table: TableInfo, key: ce_object_key, column: ce_column_key, origin: Origin) {
        self.core = core
        self.table = table
        self.key = key
        self.epoch = core.epoch
        self.column = column
        self.origin = origin
    }

    /// Opens the collection's handle in the current transaction.
    private func open() -> OpaquePointer {
        let txn = core.currentTxn()
        var raw: OpaquePointer?
        let ok: Bool
        switch origin {
        case .property(let mixed):
            ok = mixed
                ? ce_collection_open_mixed(txn, table.tableKey, key, column, &raw)
                : ce_collection_open(txn, table.tableKey, key, column, &raw)
        case .nested(let parent, .index(let index)):
            var at = ce_value.int(Int64(index))
            ok = ce_collection_open_nested(parent.current(), &at, &raw)
        case .nested(let parent, .key(let name)):
            let arena = _CArena()
            var at = arena.string(name)
            ok = ce_collection_open_nested(parent.current(), &at, &raw)
        }
        guard ok, let raw else { engineFailure() }
        return raw
    }

    /// An element read from the collection: a nested list or dictionary (in a collection of
    /// mixed values) becomes a managed collection, anything else a value of `T`.
    func element<T: _CValueConvertible>(_ value: ce_value, at position: NestedPosition, as type: T.Type) -> T {
        if value.type == CE_TYPE_LIST || value.type == CE_TYPE_DICTIONARY, let mixed = T.self as? _NestedCollectionHolder.Type {
            return mixed._nested(value.type, ManagedCollection(parent: self, at: position)) as! T
        }
        return T._ceRead(value, realm)
    }

    var count: Int {
        var count = 0
        guard ce_collection_size(read(), &count) else { engineFailure() }
        return count
    }

    func get(_ index: Int) -> ce_value {
        let collection = read()
        var value = ce_value()
        guard ce_collection_get(collection, index, &value) else { indexFailure(index, count) }
        return value
    }

    func find(_ value: inout ce_value) -> Int? {
        var index = 0
        var found = false
        guard ce_collection_find(read(), &value, &index, &found) else { engineFailure() }
        return found ? index : nil
    }

    func clear() {
        guard ce_collection_clear(write()) else { engineFailure() }
    }

    var isInvalidated: Bool { !core.objectExists(epoch: epoch, table: table, key: key) }
}

/// Element types that may hold a nested list or dictionary (AnyRealmValue).
protocol _NestedCollectionHolder {
    /// The element for a nested collection of `type` (CE_TYPE_LIST or CE_TYPE_DICTIONARY).
    static func _nested(_ type: ce_type, _ collection: ManagedCollection) -> Any
}

/// For an element that is a list or dictionary of mixed values: a copy of its contents (taken
/// before the element is written) and how to write them into the new nested collection.
func nestedContents<T>(_ element: T) -> ((ManagedCollection) -> Void)? {
    guard let mixed = element as? AnyRealmValue else { return nil }
    switch mixed {
    case .list(let list):
        let items = Array(list)
        return { List<AnyRealmValue>(managed: $0).append(objectsIn: items) }
    case .dictionary(let map):
        let entries = map.asKeyValueSequence()
        return { collection in
            let nested = Map<String, AnyRealmValue>(managed: collection)
            for (key, value) in entries { nested.updateValue(value, forKey: key) }
        }
    default:
        return nil
    }
}

/// Stops with Realm's message for an index past the end.
func indexFailure(_ index: Int, _ count: Int) -> Never {
    throwRealmException("Index \(index) is out of bounds (must be less than \(count)).")
}

/// Whether elements of `T` are embedded objects (created in place by their collection).
@inline(__always)
func isEmbedded<T: _CValueConvertible>(_ type: T.Type) -> Bool {
    T._ceLinkTarget.map { $0 is EmbeddedObject.Type } ?? false
}

/// The embedded object inside an element value (nil for nil).
func embeddedObject(_ value: Any) -> EmbeddedObject? {
    if let object = value as? EmbeddedObject { return object }
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional, let child = mirror.children.first else { return nil }
    return child.value as? EmbeddedObject
}

/// Fills a new embedded object created by a collection from an unmanaged one.
func fillEmbedded(_ core: RealmCore, _ value: Any, _ key: ce_object_key) {
    guard let object = embeddedObject(value) else { return }
    if object._table != nil {
        throwRealmException("Cannot add an existing managed embedded object to a List.")
    }
    core.fill(object, core.requireTableInfo(for: type(of: object)), key)
}

// MARK: - List

/// An ordered collection of values or objects: a `@Persisted` property of a model class, as
/// Realm's `List`. Unmanaged, it is an array; managed, each call reads or writes the database.
///
///     class Person: Object {
///         @Persisted var dogs: List<Dog>
///         @Persisted var nicknames: List<String>
///     }
///     try realm.write {
///         person.nicknames.append("Ada")
///         person.dogs.append(Dog(value: ["name": "Rex"]))   // the dog is added to the Realm
///         person.nicknames.move(from: 0, to: 1)
///     }
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection,
    CustomStringConvertible, Hashable
{
    var unmanaged: [Element]
    let managed: ManagedCollection?

    /// An empty unmanaged list.
    ///
    ///     let tags = List<String>()
    public init() {
        unmanaged = []
        managed = nil
    }

    init(managed: ManagedCollection) {
        unmanaged = []
        self.managed = managed
    }

    /// The Realm of a managed list; nil for an unmanaged one.
    public var realm: Realm? { managed?.realm }

    /// Whether the list's object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { managed?.isInvalidated ?? false }

    /// The number of elements.
    public var count: Int { managed?.count ?? unmanaged.count }

    /// 0.
    public var startIndex: Int { 0 }

    /// `count`.
    public var endIndex: Int { count }

    /// The element at `position`; setting it replaces that element (in a write transaction when
    /// managed). An index past the end is a programmer error.
    ///
    ///     person.nicknames[0] = "Countess"
    public subscript(position: Int) -> Element {
        get {
            if let managed { return managed.element(managed.get(position), at: .index(position), as: Element.self) }
            guard position >= 0, position < unmanaged.count else { indexFailure(position, unmanaged.count) }
            return unmanaged[position]
        }
        set { replace(index: position, object: newValue) }
    }

    /// The position of the first element equal to `object`, or nil.
    ///
    ///     person.nicknames.index(of: "Ada")    // 0
    public func index(of object: Element) -> Int? {
        guard let managed else { return unmanaged.firstIndex(of: object) }
        if let linked = object as Any as? ObjectBase, !linked.isManaged(by: managed.core) { return nil }
        let arena = _CArena()
        var value = object._ceValue(arena, managed.realm)
        return managed.find(&value)
    }

    /// Appends an element. An unmanaged object appended to a managed list is added to the Realm.
    ///
    ///     person.nicknames.append("Ada")
    public func append(_ object: Element) {
        insert(object, at: managed?.count ?? unmanaged.count)
    }

    /// Appends every element of a sequence.
    ///
    ///     person.nicknames.append(objectsIn: ["Ada", "Countess"])
    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for object in objects { append(object) }
    }

    /// Inserts an element at `index` (0...count).
    ///
    ///     person.nicknames.insert("First", at: 0)
    public func insert(_ object: Element, at index: Int) {
        guard let managed else {
            guard index >= 0, index <= unmanaged.count else { indexFailure(index, unmanaged.count + 1) }
            unmanaged.insert(object, at: index)
            return
        }
        let list = managed.write()
        if isEmbedded(Element.self) {
            var key: ce_object_key = 0
            guard ce_list_insert_embedded(list, index, &key) else { listFailure(index, managed.count + 1) }
            fillEmbedded(managed.core, object, key)
            return
        }
        let contents = nestedContents(object)
        let arena = managed.core.borrowArena()
        defer { managed.core.returnArena(arena) }
        var value = object._ceValue(arena, managed.realm)
        guard ce_list_insert(list, index, &value) else { listFailure(index, managed.count + 1) }
        contents?(ManagedCollection(parent: managed, at: .index(index)))
    }

    /// Replaces the element at `index`.
    ///
    ///     person.nicknames.replace(index: 0, object: "Ada")
    public func replace(index: Int, object: Element) {
        guard let managed else {
            guard index >= 0, index < unmanaged.count else { indexFailure(index, unmanaged.count) }
            unmanaged[index] = object
            return
        }
        let list = managed.write()
        if isEmbedded(Element.self) {
            var key: ce_object_key = 0
            guard ce_list_set_embedded(list, index, &key) else { listFailure(index, managed.count) }
            fillEmbedded(managed.core, object, key)
            return
        }
        let contents = nestedContents(object)
        let arena = managed.core.borrowArena()
        defer { managed.core.returnArena(arena) }
        var value = object._ceValue(arena, managed.realm)
        guard ce_list_set(list, index, &value) else { listFailure(index, managed.count) }
        contents?(ManagedCollection(parent: managed, at: .index(index)))
    }

    /// Removes the element at `index` (an embedded object is deleted; an object stays in the
    /// Realm).
    ///
    ///     person.nicknames.remove(at: 0)
    public func remove(at index: Int) {
        guard let managed else {
            guard index >= 0, index < unmanaged.count else { indexFailure(index, unmanaged.count) }
            unmanaged.remove(at: index)
            return
        }
        guard ce_list_erase(managed.write(), index) else { listFailure(index, managed.count) }
    }

    /// Removes the first element.
    public func removeFirst() {
        guard count > 0 else { throwRealmException("It is not possible to remove an object from an empty list.") }
        remove(at: 0)
    }

    /// Removes the last element.
    public func removeLast() {
        let count = self.count
        guard count > 0 else { throwRealmException("It is not possible to remove an object from an empty list.") }
        remove(at: count - 1)
    }

    /// Removes every element.
    ///
    ///     person.nicknames.removeAll()
    public func removeAll() {
        guard let managed else {
            unmanaged.removeAll()
            return
        }
        managed.clear()
    }

    /// Moves the element at `from` so that it ends up at `to`.
    ///
    ///     list.move(from: 0, to: 2)    // [a, b, c] -> [b, c, a]
    public func move(from: Int, to: Int) {
        guard let managed else {
            guard from >= 0, from < unmanaged.count else { indexFailure(from, unmanaged.count) }
            guard to >= 0, to < unmanaged.count else { indexFailure(to, unmanaged.count) }
            let element = unmanaged.remove(at: from)
            unmanaged.insert(element, at: to)
            return
        }
        guard ce_list_move(managed.write(), from, to) else { listFailure(Swift.max(from, to), managed.count) }
    }

    /// Exchanges the elements at two positions.
    ///
    ///     list.swapAt(0, 1)
    public func swapAt(_ index1: Int, _ index2: Int) {
        guard let managed else {
            guard index1 >= 0, index1 < unmanaged.count else { indexFailure(index1, unmanaged.count) }
            guard index2 >= 0, index2 < unmanaged.count else { indexFailure(index2, unmanaged.count) }
            unmanaged.swapAt(index1, index2)
            return
        }
        guard ce_list_swap(managed.write(), index1, index2) else { listFailure(Swift.max(index1, index2), managed.count) }
    }

    private func listFailure(_ index: Int, _ count: Int) -> Never {
        if ce_last_error_code() == CE_ERR_INDEX_OUT_OF_BOUNDS { indexFailure(index, count) }
        engineFailure()
    }

    /// Realm's form: `List<String> <0x...> (\n\t[0] Ada\n)`.
    public var description: String {
        describeCollection("List<\(Element.self)> <\(ObjectIdentifier(self))>", self, count: count)
    }

    /// Lists are equal when they are the same instance.
    public static func == (lhs: List, rhs: List) -> Bool { lhs === rhs }

    /// Hashes the instance.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension List: _Persistable {
    public static func _rlmShape() -> _PropertyShape { _PropertyShape(Element.self, collection: CE_COLLECTION_LIST) }
    public static func _rlmDefault() -> List { List() }
    public static var _rlmCachesManagedValue: Bool { true }
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> List {
        List(managed: ManagedCollection(owner: object, column: column.key))
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: List) {
        let elements = Array(value)
        let list = _rlmGet(object, column)
        list.removeAll()
        list.append(objectsIn: elements)
    }
    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value { .null }
    /// The new object's collection gets this one's elements: kept here while unmanaged, or read
    /// from the managed collection it was given (`new.dogs = old.dogs`), snapshot first.
    public func _rlmAfterCreate(_ object: ObjectBase, _ column: _ManagedColumn, replace: Bool) {
        List._rlmSet(object, column, self)
    }
    public static func _rlmFromAny(_ value: Any) -> List? {
        let list = List()
        guard list._assign(from: value) else { return nil }
        return list
    }
}

extension List: _AssignableCollection {
    func _assign(from value: Any) -> Bool {
        guard let elements = collectionElements(value, Element.self) else { return false }
        removeAll()
        append(objectsIn: elements)
        return true
    }
}

/// The elements of an array, list, set or other sequence, converted to `T`; nil if one is not.
func collectionElements<T: _CValueConvertible>(_ value: Any, _: T.Type) -> [T]? {
    if let same = value as? [T] { return same }
    var items: [Any] = []
    if let array = value as? [Any] {
        items = array
    } else if let sequence = value as? any Sequence {
        for item in sequence { items.append(item) }
    } else {
        return nil
    }
    var result: [T] = []
    result.reserveCapacity(items.count)
    for item in items {
        guard let converted = T._ceFromAny(item) else { return nil }
        result.append(converted)
    }
    return result
}
