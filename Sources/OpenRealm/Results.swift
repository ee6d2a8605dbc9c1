// Results.swift — Results (the objects of a class) and LinkingObjects (the objects linking to one).

import CEngine
import Foundation

// MARK: - Results

/// The objects of a class in a Realm, as Realm's `Results`: live (each access reads the Realm's
/// current version) and lazy (an object is read when it is reached), in creation order.
///
///     let dogs = realm.objects(Dog.self)
///     dogs.count
///     dogs.first?.name
///     for dog in dogs { print(dog.name) }
///
/// Filtering and sorting arrive with the query engine; a Results then holds a query in place of
/// the whole table.
public struct Results<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    /// Where the objects come from. Every access goes through `count` and `key(at:)`, so a query
    /// (a `ce_query`/`ce_results` handle with its sort and distinct descriptors, re-evaluated
    /// when the version advances) slots in as another case without changing the public surface.
    enum Source {
        /// Every object of a class, in key (creation) order.
        case table(ObjectBase.Type)
    }

    let core: RealmCore
    let source: Source

    init(core: RealmCore, objectClass: ObjectBase.Type) {
        self.core = core
        self.source = .table(objectClass)
    }

    /// The class's table; nil while the file has none (the class was never written).
    private var table: TableInfo? {
        switch source {
        case .table(let objectClass): core.tableInfo(for: objectClass)
        }
    }

    /// The Realm of the results.
    public var realm: Realm? { Realm(core) }

    /// Whether the results can no longer be used (never: a Results reads the current version).
    public var isInvalidated: Bool { false }

    /// The number of objects.
    ///
    ///     realm.objects(Dog.self).count
    public var count: Int {
        guard let table else { return 0 }
        var count = 0
        guard ce_object_count(core.currentTxn(), table.tableKey, &count) else { engineFailure() }
        return count
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// `count`.
    public var endIndex: Int { count }

    /// The object at `position`. An index past the end is a programmer error.
    ///
    ///     let first = dogs[0]
    public subscript(position: Int) -> Element {
        guard let table else { indexFailure(position, 0) }
        var key: ce_object_key = 0
        guard ce_object_key_at(core.currentTxn(), table.tableKey, position, &key) else { indexFailure(position, count) }
        return core.makeObject(table, key) as! Element
    }

    /// The position of `object`, or nil if it is not in the results.
    ///
    ///     dogs.index(of: rex)    // 0
    public func index(of object: Element) -> Int? {
        guard let object = object as Any as? ObjectBase, let table, object.isManaged(by: core),
            object._table?.tableKey == table.tableKey
        else { return nil }
        let txn = core.currentTxn()
        var count = 0
        guard ce_object_count(txn, table.tableKey, &count) else { engineFailure() }
        for index in 0..<count {
            var key: ce_object_key = 0
            guard ce_object_key_at(txn, table.tableKey, index, &key) else { engineFailure() }
            if key == object._key { return index }
        }
        return nil
    }

    /// Iterates over the objects present when iteration starts (a snapshot of their keys, as
    /// Realm's for-in: deleting objects in the loop does not skip any; a deleted one is
    /// invalidated).
    public func makeIterator() -> ResultsIterator<Element> {
        guard let table else { return ResultsIterator(core: core, table: nil, keys: []) }
        let txn = core.currentTxn()
        var count = 0
        guard ce_object_count(txn, table.tableKey, &count) else { engineFailure() }
        var keys = [ce_object_key](repeating: 0, count: count)
        for index in 0..<count {
            guard ce_object_key_at(txn, table.tableKey, index, &keys[index]) else { engineFailure() }
        }
        return ResultsIterator(core: core, table: table, keys: keys)
    }

    /// Realm's form: `Results<Dog> <0x...> (\n\t[0] Dog {...}\n)`.
    public var description: String {
        var lines = ["Results<\(Element.self)> ("]
        for (index, element) in enumerated() {
            let text = (element as Any as? ObjectBase)?._describe(depth: 1) ?? "\(element)"
            lines.append("\t[\(index)] \(text)")
            if index >= 99 {
                lines.append("\t... \(count - 100) objects skipped.")
                break
            }
        }
        lines.append(")")
        return lines.joined(separator: "\n")
    }
}

/// The iterator of a `Results`: the objects whose keys it took when iteration started.
public struct ResultsIterator<Element: RealmCollectionValue>: IteratorProtocol {
    let core: RealmCore
    let table: TableInfo?
    let keys: [ce_object_key]
    var index = 0

