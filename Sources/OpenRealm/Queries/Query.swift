// Query.swift — Realm's type-safe queries (`where { $0.age > 5 }`): Query<T> builds a predicate
// string with its arguments, the same one `filter(_:_:)` takes.

import Foundation

// MARK: - Query

/// For a query expression through a collection of objects (`$0.dogs.age`, `$0.dogs.age > 5`):
/// the collection's key path, and the same expression from one of its objects (`$obj.age > %@`,
/// with the same placeholders), which a subquery over the collection uses.
struct QueryElement {
    let collection: String
    let expression: String
}

/// Marks where a key path from the queried object starts in the text a `Query` builds, so that a
/// condition can also be written from one object of a collection inside a subquery: there, as in
/// Realm Swift (whose subqueries look a key path without the subquery's variable up on the
/// collection's object), `$0.name` means the object's `name`. Never reaches the engine.
let queryRootMark = "\u{1}"

/// `text` (a condition or key path a `Query` built) without its marks: from the queried object.
func fromQueriedObject(_ text: String) -> String {
    text.replacingOccurrences(of: queryRootMark, with: "")
}

/// `text` (a condition or key path a `Query` built) from `$obj`, one object of the collection of
/// a subquery: its key paths start at `$obj`, and its own subqueries take other variable names.
func fromSubqueryObject(_ text: String) -> String {
    text.replacingOccurrences(of: "$obj", with: "$obj1").replacingOccurrences(of: queryRootMark, with: "$obj.")
}

/// A type-safe query expression, as Realm's `Query`: the parameter of `where` and
/// `index(matching:)`. Its members are the properties of the model (`$0.age`, `$0.dog.name`,
/// `$0.dogs.age`), and operators on them make the conditions; they become the predicate string
/// and arguments that `filter(_:_:)` takes.
///
///     let results = realm.objects(Person.self).where {
///         ($0.age >= 18 && $0.name.starts(with: "A")) || $0.dogs.count > 2
///     }
///
/// Supported: `==`, `!=`, `<`, `<=`, `>`, `>=` (with values or other properties), `&&`, `||`,
/// `!`, `contains`/`starts(with:)`/`ends(with:)`/`like`/`equals`/`notEquals` with
/// `StringOptions` (with values or other properties; on `Data` too, `like` aside), `in(_:)`, `contains(range)`, and on collections `count`, `contains(_:)`,
/// `containsAny(in:)`, `min`, `max`, `sum`, `avg` and element properties (any element matches),
/// subqueries (`($0.dogs.age > 5 && $0.dogs.name == "Rex").count > 0`), and on maps a key's value,
/// `keys` and `values`.
@dynamicMemberLookup
public struct Query<T> {
    /// What an expression is: `$0`, a key path (with the arguments of the `%@` placeholders a
    /// subquery in it has), or a condition (with the arguments of its placeholders, in order).
    enum Node {
        case root
        case keyPath(String, [Any])
        case predicate(String, [Any])
    }

    let node: Node
    let element: QueryElement?

    init(root: ()) {
        node = .root
        element = nil
    }

    init(keyPath: String, _ arguments: [Any] = [], element: QueryElement? = nil) {
        node = .keyPath(keyPath, arguments)
        self.element = element
    }

    init(predicate: String, _ arguments: [Any], element: QueryElement? = nil) {
        node = .predicate(predicate, arguments)
        self.element = element
    }

    /// The key path of this expression (a condition or `$0` itself where a key path is needed is
    /// a programmer error).
    var keyPath: String {
        switch node {
        case .keyPath(let path, _): return path
        case .root: return "SELF"
        case .predicate(let predicate, _):
            throwRealmException("A condition (\(fromQueriedObject(predicate))) was used where a property was expected.")
        }
    }

    /// The arguments of the placeholders in the key path (those of a subquery).
    private var keyPathArguments: [Any] {
        if case .keyPath(_, let arguments) = node { return arguments }
        return []
    }

    /// The property `name` of this expression's objects.
    func member<V>(_ name: String) -> Query<V> {
        if case .root = node { return Query<V>(keyPath: queryRootMark + name) }
        // A map's value under a key (`$0.dogs["a"]`) is compared as a whole, as in Realm.
        if keyPath.hasSuffix("[%@]") { throwRealmException("Cannot apply key path to Map subscripts.") }
        return Query<V>(keyPath: keyPath + "." + name, keyPathArguments,
                        element: element.map { QueryElement(collection: $0.collection, expression: $0.expression + "." + name) })
    }

