// Query.swift — Realm's type-safe queries (`where { $0.age > 5 }`): Query<T> builds a predicate
// string with its arguments, the same one `filter(_:_:)` takes; and how Swift key paths map to
// property names (a recording instance reads the key path).

import CEngine
import Foundation
import Synchronization

// MARK: - Property names of key paths

/// Reads a key path on an unmanaged instance whose accessors report the properties they reach:
/// each `@Persisted` getter of such an instance records its property's name (through its token,
/// as schema discovery maps it) and, for a to-one link, returns another recording instance so
/// that the key path can go on (`\Person.dog?.name` is `dog.name`).
@usableFromInline
final class KeyPathRecorder {
    private(set) var names: [String] = []

    /// A recording instance of `objectClass`.
    func instance(of objectClass: ObjectBase.Type) -> ObjectBase {
        resetPersistedTokens()
        let object = objectClass.init()
        object._keyPathRecorder = self
        return object
    }

    /// Records the property of `object` whose wrapper has `token`; returns a recording instance
    /// of the target for a to-one link, nil otherwise (the caller returns the unmanaged value).
    @usableFromInline
    func record<Value: _Persistable>(_ object: ObjectBase, token: Int32, _: Value.Type) -> Value? {
        let info = ObjectSchemaInfo.of(type(of: object))
        let property = info.properties[info.propertyIndexByToken[Int(token)]]
        let shape = Value._rlmShape()
        names.append(property.name)
        guard let target = shape.linkTarget, shape.collection == CE_COLLECTION_NONE, !shape.isLinkingObjects else { return nil }
        return instance(of: target) as? Value
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
    let recorder = KeyPathRecorder()
    let root = recorder.instance(of: Root.self) as! Root
    _ = root[keyPath: keyPath]
    guard !recorder.names.isEmpty else {
        throwRealmException("Key path '\(keyPath)' does not reach a persisted property of '\(ObjectSchemaInfo.className(of: Root.self))'.")
    }
    let path = recorder.names.joined(separator: ".")
    propertyPaths.withLock { $0[key] = path }
    return path
}

// MARK: - Marker protocols

/// Types whose properties compare with `<`, `<=`, `>`, `>=` in a query: numbers, `Date`,
/// `Decimal128`, `String`, `ObjectId`, `UUID`, `AnyRealmValue` and their optionals.
/// Internal machinery of OpenRealm.
public protocol _QueryComparable: _CValueConvertible {}

/// Types whose properties take ranges (`contains(1...5)`) and collection aggregates (`.avg`) in a
/// query: numbers, `Date`, `Decimal128` and their optionals. Internal machinery of OpenRealm.
public protocol _QueryNumeric: _QueryComparable {}

/// Types whose properties take string operators (`contains`, `starts(with:)`, `like`) in a
/// query: `String` and `String?`. Internal machinery of OpenRealm.
public protocol _QueryString: _QueryComparable {}

/// The collections a query reaches into: `List`, `MutableSet` and `LinkingObjects` properties.
/// Internal machinery of OpenRealm.
public protocol _QueryableCollection: Sequence {}

extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryNumeric {}
extension String: _QueryString {}
extension ObjectId: _QueryComparable {}
extension UUID: _QueryComparable {}
extension AnyRealmValue: _QueryComparable {}
extension Optional: _QueryComparable where Wrapped: _QueryComparable {}
extension Optional: _QueryNumeric where Wrapped: _QueryNumeric {}
extension Optional: _QueryString where Wrapped: _QueryString {}
extension List: _QueryableCollection {}
extension MutableSet: _QueryableCollection {}
extension LinkingObjects: _QueryableCollection {}

/// How string operators of a type-safe query compare (Realm's `StringOptions`).
///
///     people.where { $0.name.contains("ada", options: [.caseInsensitive, .diacriticInsensitive]) }
public struct StringOptions: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int8

