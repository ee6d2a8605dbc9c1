// Results.swift — Results: the objects of a class (or a collection's values), live and lazy.

import Foundation

// MARK: - Results

/// A step of the order of results of values (`Results.Source.values`): a sort by value, or
/// distinct (the first of each value kept).
enum ValuesStep: Equatable {
    case sort(ascending: Bool)
    case distinct
}

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
        /// The values of a managed list, set or map (its values, in key order) of values, after
        /// `steps`: sorts by value and distincts, in turn (the order is read at each access;
        /// iteration reads it once).
        case values(ManagedCollection, steps: [ValuesStep])
    }

    let core: RealmCore
    let source: Source
    /// The Realm's epoch when the results were made: `invalidate()` starts a new one, and the
    /// results made before it are invalidated (`isInvalidated`).
    let epoch: UInt64

    init(core: RealmCore, objectClass: ObjectBase.Type) {
        self.core = core
        self.source = .table(objectClass)
        self.epoch = core.epoch
    }

    init(core: RealmCore, query: ResultsQuery) {
        self.core = core
        self.source = .query(query)
        self.epoch = core.epoch
    }

    init(values collection: ManagedCollection, steps: [ValuesStep] = []) {
        self.core = collection.core
        self.source = .values(collection, steps: steps)
        self.epoch = collection.epoch
    }

    /// The values of results of values, in order, read now.
    func valuesElements(_ collection: ManagedCollection, _ steps: [ValuesStep]) -> [Element] {
        collection.orderedIndices(steps).map { collection.element(at: $0, as: Element.self) }
    }

    /// Results of values with one more step, after Realm's checks of the key paths: none leaves
    /// them as they are; only `self`, alone, sorts or makes distinct a collection of values.
    private func addingValuesStep(_ collection: ManagedCollection, _ steps: [ValuesStep], _ keyPaths: [String],
                                  _ step: ValuesStep) -> Results<Element> {
        if keyPaths.isEmpty { return self }
        let type = realmTypeName(Element.self)
        if keyPaths.count > 1 { throwRealmException("Cannot sort array of '\(type)' on more than one key path") }
        if keyPaths[0] != "self" {
            throwRealmException("Cannot sort on key path '\(keyPaths[0])': arrays of '\(type)' can only be sorted on 'self'")
        }
        return Results(values: collection, steps: steps + [step])
    }

    /// The query of these results: theirs, or one that matches every object of the class.
    var resultsQuery: ResultsQuery {
        switch source {
        case .table(let objectClass): ResultsQuery(objectClass: objectClass)
        case .query(let query): query
        case .values(let collection, _): valuesQueryFailure(collection, Element.self)
        }
    }

    /// The class's table; nil while the file has none (the class was never written).
    private var table: TableInfo? {
        switch source {
        case .table(let objectClass): core.tableInfo(for: objectClass)
        case .query(let query): query.view(core)?.table
        case .values: nil
        }
    }

    /// The Realm of the results.
    public var realm: Realm? { Realm(core) }

    /// Whether the results were invalidated: `invalidate()` was called on their Realm since they
    /// were made, or the object whose collection they read was deleted (as Realm documents).
    ///
    ///     realm.invalidate()
    ///     dogs.isInvalidated    // true
    public var isInvalidated: Bool {
        if case .values(let collection, _) = source { return collection.isInvalidated }
        return epoch != core.epoch
    }

    /// Stops with Realm's message when the results were made before `invalidate()` was called on
    /// their Realm: they can no longer be read (realm-core's `Results::validate_read`). Results of
    /// a collection's values leave the check to their collection.
    private func checkNotInvalidated() {
        guard epoch != core.epoch else { return }
        if case .values = source { return }
        throwRealmException("Access to invalidated Results objects")
    }

    /// The number of objects.
    ///
    ///     realm.objects(Dog.self).count
    public var count: Int {
        checkNotInvalidated()
        switch source {
        case .table:
            guard let table else { return 0 }
            return core.objectCount(table)
        case .query(let query):
            guard let (view, _) = query.view(core) else { return 0 }
            return core.resultsCount(view)
        case .values(let collection, let steps):
            return steps.contains(.distinct) ? collection.orderedIndices(steps).count : collection.count
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
        case .values:
            return nil
        }
    }

    /// The object at `position`. An index past the end is a programmer error.
    ///
    ///     let first = dogs[0]
    public subscript(position: Int) -> Element {
        if case .values(let collection, let steps) = source {
            let order = steps.isEmpty ? nil : collection.orderedIndices(steps)
            let count = order?.count ?? collection.count
            guard position >= 0, position < count else { indexFailure(position, count) }
            return collection.element(at: order?[position] ?? position, as: Element.self)
        }
        checkNotInvalidated()
        guard let (key, table) = key(at: position) else { indexFailure(position, count) }
        return resultsElement(core.makeObject(table, key), as: Element.self)
    }

    /// The position of `object`, or nil if it is not in the results.
    ///
    ///     dogs.index(of: rex)    // 0
    public func index(of object: Element) -> Int? {
        if case .values(let collection, let steps) = source {
            return valuesElements(collection, steps).firstIndex(of: object)
        }
        checkNotInvalidated()
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
        case .values:
            return nil
        }
    }

    /// Iterates over the objects present when iteration starts (a snapshot of their keys, as
    /// Realm's for-in: deleting objects in the loop does not skip any; a deleted one is
    /// invalidated).
    public func makeIterator() -> ResultsIterator<Element> {
        if case .values(let collection, let steps) = source {
            return ResultsIterator(values: valuesElements(collection, steps))
        }
        let count = self.count    // stops if the results were invalidated
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
        let root = (Element.self as? ObjectBase.Type).map { ObjectSchemaInfo.of($0) }
        let (predicate, arguments) = QueryRoot.$schema.withValue(root) { isIncluded(Query<Element>(root: ())).predicate() }
        return filtered(predicate, arguments)
    }

    /// These results with one more predicate (checked now if the class has a table).
    func filtered(_ predicate: String, _ arguments: [Any]) -> Results<Element> {
        checkNotInvalidated()
        let query = resultsQuery
        let (text, taken) = enginePredicate(predicate, query.schemaInfo(core), arguments, offset: query.arguments.count)
        if let table = query.tableInfo(core) {
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
        let descriptors = Array(sortDescriptors)
        // Realm refuses collection operators in a sort before anything else.
        if let operatorPath = descriptors.first(where: { $0.keyPath.contains("@") }) {
            throwRealmException("Cannot sort on key path '\(operatorPath.keyPath)': KVC collection operators are not supported.")
        }
        if case .values(let collection, let steps) = source {
            return addingValuesStep(collection, steps, descriptors.map(\.keyPath), .sort(ascending: descriptors.first?.ascending ?? true))
        }
        checkNotInvalidated()
        if descriptors.isEmpty { return self }  // as realm-core's Results::sort
        for descriptor in descriptors { refuseDataKeyPath(descriptor.keyPath, resultsQuery.schemaInfo(core)) }
        return adding(.sort(descriptors))
    }

    /// The objects with one object kept of each distinct combination of the key paths' values
    /// (the first one, in the current order).
    ///
    ///     let oneOfEachAge = people.distinct(by: ["age"])
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        let paths = Array(keyPaths)
        if let operatorPath = paths.first(where: { $0.contains("@") }) {
            throwRealmException("Cannot distinct on keypath '\(operatorPath)': KVC collection operators are not supported.")
        }
        if case .values(let collection, let steps) = source {
            return addingValuesStep(collection, steps, paths, .distinct)
        }
        checkNotInvalidated()
        // No key path leaves the results as they are (realm-core's Results::distinct).
        if paths.isEmpty { return self }
        for path in paths { refuseDataKeyPath(path, resultsQuery.schemaInfo(core)) }
        return adding(.distinct(paths))
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
        checkNotInvalidated()
        return propertyMin(property)
    }

    /// The largest value of a property, nil if there are no objects (or only nil values).
    ///
    ///     let oldest: Int? = people.max(ofProperty: "age")
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        checkNotInvalidated()
        return propertyMax(property)
    }

    /// The sum of a numeric property (0 if there are no objects; nil values are skipped).
    ///
    ///     let totalAge: Int = people.sum(ofProperty: "age")
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        checkNotInvalidated()
        return propertySum(property)
    }

    /// The average of a numeric property, nil if there are no objects (or only nil values).
    ///
    ///     let meanAge: Double? = people.average(ofProperty: "age")
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        checkNotInvalidated()
        return propertyAverage(property)
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
        checkNotInvalidated()
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
        case .values(let collection, let steps):
            return collection.rebased(onto: target).map { Results(values: $0, steps: steps) }
        }
    }
}

extension Results: ThreadConfined, RealmMovable {
    func moved(to core: RealmCore) -> Any? { rebased(onto: core) }
}