    /// The property `name` of the objects of this collection: through a subquery, one object.
    func elementMember<V>(_ name: String) -> Query<V> {
        Query<V>(keyPath: keyPath + "." + name, keyPathArguments, element: QueryElement(collection: keyPath, expression: "$obj." + name))
    }

    /// This key path followed by `suffix` (`.@count`, `[%@]`), with the arguments of the
    /// placeholders `suffix` has.
    func suffixed<V>(_ suffix: String, _ arguments: [Any] = []) -> Query<V> {
        Query<V>(keyPath: keyPath + suffix, keyPathArguments + arguments,
                 element: element.map { QueryElement(collection: $0.collection, expression: $0.expression + suffix) })
    }

    /// A condition on this key path: `build` writes it around a key path, `arguments` orders the
    /// key path's own arguments (the first parameter) with the condition's values.
    func condition(_ build: (String) -> String, _ arguments: ([Any]) -> [Any]) -> Query<Bool> {
        Query<Bool>(predicate: build(keyPath), arguments(keyPathArguments),
                    element: element.map { QueryElement(collection: $0.collection, expression: build($0.expression)) })
    }

    /// The predicate of a condition, as `filter(_:_:)` takes it: a Bool property alone means
    /// `property == true`.
    func predicate() -> (String, [Any]) {
        let (predicate, arguments) = markedPredicate()
        return (fromQueriedObject(predicate), arguments)
    }

    /// The predicate with its marks (see `queryRootMark`), for building larger conditions.
    func markedPredicate() -> (String, [Any]) {
        switch node {
        case .predicate(let predicate, let arguments): return (predicate, arguments)
        case .keyPath(let path, let arguments): return ("\(path) == true", arguments)
        case .root: return ("TRUEPREDICATE", [])
        }
    }

    /// A comparison of this key path with one value.
    func compare(_ op: String, _ value: Any) -> Query<Bool> {
        condition({ "\($0) \(op) %@" }, { $0 + [value] })
    }

    /// A comparison of this key path with another one.
    func compare<U>(_ op: String, _ other: Query<U>) -> Query<Bool> {
        let otherPath = other.keyPath
        let otherArguments = other.keyPathArguments
        let element = self.element.map { mine in
            QueryElement(collection: mine.collection,
                    expression: "\(mine.expression) \(op) \(other.element.flatMap { $0.collection == mine.collection ? $0.expression : nil } ?? fromSubqueryObject(otherPath))")
        }
        return Query<Bool>(predicate: "\(keyPath) \(op) \(otherPath)", keyPathArguments + otherArguments, element: element)
    }
}

// MARK: Geospatial

extension Query {
    /// The objects whose location lies within a shape (`GeoBox`, `GeoPolygon` or `GeoCircle`), as
    /// Realm's `geoWithin`: the property is an embedded object of the GeoJSON point shape (a
    /// `String` property `type` holding `"Point"` and a `List<Double>` property `coordinates`
    /// holding the longitude, then the latitude; see `GeoPoint`). An object without a location,
    /// or whose location has fewer than two coordinates, is within no shape.
    ///
    ///     let box = GeoBox(bottomLeft: (37.2, -122.6), topRight: (38.0, -121.8))!
    ///     let places = realm.objects(Place.self).where { $0.location.geoWithin(box) }
    public func geoWithin<O: EmbeddedObject, U: RLMGeospatial>(_ value: U) -> Query<Bool> where T == O? {
        condition({ "\($0) IN %@" }, { $0 + [value] })
    }
}

// MARK: Subqueries

extension Query where T == Bool {
    /// The number of objects of a collection for which this condition on their properties holds
    /// (Realm's subquery): conditions on the objects of one collection, joined with `&&`, `||`
    /// or `!`, hold for the same object.
    ///
    ///     people.where { ($0.dogs.age > 5 && $0.dogs.name.starts(with: "R")).count > 0 }
    public var count: Query<Int> {
        guard let element, case .predicate(_, let arguments) = node else {
            throwRealmException("Subqueries must contain a keypath starting with a collection.")
        }
        return Query<Int>(keyPath: "SUBQUERY(\(element.collection), $obj, \(element.expression)).@count", arguments)
    }
}

// MARK: Members

extension Query where T: ObjectBase {
    /// A property of the queried objects, or of a linked object.
    ///
    ///     people.where { $0.name == "Ada" }
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> {
        self.member(propertyPath(of: member))
    }
}

extension Query {
    /// A property of an optional linked object (null when the link is).
    ///
    ///     people.where { $0.dog.name == "Rex" }
    public subscript<O: ObjectBase, V>(dynamicMember member: KeyPath<O, V>) -> Query<V> where T == O? {
        self.member(propertyPath(of: member))
    }
}