    /// Options from their raw bits.
    ///
    ///     StringOptions(rawValue: 1) == .caseInsensitive
    public init(rawValue: Int8) { self.rawValue = rawValue }

    /// Upper and lower case letters compare equal (`[c]`).
    ///
    ///     $0.name.starts(with: "a", options: .caseInsensitive)
    public static let caseInsensitive = StringOptions(rawValue: 1)

    /// Letters with and without diacritics compare equal (`[d]`).
    ///
    ///     $0.name.equals("zoe", options: .diacriticInsensitive)   // matches "Zoë"? only with [c] too
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    /// The predicate modifier: "", "[c]", "[d]" or "[cd]".
    var modifier: String {
        let c = contains(.caseInsensitive) ? "c" : ""
        let d = contains(.diacriticInsensitive) ? "d" : ""
        return c.isEmpty && d.isEmpty ? "" : "[\(c)\(d)]"
    }
}

// MARK: - Query

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
/// `StringOptions`, `in(_:)`, `contains(range)`, and on collections `count`, `contains(_:)`,
/// `containsAny(in:)`, `min`, `max`, `sum`, `avg` and element properties (any element matches).
@dynamicMemberLookup
public struct Query<T> {
    enum Node {
        /// The objects queried (`$0`).
        case root
        /// A key path from the objects: the values a condition compares.
        case keyPath(String)
        /// A condition, with the arguments of its `%@` placeholders in order.
        case predicate(String, [Any])
    }

    let node: Node

    init(root: ()) { node = .root }

    init(keyPath: String) { node = .keyPath(keyPath) }

    init(predicate: String, _ arguments: [Any]) { node = .predicate(predicate, arguments) }

    /// The key path of this expression (a condition or `$0` itself where a key path is needed is
    /// a programmer error).
    var keyPath: String {
        switch node {
        case .keyPath(let path): return path
        case .root: return "SELF"
        case .predicate(let predicate, _): throwRealmException("A condition (\(predicate)) was used where a property was expected.")
        }
    }

    /// The key path of `name` reached from this expression.
    func appending(_ name: String) -> String {
        if case .root = node { return name }
        return keyPath + "." + name
    }

    /// The predicate of a condition: a Bool property alone means `property == true`.
    func predicate() -> (String, [Any]) {
        switch node {
        case .predicate(let predicate, let arguments): return (predicate, arguments)
        case .keyPath(let path): return ("\(path) == true", [])
        case .root: return ("TRUEPREDICATE", [])
        }
    }

    /// A comparison of this key path with one value.
    func compare(_ op: String, _ value: Any) -> Query<Bool> {
        Query<Bool>(predicate: "\(keyPath) \(op) %@", [value])
    }

    /// A comparison of this key path with another one.
    func compare<U>(_ op: String, _ other: Query<U>) -> Query<Bool> {
        Query<Bool>(predicate: "\(keyPath) \(op) \(other.keyPath)", [])
    }
}

// MARK: Members

extension Query where T: ObjectBase {
    /// A property of the queried objects, or of a linked object.
    ///
    ///     people.where { $0.name == "Ada" }
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> {
        Query<V>(keyPath: appending(propertyPath(of: member)))
    }
}

extension Query {
    /// A property of an optional linked object (null when the link is).
    ///
    ///     people.where { $0.dog.name == "Rex" }
    public subscript<O: ObjectBase, V>(dynamicMember member: KeyPath<O, V>) -> Query<V> where T == O? {
        Query<V>(keyPath: appending(propertyPath(of: member)))
    }
}

extension Query where T: _QueryableCollection {
    /// A property of the objects of a collection: a comparison holds when any of them matches.
    ///
    ///     people.where { $0.dogs.name == "Rex" }    // a person with a dog named Rex
    public subscript<V>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: ObjectBase {
        Query<V>(keyPath: appending(propertyPath(of: member)))
    }