    init(core: RealmCore, table: TableInfo?, keys: [ce_object_key]) {
        self.core = core
        self.table = table
        self.keys = keys
    }

    /// The next object, or nil at the end.
    public mutating func next() -> Element? {
        guard index < keys.count, let table else { return nil }
        defer { index += 1 }
        return core.makeObject(table, keys[index]) as? Element
    }
}

// MARK: - LinkingObjects

/// The objects that link to an object through one property: declared with
/// `@Persisted(originProperty:)`, as Realm's `LinkingObjects`. Computed by the Realm, read only;
/// empty while the object is unmanaged. In key order of the linking objects.
///
///     class Dog: Object {
///         @Persisted var name: String
///         @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
///     }
///     rex.owners.count        // the persons whose `dogs` list holds rex
///     rex.owners.first?.name
public struct LinkingObjects<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The property of `Element` whose links are listed.
    public let propertyName: String
    let owner: ObjectBase?

    /// The objects of `type` that link to this one through `propertyName`.
    ///
    ///     LinkingObjects(fromType: Person.self, property: "dogs")
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        self.owner = nil
    }

    init(propertyName: String, owner: ObjectBase) {
        self.propertyName = propertyName
        self.owner = owner
    }

    /// The Realm of a managed object's linking objects; nil while unmanaged.
    public var realm: Realm? { owner?.realm }

    /// Whether the object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { owner?.isInvalidated ?? false }

    /// (origin table, origin column) of the links, or nil if the origin class has no table yet.
    private var origin: (core: RealmCore, table: TableInfo, column: ce_column_key)? {
        guard let owner, let core = owner._core, let originTable = core.tableInfo(for: Element.self),
            let index = originTable.schema.indexByName[propertyName]
        else { return nil }
        return (core, originTable, originTable.columns[index].key)
    }

    /// The number of linking objects.
    public var count: Int {
        guard let owner, let origin else { return 0 }
        var count = 0
        guard ce_object_backlink_count(origin.core.txn(for: owner), owner._tableKey, owner._key, origin.table.tableKey, origin.column, &count)
        else { engineFailure() }
        return count
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// `count`.
    public var endIndex: Int { count }

    /// The linking object at `position`.
    public subscript(position: Int) -> Element {
        guard let owner, let origin else { indexFailure(position, 0) }
        var key: ce_object_key = 0
        guard ce_object_backlink_at(origin.core.txn(for: owner), owner._tableKey, owner._key, origin.table.tableKey, origin.column, position, &key)
        else { indexFailure(position, count) }
        return origin.core.makeObject(origin.table, key) as! Element
    }

    /// The position of `object` among the linking objects, or nil.
    public func index(of object: Element) -> Int? {
        firstIndex { $0.isSameObject(as: object) }
    }

    /// Realm's form: `LinkingObjects<Person> (\n\t[0] Person {...}\n)`.
    public var description: String {
        var lines = ["LinkingObjects<\(Element.self)> ("]
        for (index, element) in enumerated() { lines.append("\t[\(index)] \(element._describe(depth: 1))") }
        lines.append(")")
        return lines.joined(separator: "\n")
    }
}

extension LinkingObjects: _Persistable {
    public static func _rlmShape() -> _PropertyShape {
        var shape = _PropertyShape(type: CE_TYPE_LINK, nullable: false, linkTarget: Element.self)
        shape.isLinkingObjects = true
        return shape
    }
    public static func _rlmDefault() -> LinkingObjects {
        throwRealmException("A LinkingObjects property must be declared with @Persisted(originProperty:).")
    }
    public static var _rlmCachesManagedValue: Bool { false }
    public static func _rlmGet(_ object: ObjectBase, _ column: _ManagedColumn) -> LinkingObjects {
        let property = object._schemaInfo.properties[column.property]
        return LinkingObjects(propertyName: property.originProperty ?? "", owner: object)
    }
    public static func _rlmSet(_ object: ObjectBase, _ column: _ManagedColumn, _ value: LinkingObjects) {
        throwRealmException("LinkingObjects properties are read-only.")
    }
    public func _rlmCreationValue(_ arena: _CArena, _ realm: Realm) -> ce_value { .null }
    public static func _rlmFromAny(_ value: Any) -> LinkingObjects? { nil }
    public var _rlmOriginProperty: String? { propertyName }
}