extension Query where T: _QueryableCollection {
    /// A property of the objects of a collection: a comparison holds when any of them matches.
    ///
    ///     people.where { $0.dogs.name == "Rex" }    // a person with a dog named Rex
    public subscript<V>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: ObjectBase {
        elementMember(propertyPath(of: member))
    }

    /// The number of elements of the collection (`@count`).
    ///
    ///     people.where { $0.dogs.count > 1 }
    public var count: Query<Int> { suffixed(".@count") }

    /// Whether the collection holds `value` (an object by identity).
    ///
    ///     people.where { $0.nicknames.contains("Ada") }
    ///     people.where { $0.dogs.contains(rex) }
    public func contains(_ value: T.Element) -> Query<Bool> {
        condition({ "%@ IN \($0)" }, { [value] + $0 })
    }

    /// Whether the collection holds any of `values`.
    ///
    ///     people.where { $0.nicknames.containsAny(in: ["Ada", "Countess"]) }
    public func containsAny<U: Sequence>(in values: U) -> Query<Bool> where U.Element == T.Element {
        let list = Array(values)
        return condition({ "ANY \($0) IN %@" }, { $0 + [list] })
    }
}

extension Query where T: _QueryableCollection, T.Element: _CValueConvertible {
    /// Any element equals a value.
    ///
    ///     people.where { $0.nicknames == "Ada" }    // a person with the nickname Ada
    public static func == (lhs: Query, rhs: T.Element) -> Query<Bool> { lhs.compare("==", rhs) }

    /// Any element differs from a value.
    ///
    ///     people.where { $0.nicknames != "Ada" }
    public static func != (lhs: Query, rhs: T.Element) -> Query<Bool> { lhs.compare("!=", rhs) }
}

extension Query where T: _QueryableCollection, T.Element: _QueryComparable {
    /// Any element is less than a value.
    ///
    ///     items.where { $0.scores < 3 }
    public static func < (lhs: Query, rhs: T.Element) -> Query<Bool> { lhs.compare("<", rhs) }

    /// Any element is less than or equal to a value.
    ///
    ///     items.where { $0.scores <= 3 }
    public static func <= (lhs: Query, rhs: T.Element) -> Query<Bool> { lhs.compare("<=", rhs) }

    /// Any element is greater than a value.
    ///
    ///     items.where { $0.scores > 3 }
    public static func > (lhs: Query, rhs: T.Element) -> Query<Bool> { lhs.compare(">", rhs) }

    /// Any element is greater than or equal to a value.
    ///
    ///     items.where { $0.scores >= 3 }
    public static func >= (lhs: Query, rhs: T.Element) -> Query<Bool> { lhs.compare(">=", rhs) }
}

extension Query where T: _QueryableCollection, T.Element: _HasPersistedType, T.Element.PersistedType: _QueryNumeric {
    /// The smallest element of a collection of numbers or dates (`@min`).
    ///
    ///     people.where { $0.scores.min > 3 }
    public var min: Query<T.Element> { suffixed(".@min") }

    /// The largest element (`@max`).
    ///
    ///     people.where { $0.scores.max < 10 }
    public var max: Query<T.Element> { suffixed(".@max") }

    /// The sum of the elements (`@sum`).
    ///
    ///     people.where { $0.scores.sum >= 100 }
    public var sum: Query<T.Element> { suffixed(".@sum") }

    /// The average of the elements (`@avg`).
    ///
    ///     people.where { $0.scores.avg > 5 }
    public var avg: Query<T.Element> { suffixed(".@avg") }
}

extension Query where T == AnyRealmValue {
    /// The element at `position` of the list the value holds (a value that holds no list, or a
    /// shorter one, matches nothing).
    ///
    ///     things.where { $0.anyValue[0] == .int(5) }
    public subscript(position: Int) -> Query<AnyRealmValue> {
        suffixed("[\(position)]")
    }

    /// The value under `key` of the dictionary the value holds (null when the key is absent).
    ///
    ///     things.where { $0.anyValue["name"] == .string("Rex") }
    public subscript(key: String) -> Query<AnyRealmValue> {
        suffixed("[%@]", [key])
    }

    /// Every element of the list, or every value of the dictionary, the value holds (`[*]`): a
    /// comparison holds when any of them matches.
    ///
    ///     things.where { $0.anyValue.any == .int(5) }
    public var any: Query<AnyRealmValue> { suffixed("[*]") }
}

