// Results.swift — Results: the objects of a class (or a collection's values), live and lazy.

import Foundation

// MARK: - Results

/// The objects of a class in a Realm, as Realm's `Results`: live (each access reads the Realm's
/// current version) and lazy (an object is read when it is reached), in creation order unless
/// sorted. Filtering, sorting and `distinct` make new Results; aggregates are computed by the
/// engine.
///
///     let dogs = realm.objects(Dog.self)
///     dogs.count
///     dogs.first?.name
///     for dog in dogs { print(dog.name) }
///     let puppies = dogs.filter("age < %@", 2).sorted(byKeyPath: "name")
public struct Results<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    /// Where the objects come from. Every access goes through `count` and `key(at:)`.
    enum Source {
        /// Every object of a class, in key (creation) order.
        case table(ObjectBase.Type)
        /// A predicate and descriptors over the objects of a class (engine handles, evaluated
        /// against the Realm's transaction at each call).
        case query(ResultsQuery)
        /// The values of a list or set of values in sorted order (the order is read at each
        /// access; iteration reads it once).
        case sortedValues(ManagedCollection, ascending: Bool)
    }

    let core: RealmCore
    let source: Source

    init(core: RealmCore, objectClass: ObjectBase.Type) {
        self.core = core
        self.source = .table(objectClass)
    }

    init(core: RealmCore, query: ResultsQuery) {
        self.core = core
        self.source = .query(query)
    }

    init(sortedValues collection: ManagedCollection, ascending: Bool) {
        self.core = collection.core
        self.source = .sortedValues(collection, ascending: ascending)
    }

    /// Stops: results of values are not filtered, sorted by key path or made distinct.
    private func valuesFailure() -> Never {
        throwRealmException("Querying is currently only implemented for arrays of Realm Objects (Results<\(Element.self)> holds "
            + "values: it cannot be filtered, sorted by a key path, made distinct or aggregated by property).")
    }

    /// The values of a sorted collection of values, in order, read now.
    private func sortedValues(_ collection: ManagedCollection, _ ascending: Bool) -> [Element] {
        collection.sortedIndices(ascending: ascending).map { collection.element(collection.get($0), at: .index($0), as: Element.self) }
    }

    /// The class of the objects.
    private var objectClass: ObjectBase.Type {
        switch source {
        case .table(let objectClass): objectClass
        case .query(let query): query.objectClass
        case .sortedValues: valuesFailure()
        }
    }

    /// The query of these results: theirs, or one that matches every object of the class.
    var resultsQuery: ResultsQuery {
        switch source {
        case .table(let objectClass): ResultsQuery(objectClass: objectClass)
        case .query(let query): query
        case .sortedValues: valuesFailure()
        }
    }

    /// The class's table; nil while the file has none (the class was never written).
    private var table: TableInfo? {
        switch source {
        case .table(let objectClass): core.tableInfo(for: objectClass)
        case .query(let query): query.view(core)?.table
        case .sortedValues: nil
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
        switch source {
        case .table:
            guard let table else { return 0 }
            return core.objectCount(table)
        case .query(let query):
            guard let (view, _) = query.view(core) else { return 0 }
            return core.resultsCount(view)
        case .sortedValues(let collection, _):
            return collection.count
        }
    }

    /// 0.
    public var startIndex: Int { 0 }

    /// `count`.
    public var endIndex: Int { count }

    /// The key of the object at `position`, with its table; nil past the end.
    private func key(at position: Int) -> (ObjectKey, TableInfo)? {
        switch source {
        case .table:
            guard let table, position >= 0, let key = core.objectKey(table, at: position) else { return nil }
            return (key, table)
        case .query(let query):
            guard let (view, table) = query.view(core), position >= 0, let key = core.resultsKey(view, at: position) else { return nil }
            return (key, table)
        case .sortedValues:
            return nil
        }
    }

    /// The object at `position`. An index past the end is a programmer error.
    ///
    ///     let first = dogs[0]
    public subscript(position: Int) -> Element {
        if case .sortedValues(let collection, let ascending) = source {
            let order = collection.sortedIndices(ascending: ascending)
            guard position >= 0, position < order.count else { indexFailure(position, order.count) }
            return collection.element(collection.get(order[position]), at: .index(order[position]), as: Element.self)
        }
        guard let (key, table) = key(at: position) else { indexFailure(position, count) }
        return resultsElement(core.makeObject(table, key), as: Element.self)
    }

    /// The position of `object`, or nil if it is not in the results.
    ///
    ///     dogs.index(of: rex)    // 0
    public func index(of object: Element) -> Int? {
        if case .sortedValues(let collection, let ascending) = source {
            return sortedValues(collection, ascending).firstIndex(of: object)
        }
        guard let object = object as Any as? ObjectBase, object.isManaged(by: core), let table,
            object._table?.tableKey == table.tableKey
        else { return nil }
        let txn = core.currentTxn()
        switch source {
        case .table:
            return core.objectPosition(of: object._key, in: table, txn)
        case .query(let query):
            guard let (view, _) = query.view(core) else { return nil }
            return core.resultsPosition(of: object._key, in: view, txn)
        case .sortedValues:
            return nil
        }
    }

    /// Iterates over the objects present when iteration starts (a snapshot of their keys, as
    /// Realm's for-in: deleting objects in the loop does not skip any; a deleted one is
    /// invalidated).
    public func makeIterator() -> ResultsIterator<Element> {
        if case .sortedValues(let collection, let ascending) = source {
            return ResultsIterator(values: sortedValues(collection, ascending))
        }
        let count = self.count
        guard count > 0, let table else { return ResultsIterator(core: core, table: nil, keys: []) }
        var keys = [ObjectKey](repeating: 0, count: count)
        for index in 0..<count {
            guard let (key, _) = key(at: index) else { engineFailure() }
            keys[index] = key
        }
        return ResultsIterator(core: core, table: table, keys: keys)
    }

    /// Realm's form: `Results<Dog> <0x...> (\n\t[0] Dog {...}\n)`.
    public var description: String {
        // Realm prints the first 100 objects.
        realmDescription(depth: realmDescriptionMaxDepth)
    }

    // MARK: Filtering

    /// The objects that match a predicate in Realm's (NSPredicate's) format; `%@` takes the next
    /// argument as a value (a list for `IN %@`), `%K` as a key path. Filters can be chained and
    /// follow a sort (the order is kept). A predicate that does not parse, or names no property,
    /// is a programmer error.
    ///
    ///     let adults = people.filter("age >= %@ AND name BEGINSWITH[c] %@", 18, "a")
    ///     let some = people.filter("%K IN %@", "name", ["Ada", "Grace"])
    ///     let ownersOfRex = people.filter("ANY dogs == %@", rex)
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        filtered(predicateFormat, args)
    }

    /// The objects for which a type-safe query holds (Realm's `where`): the same predicates as
    /// `filter(_:_:)`, checked by the compiler.
    ///
    ///     let adults = people.where { $0.age >= 18 && $0.name.starts(with: "A", options: .caseInsensitive) }
    ///     let dogOwners = people.where { $0.dogs.count > 0 }
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let (predicate, arguments) = isIncluded(Query<Element>(root: ())).predicate()
        return filtered(predicate, arguments)
    }

    /// These results with one more predicate (checked now if the class has a table).
    func filtered(_ predicate: String, _ arguments: [Any]) -> Results<Element> {
        let query = resultsQuery
        let (text, taken) = enginePredicate(predicate, ObjectSchemaInfo.of(objectClass), arguments, offset: query.arguments.count)
        if let table = core.tableInfo(for: objectClass) {
            // Parsed alone first (its arguments after the earlier filters'): a bad predicate
            // stops where it is written.
            core.checkPredicate(table, text, query.arguments + taken, shown: predicate)
        }
        return Results(core: core, query: query.filtered(text, taken))
    }

    /// The position of the first object that matches a predicate, or nil.
    ///
    ///     people.sorted(byKeyPath: "age").index(matching: "name == %@", "Ada")
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        firstIndex(matching: filtered(predicateFormat, args))
    }

    /// The position of the first object for which a type-safe query holds, or nil.
    ///
    ///     people.index(matching: { $0.name == "Ada" })
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        firstIndex(matching: self.where(isIncluded))
    }

    /// The first position of an object of `matching` (these results filtered) in these results.
    func firstIndex(matching: Results<Element>) -> Int? {
        if !resultsQuery.hasDistinct {
            // Filtering keeps the order: the first match is the first object of the filtered view.
            return matching.first.flatMap { index(of: $0) }
        }
        // A distinct view filtered keeps other objects: the smallest position of those in both.
        return matching.compactMap { index(of: $0) }.min()
    }

    // MARK: Sorting and distinct

    /// The objects sorted by a key path (a property, or a path through to-one links). A sort is
    /// stable: sorting sorted results makes the earlier sort the tie-breaker.
    ///
    ///     let byAge = people.sorted(byKeyPath: "age", ascending: false)
    ///     let byDogName = people.sorted(byKeyPath: "dog.name")
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The objects sorted by several key paths, the first one first.
    ///
    ///     people.sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name", ascending: false)])
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        adding(.sort(Array(sortDescriptors)))
    }

    /// The objects with one object kept of each distinct combination of the key paths' values
    /// (the first one, in the current order).
    ///
    ///     let oneOfEachAge = people.distinct(by: ["age"])
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        adding(.distinct(Array(keyPaths)))
    }

    /// These results with a descriptor added (checked now if the class has a table).
    private func adding(_ descriptor: ResultsQuery.Descriptor) -> Results<Element> {
        let query = resultsQuery.adding(descriptor)
        _ = query.view(core)
        return Results(core: core, query: query)
    }

    // MARK: Aggregates

    /// The smallest value of a property (int, float, double, Decimal128, Date), nil if there are
    /// no objects (or only nil values).
    ///
    ///     let youngest: Int? = people.min(ofProperty: "age")
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        propertyMin(property)
    }

    /// The largest value of a property, nil if there are no objects (or only nil values).
    ///
    ///     let oldest: Int? = people.max(ofProperty: "age")
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        propertyMax(property)
    }

    /// The sum of a numeric property (0 if there are no objects; nil values are skipped).
    ///
    ///     let totalAge: Int = people.sum(ofProperty: "age")
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        propertySum(property)
    }

    /// The average of a numeric property, nil if there are no objects (or only nil values).
    ///
    ///     let meanAge: Double? = people.average(ofProperty: "age")
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        propertyAverage(property)
    }
}