    /// The number of elements of the collection (`@count`).
    ///
    ///     people.where { $0.dogs.count > 1 }
    public var count: Query<Int> { Query<Int>(keyPath: keyPath + ".@count") }

    /// Whether the collection holds `value` (an object by identity).
    ///
    ///     people.where { $0.nicknames.contains("Ada") }
    ///     people.where { $0.dogs.contains(rex) }
    public func contains(_ value: T.Element) -> Query<Bool> {
        Query<Bool>(predicate: "%@ IN \(keyPath)", [value])
    }

    /// Whether the collection holds any of `values`.
    ///
    ///     people.where { $0.nicknames.containsAny(in: ["Ada", "Countess"]) }
    public func containsAny<U: Sequence>(in values: U) -> Query<Bool> where U.Element == T.Element {
        Query<Bool>(predicate: "ANY \(keyPath) IN %@", [Array(values)])
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

extension Query where T: _QueryableCollection, T.Element: _QueryNumeric {
    /// The smallest element of a collection of numbers or dates (`@min`).
    ///
    ///     people.where { $0.scores.min > 3 }
    public var min: Query<T.Element> { Query<T.Element>(keyPath: keyPath + ".@min") }

    /// The largest element (`@max`).
    ///
    ///     people.where { $0.scores.max < 10 }
    public var max: Query<T.Element> { Query<T.Element>(keyPath: keyPath + ".@max") }

    /// The sum of the elements (`@sum`).
    ///
    ///     people.where { $0.scores.sum >= 100 }
    public var sum: Query<T.Element> { Query<T.Element>(keyPath: keyPath + ".@sum") }

    /// The average of the elements (`@avg`).
    ///
    ///     people.where { $0.scores.avg > 5 }
    public var avg: Query<T.Element> { Query<T.Element>(keyPath: keyPath + ".@avg") }
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
        Query<Bool>(predicate: "\(keyPath) IN %@", [Array(values)])
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
        Query<Bool>(predicate: "\(keyPath) BETWEEN {%@, %@}", [range.lowerBound, range.upperBound])
    }

    /// Within a half-open range (at least its lower bound, less than its upper bound).
    ///
    ///     people.where { $0.age.contains(18..<65) }
    public func contains(_ range: Range<T>) -> Query<Bool> {
        Query<Bool>(predicate: "(\(keyPath) >= %@ AND \(keyPath) < %@)", [range.lowerBound, range.upperBound])
    }
}

// MARK: Strings

extension Query where T: _QueryString {
    private func stringOperator(_ op: String, _ value: T, _ options: StringOptions) -> Query<Bool> {
        Query<Bool>(predicate: "\(keyPath) \(op)\(options.modifier) %@", [value])
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

    /// Matches a wildcard pattern: `*` any run of characters, `?` one character (`LIKE`).
    ///
    ///     people.where { $0.name.like("A?a*", caseInsensitive: true) }
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        stringOperator("LIKE", value, caseInsensitive ? .caseInsensitive : [])
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

// MARK: Logic

extension Query where T == Bool {
    /// Both conditions hold.
    ///
    ///     people.where { $0.age > 18 && $0.name == "Ada" }
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        let (l, lArguments) = lhs.predicate()
        let (r, rArguments) = rhs.predicate()
        return Query<Bool>(predicate: "(\(l)) AND (\(r))", lArguments + rArguments)
    }

    /// Either condition holds.
    ///
    ///     people.where { $0.age < 18 || $0.age > 65 }
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        let (l, lArguments) = lhs.predicate()
        let (r, rArguments) = rhs.predicate()
        return Query<Bool>(predicate: "(\(l)) OR (\(r))", lArguments + rArguments)
    }

    /// The condition does not hold.
    ///
    ///     people.where { !$0.name.starts(with: "A") }
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        let (predicate, arguments) = query.predicate()
        return Query<Bool>(predicate: "NOT (\(predicate))", arguments)
    }
}