extension Query where T: _QueryableMap {
    /// The value stored under `key` (null when there is none).
    ///
    ///     people.where { $0.scores["math"] > 5 }
    public subscript(key: T.Key) -> Query<T.Value> {
        suffixed("[%@]", [key._mapKeyString])
    }

    /// The keys of the dictionary: a comparison holds when any key matches (`@allKeys`).
    ///
    ///     people.where { $0.scores.keys == "math" }
    public var keys: Query<T.Key> { suffixed(".@allKeys") }

    /// The values of the dictionary: a comparison holds when any value matches (`@allValues`).
    ///
    ///     people.where { $0.scores.values > 5 }
    public var values: Query<T.Value> { suffixed(".@allValues") }

    /// The number of entries (`@count`).
    ///
    ///     people.where { $0.scores.count > 2 }
    public var count: Query<Int> { suffixed(".@count") }

    /// Whether some entry holds `value`.
    ///
    ///     people.where { $0.scores.contains(10) }
    public func contains(_ value: T.Value) -> Query<Bool> {
        condition({ "%@ IN \($0)" }, { [value] + $0 })
    }

    /// Whether some entry holds one of `values`.
    ///
    ///     people.where { $0.scores.containsAny(in: [9, 10]) }
    public func containsAny<U: Sequence>(in values: U) -> Query<Bool> where U.Element == T.Value {
        let list = Array(values)
        return condition({ "ANY \($0) IN %@" }, { $0 + [list] })
    }
}

extension Query where T: _QueryableMap, T.Value.PersistedType: _QueryNumeric {
    /// The smallest value (`@min`).
    ///
    ///     people.where { $0.scores.min >= 5 }
    public var min: Query<T.Value> { suffixed(".@min") }

    /// The largest value (`@max`).
    ///
    ///     people.where { $0.scores.max == 10 }
    public var max: Query<T.Value> { suffixed(".@max") }

    /// The sum of the values (`@sum`).
    ///
    ///     people.where { $0.scores.sum > 20 }
    public var sum: Query<T.Value> { suffixed(".@sum") }

    /// The average of the values (`@avg`).
    ///
    ///     people.where { $0.scores.avg > 5 }
    public var avg: Query<T.Value> { suffixed(".@avg") }
}

// MARK: Comparisons

extension Query where T: _CValueConvertible {
    /// Equal to a value (nil for optionals; an object by identity).
    ///
    ///     people.where { $0.name == "Ada" }
    ///     people.where { $0.dog == nil }
    public static func == (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("==", rhs) }

    /// Not equal to a value (nil matches a value other than nil).
    ///
    ///     people.where { $0.height != nil }
    public static func != (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("!=", rhs) }

    /// Equal to another property.
    ///
    ///     people.where { $0.name == $0.dog.name }
    public static func == (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare("==", rhs) }

    /// Not equal to another property.
    ///
    ///     people.where { $0.name != $0.dog.name }
    public static func != (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare("!=", rhs) }

    /// Equal to one of `values` (`IN`).
    ///
    ///     people.where { $0.name.in(["Ada", "Grace"]) }
    public func `in`<U: Sequence>(_ values: U) -> Query<Bool> where U.Element == T {
        let list = Array(values)
        return condition({ "\($0) IN %@" }, { $0 + [list] })
    }
}

extension Query where T: _QueryComparable {
    /// Less than a value.
    ///
    ///     people.where { $0.age < 18 }
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("<", rhs) }

    /// Less than or equal to a value.
    ///
    ///     people.where { $0.age <= 18 }
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare("<=", rhs) }

    /// Greater than a value.
    ///
    ///     people.where { $0.age > 18 }
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(">", rhs) }

    /// Greater than or equal to a value.
    ///
    ///     people.where { $0.age >= 18 }
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(">=", rhs) }

    /// Less than another property.
    ///
    ///     items.where { $0.price < $0.budget }
    public static func < (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare("<", rhs) }

    /// Less than or equal to another property.
    ///
    ///     items.where { $0.price <= $0.budget }
    public static func <= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare("<=", rhs) }

    /// Greater than another property.
    ///
    ///     items.where { $0.price > $0.budget }
    public static func > (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(">", rhs) }

    /// Greater than or equal to another property.
    ///
    ///     items.where { $0.price >= $0.budget }
    public static func >= (lhs: Query, rhs: Query) -> Query<Bool> { lhs.compare(">=", rhs) }
}