// MARK: - Key path variants

extension Results where Element: ObjectBase {
    /// The objects sorted by a Swift key path.
    ///
    ///     let byAge = people.sorted(by: \.age, ascending: false)
    public func sorted<Value>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: propertyPath(of: keyPath), ascending: ascending)])
    }

    /// The objects with one object kept of each distinct combination of the key paths' values.
    ///
    ///     let oneOfEachAge = people.distinct(by: [\Person.age])
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { propertyPath(of: $0) })
    }

    /// The smallest value of a property, nil if there are no objects.
    ///
    ///     let youngest = people.min(of: \.age)
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        min(ofProperty: propertyPath(of: keyPath))
    }

    /// The largest value of a property, nil if there are no objects.
    ///
    ///     let oldest = people.max(of: \.age)
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        max(ofProperty: propertyPath(of: keyPath))
    }

    /// The sum of a numeric property (0 if there are no objects).
    ///
    ///     let totalAge = people.sum(of: \.age)
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        sum(ofProperty: propertyPath(of: keyPath))
    }

    /// The average of a numeric property, nil if there are no objects.
    ///
    ///     let meanHeight = people.average(of: \.height)
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: AddableType {
        average(ofProperty: propertyPath(of: keyPath))
    }
}

// MARK: - Collections

