// LinkingObjects.swift — LinkingObjects: the objects that link to an object through one property.

import Foundation

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
    /// The one element of the linking objects a key path recorder reads (KeyPathRecorder.swift).
    let recording: Element?

    /// The objects of `type` that link to this one through `propertyName`.
    ///
    ///     LinkingObjects(fromType: Person.self, property: "dogs")
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        self.owner = nil
        self.recording = nil
    }

    init(propertyName: String, owner: ObjectBase) {
        self.propertyName = propertyName
        self.owner = owner
        self.recording = nil
    }

    /// Linking objects of an unmanaged recording instance: `element` alone.
    init(recording element: Element) {
        self.propertyName = ""
        self.owner = nil
        self.recording = element
    }

    /// The Realm of a managed object's linking objects; nil while unmanaged.
    public var realm: Realm? { owner?.realm }

    /// Whether the object was deleted or its Realm invalidated.
    public var isInvalidated: Bool { owner?.isInvalidated ?? false }

    /// (origin table, origin column) of the links, or nil if the origin class has no table yet.
    var origin: (core: RealmCore, table: TableInfo, column: ColumnKey)? {
        guard let owner, let core = owner._core, let originTable = core.tableInfo(for: Element.self),
            let index = originTable.schema.indexByName[propertyName]
        else { return nil }
        return (core, originTable, originTable.columns[index].key)
    }

    /// The number of linking objects.
    public var count: Int {
        guard let owner, let origin else { return recording == nil ? 0 : 1 }
        return origin.core.backlinkCount(owner, origin.table, origin.column)
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// `count`.
    public var endIndex: Int { count }

    /// The linking object at `position`.
    public subscript(position: Int) -> Element {
        guard let owner, let origin else {
            if let recording, position == 0 { return recording }
            indexFailure(position, count)
        }
        guard let key = origin.core.backlink(owner, origin.table, origin.column, at: position) else { indexFailure(position, count) }
        return origin.core.makeObject(origin.table, key) as! Element
    }

    /// The position of `object` among the linking objects, or nil.
    public func index(of object: Element) -> Int? {
        firstIndex { $0.isSameObject(as: object) }
    }

    /// Realm's form: `LinkingObjects<Person> <0x...> (\n\t[0] Person {...}\n)`.
    public var description: String {
        realmDescription(depth: realmDescriptionMaxDepth)
    }
}

extension LinkingObjects where Element: RealmCollectionValue {
    /// A live `Results` of the linking objects, in key order (see `RealmCollectionBase`).
    ///
    ///     rex.owners._resultsView().count
    public func _resultsView() -> Results<Element> {
        guard let owner, let core = owner._core, owner._table != nil else { unmanagedQueryFailure("LinkingObjects") }
        return Results(core: core, query: ResultsQuery(objectClass: Element.self, base: .backlinks(owner: owner, property: propertyName)))
    }
}

extension LinkingObjects {
    /// Whether the linking objects belong to a frozen Realm.
    ///
    ///     dog.freeze().owners.isFrozen    // true
    public var isFrozen: Bool { owner?.isFrozen ?? false }

    /// The linking objects of the frozen copy of the object (see `Object.freeze()`).
    ///
    ///     let frozenOwners = dog.owners.freeze()
    public func freeze() -> LinkingObjects {
        guard let owner else { throwRealmException("Unmanaged objects cannot be frozen.") }
        return LinkingObjects(propertyName: propertyName, owner: owner.freeze())
    }

    /// The live linking objects, in the calling thread's Realm, of frozen ones; nil if the object
    /// was deleted.
    ///
    ///     let liveOwners = frozenOwners.thaw()
    public func thaw() -> LinkingObjects? {
        guard let owner, owner.isFrozen else { return self }
        return owner.thaw().map { LinkingObjects(propertyName: propertyName, owner: $0) }
    }
}

extension LinkingObjects: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? {
        guard let owner, let moved = core.importObject(owner) else { return nil }
        return LinkingObjects(propertyName: propertyName, owner: moved)
    }
}