extension Query where T: _QueryNumeric & Comparable {
    /// Within a closed range (`BETWEEN`).
    ///
    ///     people.where { $0.age.contains(18...65) }
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        condition({ "\($0) BETWEEN {%@, %@}" }, { $0 + [range.lowerBound, range.upperBound] })
    }

    /// Within a half-open range (at least its lower bound, less than its upper bound).
    ///
    ///     people.where { $0.age.contains(18..<65) }
    public func contains(_ range: Range<T>) -> Query<Bool> {
        condition({ "(\($0) >= %@ AND \($0) < %@)" }, { $0 + [range.lowerBound] + $0 + [range.upperBound] })
    }
}

// MARK: CustomPersistable

extension Query where T: _Persistable {
    /// The value as it is stored (a `CustomPersistable`'s or `PersistableEnum`'s persisted
    /// value) rather than the value itself: for conditions the persisted type takes, such as the
    /// members of an embedded object a `CustomPersistable` is stored as. For other types it is
    /// the same key path.
    ///
    ///     shapes.where { $0.center.persistableValue.x > 5 }
    public var persistableValue: Query<T.PersistedType> { suffixed("") }
}

// MARK: Strings

/// String and Data properties, and custom types stored as strings or data (`CustomPersistable`).
extension Query where T: _HasPersistedType, T.PersistedType: _QueryBinary {
    private func stringOperator(_ op: String, _ value: T, _ options: StringOptions) -> Query<Bool> {
        condition({ "\($0) \(op)\(options.modifier) %@" }, { $0 + [value] })
    }

    /// Contains a substring (`CONTAINS`).
    ///
    ///     people.where { $0.name.contains("da", options: .caseInsensitive) }
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        stringOperator("CONTAINS", value, options)
    }

    /// Starts with a prefix (`BEGINSWITH`).
    ///
    ///     people.where { $0.name.starts(with: "A") }
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        stringOperator("BEGINSWITH", value, options)
    }

    /// Ends with a suffix (`ENDSWITH`).
    ///
    ///     people.where { $0.name.ends(with: "a") }
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        stringOperator("ENDSWITH", value, options)
    }

    /// Equal, with options.
    ///
    ///     people.where { $0.name.equals("ADA", options: .caseInsensitive) }
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        stringOperator("==", value, options)
    }

    /// Not equal, with options.
    ///
    ///     people.where { $0.name.notEquals("ADA", options: .caseInsensitive) }
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        stringOperator("!=", value, options)
    }
}

extension Query where T: _HasPersistedType, T.PersistedType: _QueryString {
    /// Matches a wildcard pattern: `*` any run of characters, `?` one character (`LIKE`).
    ///
    ///     people.where { $0.name.like("A?a*", caseInsensitive: true) }
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        let options: StringOptions = caseInsensitive ? .caseInsensitive : []
        return condition({ "\($0) LIKE\(options.modifier) %@" }, { $0 + [value] })
    }
}

// MARK: Logic

extension Query where T == Bool {
    /// `lhs` and `rhs` joined by `op`; their subquery forms too when one of them is on a
    /// collection's objects (the other one, on the same collection or none, read from its object).
    private static func join(_ lhs: Query<Bool>, _ op: String, _ rhs: Query<Bool>) -> Query<Bool> {
        let (l, lArguments) = lhs.markedPredicate()
        let (r, rArguments) = rhs.markedPredicate()
        var element: QueryElement?
        switch (lhs.element, rhs.element) {
        case let (a?, b?) where a.collection == b.collection:
            element = QueryElement(collection: a.collection, expression: "(\(a.expression)) \(op) (\(b.expression))")
        case let (a?, nil):
            element = QueryElement(collection: a.collection, expression: "(\(a.expression)) \(op) (\(fromSubqueryObject(r)))")
        case let (nil, b?):
            element = QueryElement(collection: b.collection, expression: "(\(fromSubqueryObject(l))) \(op) (\(b.expression))")
        default:
            break
        }
        return Query<Bool>(predicate: "(\(l)) \(op) (\(r))", lArguments + rArguments, element: element)
    }

    /// Both conditions hold.
    ///
    ///     people.where { $0.age > 18 && $0.name == "Ada" }
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { join(lhs, "AND", rhs) }

    /// Either condition holds.
    ///
    ///     people.where { $0.age < 18 || $0.age > 65 }
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> { join(lhs, "OR", rhs) }

    /// The condition does not hold.
    ///
    ///     people.where { !$0.name.starts(with: "A") }
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        let (predicate, arguments) = query.markedPredicate()
        let element = query.element.map { QueryElement(collection: $0.collection, expression: "NOT (\($0.expression))") }
        return Query<Bool>(predicate: "NOT (\(predicate))", arguments, element: element)
    }
}