extension Results {
    /// Whether the results belong to a frozen Realm.
    ///
    ///     dogs.freeze().isFrozen    // true
    public var isFrozen: Bool { core.frozen != nil }

    /// Frozen results: the same objects, in the same order, as the Realm's current version has
    /// them, readable from any thread. Frozen results return themselves.
    ///
    ///     let frozen = realm.objects(Dog.self).filter("age > 2").freeze()
    ///     DispatchQueue.global().async { print(frozen.count) }
    public func freeze() -> Results {
        if core.frozen != nil { return self }
        guard let frozen = rebased(onto: core.frozenCore()) else { throwRealmException(invalidatedObjectMessage) }
        return frozen
    }

    /// Live results, in the calling thread's Realm, of frozen results; nil if the object whose
    /// list or linking objects they are was deleted. Live results return themselves.
    ///
    ///     let live = frozenDogs.thaw()
    public func thaw() -> Results? {
        guard core.frozen != nil else { return self }
        return rebased(onto: core.thawedCore())
    }

    /// The same results read in `target` (another instance of the file).
    func rebased(onto target: RealmCore) -> Results? {
        switch source {
        case .table(let objectClass):
            return Results(core: target, objectClass: objectClass)
        case .query(let query):
            return query.rebased(onto: target).map { Results(core: target, query: $0) }
        case .sortedValues(let collection, let ascending):
            return collection.rebased(onto: target).map { Results(sortedValues: $0, ascending: ascending) }
        }
    }
}

extension Results: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { rebased(onto: core) }
}
