// ResultsQuery.swift — what a filtered, sorted or distinct Results is (a predicate and its
// descriptors), how it becomes engine handles (ce_query, ce_results), how Swift values become
// query arguments, and how aggregates are computed and read back.

import CEngine
import Foundation

/// `value` (an aggregate's result) as a value of the engine type `type`: sums of floats and
/// averages of integers come back as doubles, and are read as the caller's type.
func aggregateValue(_ value: ce_value, as type: ce_type) -> ce_value {
    guard !value.isNull, value.type != type, type != CE_TYPE_MIXED else { return value }
    var number: Double
    switch value.type {
    case CE_TYPE_INT: number = Double(value.integer)
    case CE_TYPE_FLOAT: number = Double(value.float_value)
    case CE_TYPE_DOUBLE: number = value.double_value
    // A Decimal128 average or sum read as a number of another type (`let mean: Double? =
    // decimals.average()`): the decimal's value, not its bits.
    case CE_TYPE_DECIMAL128: number = Decimal128(bits: value.decimal).doubleValue
    default: return value
    }
    var result = ce_value()
    result.type = type
    switch type {
    case CE_TYPE_INT:
        if value.type == CE_TYPE_INT { return value }
        result.integer = number.isFinite ? Int64(number.rounded(.towardZero)) : 0
    case CE_TYPE_FLOAT: result.float_value = Float(number)
    case CE_TYPE_DOUBLE: result.double_value = number
    case CE_TYPE_DECIMAL128:
        let decimal = value.type == CE_TYPE_INT ? Decimal128(Int(value.integer)) : Decimal128.fromDouble(number)
        result.decimal = decimal.bits
    default: return value
    }
    return result
}

// MARK: - Arguments

/// The `%@` and `%K` arguments of a predicate as the engine takes them: values, and lists of
/// values for `IN %@`. Owns the bytes the arguments point at.
final class QueryArguments {
    private let arena = _CArena()
    private var lists: [UnsafeMutableBufferPointer<ce_value>] = []
    private var shapes: [(UnsafeMutablePointer<ce_geo>, UnsafeMutableBufferPointer<ce_geo_point>, UnsafeMutableBufferPointer<Int>,
        UnsafeMutableBufferPointer<Double>)] = []
    private(set) var arguments: [ce_query_argument] = []
    private let core: RealmCore

    /// Converts `values`: nil, scalars (Int, Double, String, Date, Data, ObjectId, UUID,
    /// Decimal128, Bool, enums, AnyRealmValue), managed objects (compared by identity), and
    /// sequences of these (lists). Anything else is a programmer error.
    init(_ values: [Any], _ core: RealmCore) {
        self.core = core
        arguments = values.map(argument)
    }

    deinit {
        for list in lists { list.deallocate() }
        for (shape, points, sizes, altitudes) in shapes {
            shape.deallocate()
            points.deallocate()
            sizes.deallocate()
            altitudes.deallocate()
        }
    }

    private func argument(_ value: Any) -> ce_query_argument {
        var argument = ce_query_argument()
        if let shape = unwrapOptional(value) as? any RLMGeospatial {
            argument.kind = CE_QUERY_ARGUMENT_GEO
            argument.geo = UnsafePointer(geo(shape))
            return argument
        }
        if let unwrapped = unwrapOptional(value), !(unwrapped is String), !(unwrapped is Data),
            !(unwrapped is any _CValueConvertible), !(unwrapped is ObjectBase), let sequence = unwrapped as? any Sequence
        {
            let items = sequenceElements(sequence)
            let buffer = UnsafeMutableBufferPointer<ce_value>.allocate(capacity: max(items.count, 1))
            for (index, item) in items.enumerated() { buffer[index] = scalar(item) }
            lists.append(buffer)
            argument.kind = CE_QUERY_ARGUMENT_LIST
            argument.list = UnsafePointer(buffer.baseAddress)
            argument.list_count = items.count
            return argument
        }
        argument.kind = CE_QUERY_ARGUMENT_VALUE
        argument.value = scalar(value)
        return argument
    }

    /// A shape as the engine takes it (points as longitude, latitude, and every point's altitude,
    /// as Realm Swift passes them to realm-core, which prints them in its messages), owned by
    /// these arguments.
    private func geo(_ shape: any RLMGeospatial) -> UnsafeMutablePointer<ce_geo> {
        var value = ce_geo()
        var rings: [[GeoPoint]] = []
        var cornerAltitudes: [Double] = []
        func point(_ p: GeoPoint) -> ce_geo_point { ce_geo_point(longitude: p.longitude, latitude: p.latitude) }
        switch shape {
        case let box as GeoBox:
            value.kind = CE_GEO_BOX
            value.corners = (point(box.bottomLeft), point(box.topRight))
            cornerAltitudes = [box.bottomLeft.altitude, box.topRight.altitude]
        case let circle as GeoCircle:
            value.kind = CE_GEO_CIRCLE
            value.center = point(circle.center)
            value.radius_radians = circle.radians
            cornerAltitudes = [circle.center.altitude]
        case let polygon as GeoPolygon:
            value.kind = CE_GEO_POLYGON
            rings = [polygon.outerRing] + (polygon.holes ?? [])
            cornerAltitudes = rings.joined().map(\.altitude)
        default:
            throwRealmException("Unsupported predicate value type '\(type(of: shape))': a geospatial query takes a GeoBox, "
                + "GeoPolygon or GeoCircle.")
        }
        let points = UnsafeMutableBufferPointer<ce_geo_point>.allocate(capacity: max(rings.joined().count, 1))
        let sizes = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(rings.count, 1))
        var used = 0
        for (index, ring) in rings.enumerated() {
            sizes[index] = ring.count
            for p in ring {
                points[used] = point(p)
                used += 1
            }
        }
        if value.kind == CE_GEO_POLYGON {
            value.points = UnsafePointer(points.baseAddress)
            value.ring_sizes = UnsafePointer(sizes.baseAddress)
            value.ring_count = rings.count
        }
        let altitudes = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(cornerAltitudes.count, 1))
        _ = altitudes.initialize(from: cornerAltitudes)
        value.altitudes = UnsafePointer(altitudes.baseAddress)
        let kept = UnsafeMutablePointer<ce_geo>.allocate(capacity: 1)
        kept.initialize(to: value)
        shapes.append((kept, points, sizes, altitudes))
        return kept
    }

    private func scalar(_ value: Any) -> ce_value {
        guard let value = unwrapOptional(value) else { return .null }
        switch value {
        case is NSNull:
            return .null
        case let object as ObjectBase:
            // An unmanaged or deleted object equals no stored object (Realm's rule): a link to
            // no key, which `==` never matches and `!=` always does.
            guard object._table != nil, !object.isInvalidated else { return .link(0, -1) }
            // An object of another Realm (another file, or a frozen version) has keys of its own
            // file or version: Realm refuses it rather than compare them.
            guard object._core === core else { throwRealmException("Object must be from the Realm being queried") }
            return .link(object._tableKey, object._key)
        case let string as String:
            return arena.string(string)
        case let string as Substring:
            return arena.string(String(string))
        case let convertible as any _CValueConvertible:
            return convertible._ceValue(arena, Realm(core))
        // Foundation's reference types (NSDate, NSData, NSNumber), as Realm takes them.
        case let date as Date:
            return date._ceValue(arena, nil)
        case let data as Data:
            return data._ceValue(arena, nil)
        case let number as NSNumber:
            if let integer = number as? Int { return .int(Int64(integer)) }
            return number.doubleValue._ceValue(arena, nil)
        default:
            throwRealmException("Unsupported predicate value type '\(type(of: value))' for '\(value)'.")
        }
    }
}

/// The elements of a sequence, boxed.
func sequenceElements<S: Sequence>(_ sequence: S) -> [Any] {
    sequence.map { $0 as Any }
}

// MARK: - Parsing

/// Parses `predicate` (as `enginePredicate` wrote it) for `table`; a predicate that does not
/// parse or bind is a programmer error, reported with Realm's opening, the predicate as the
/// caller wrote it (`shown`), and the engine's message (position and token).
func parseQuery(_ core: RealmCore, _ table: TableInfo, _ predicate: String, _ values: [Any], shown: String? = nil) -> OpaquePointer {
    let arguments = QueryArguments(values, core)
    var query: OpaquePointer?
    // Realm Swift's checks of the values compared with (nil with a required property).
    var options = ce_query_options(realm_swift_values: true)
    let ok = arguments.arguments.withUnsafeBufferPointer { buffer in
        ce_query_parse_with(core.currentTxn(), table.tableKey, predicate, buffer.baseAddress, buffer.count, &options, &query)
    }
    withExtendedLifetime(arguments) {}
    guard ok, let query else { queryFailure(shown ?? predicate, table) }
    return query
}

// MARK: - LinkingObjects in key paths

/// `path` as the engine names it: each property on its way by its name in the file (its
/// persisted name, `propertiesMapping()`), and each LinkingObjects property (as the model names
/// it: `owners`) written as the links it follows back (`@links.Person.dogs`); anything else as
/// it is.
///
///     engineKeyPath("owners.name", dogSchema) == "@links.Person.dogs.name"
func engineKeyPath(_ path: String, _ schema: ObjectSchemaInfo) -> String {
    engineKeyPathAndTarget(path, schema).path
}

/// The collection operators a key path may have between its properties (`dogs.@sum.age`).
private let keyPathOperators: Set<String> = ["@count", "@size", "@sum", "@avg", "@min", "@max"]

/// `engineKeyPath`, and the class the path ends at when it ends at objects (the target of its
/// last link), for a SUBQUERY's variable.
func engineKeyPathAndTarget(_ path: String, _ schema: ObjectSchemaInfo) -> (path: String, target: ObjectSchemaInfo?) {
    var info = schema
    var reached: ObjectSchemaInfo?
    var parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    var changed = false
    for index in parts.indices {
        reached = nil
        if keyPathOperators.contains(parts[index]) { continue }
        guard let property = info.indexByName[parts[index]].map({ info.properties[$0] }) else { break }
        if property.columnName != property.name {
            parts[index] = property.columnName
            changed = true
        }
        guard let target = property.shape.linkTarget else { break }
        let targetInfo = ObjectSchemaInfo.of(target)
        if property.shape.isLinkingObjects, let origin = property.originProperty {
            let originColumn = targetInfo.indexByName[origin].map { targetInfo.properties[$0].columnName } ?? origin
            parts[index] = "@links.\(targetInfo.className).\(originColumn)"
            changed = true
        }
        info = targetInfo
        reached = targetInfo
    }
    return (changed ? parts.joined(separator: ".") : path, reached)
}

/// A predicate as the engine takes it, with its arguments, to be joined after `offset` earlier
/// arguments (those of the filters before it):
/// - the key paths in it pass through `engineKeyPath` (Realm's predicates name LinkingObjects
///   properties, the engine's name backlinks); string literals, `$` variables and numbers are
///   left as they are;
/// - each `%@`, and each printf-style value specifier NSPredicate's format takes (`%d`, `%i`,
///   `%u`, `%ld`, `%lld`, `%lu`, `%hd`, `%qi`, `%zd`, `%x`, `%o`, `%f`, `%lf`, `%e`, `%g`, ...:
///   `valueSpecifierLength`), becomes `$<offset + n>`, n counting the `%` placeholders (the
///   argument is taken as it is, as `%@` takes it), and each `$N` becomes
///   `$<offset + N>`: every argument is then named by position, so filters joined with AND
///   each take their own;
/// - each `%K` is replaced by its argument, a key path (checked to be one);
/// - `path == %@`, `path != %@`, `%@ == path`, `%@ IN collection` with a value compared member
///   by member (a CustomPersistable mapped to an embedded object), and `path IN %@` with several,
///   become comparisons of each member (`memberwiseRewrite`, `memberwiseInRewrite`);
/// - the arguments are those the placeholders name (NSPredicate ignores extra ones).
func enginePredicate(_ predicate: String, _ schema: ObjectSchemaInfo, _ arguments: [Any], offset: Int = 0)
    -> (predicate: String, arguments: [Any])
{
    let bytes = Array(predicate.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var placeholder = 0
    var used = 0
    var index = 0
    // A value compared member by member becomes comparisons with its members' values, appended
    // after the arguments (MemberwiseQuery.swift).
    var finalArguments = arguments
    var expanded = false
    // SUBQUERY(collection, $x, ...): the class of $x's objects, for its key paths.
    var subqueryTarget: ObjectSchemaInfo?
    var variables: [String: ObjectSchemaInfo] = [:]
    func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: ".") || isDigit(byte)
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    // Argument `number`, whose placeholder ends at `end`, if it is compared member by member
    // (MemberwiseQuery.swift): the comparison it ends (`path == %@`, `path IN %@` with several)
    // or starts (`%@ == path`) becomes comparisons of its members; returns where the predicate
    // goes on, nil for any other value.
    func memberwise(_ number: Int, after end: Int) -> Int? {
        guard number < arguments.count else { return nil }
        if let objects = memberwiseObjects(arguments[number]) {
            finalArguments[number] = NSNull()
            memberwiseInRewrite(&output, with: objects, values: &finalArguments, offset: offset, schema: schema, predicate: predicate)
            return end
        }
        guard let object = memberwiseObject(arguments[number]) else { return nil }
        finalArguments[number] = NSNull()
        if !memberwiseEndsWithComparison(output), let reversed = memberwiseReversed(bytes, from: end) {
            let path = reversed.path.hasPrefix("$") ? reversed.path : engineKeyPath(reversed.path, schema)
            var comparison = Array((reversed.op == "IN" ? "ANY \(path) ==" : "\(path) \(reversed.op)").utf8)
            memberwiseRewrite(&comparison, with: object, values: &finalArguments, offset: offset, schema: schema, predicate: predicate)
            output += comparison
            return reversed.end
        }
        memberwiseRewrite(&output, with: object, values: &finalArguments, offset: offset, schema: schema, predicate: predicate)
        return end
    }
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
            // A string literal, escapes included, copied as it is.
            var end = index + 1
            while end < bytes.count && bytes[end] != byte { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
            end = Swift.min(end + 1, bytes.count)
            output += bytes[index..<end]
            index = end
        } else if byte == UInt8(ascii: "%"), let length = valueSpecifierLength(bytes, index) {
            used = Swift.max(used, placeholder + 1)
            if let next = memberwise(placeholder, after: index + length) {
                expanded = true
                index = next
            } else {
                output += Array("$\(offset + placeholder)".utf8)
                index += length
            }
            placeholder += 1
        } else if byte == UInt8(ascii: "%"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "K") {
            guard placeholder < arguments.count, let path = unwrapOptional(arguments[placeholder]) as? String,
                !path.isEmpty, path.utf8.allSatisfy(isWordByte)
            else {
                throwRealmException("Unable to parse the format string \"\(predicate)\": %K takes a key path string, "
                    + "argument \(placeholder) is \(placeholder < arguments.count ? "'\(arguments[placeholder])'" : "missing").")
            }
            output += Array(engineKeyPath(path, schema).utf8)
            placeholder += 1
            used = Swift.max(used, placeholder)
            index += 2
        } else if byte == UInt8(ascii: "$"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
            var end = index + 1
            while end < bytes.count && isDigit(bytes[end]) { end += 1 }
            let number = Int(String(decoding: bytes[(index + 1)..<end], as: UTF8.self)) ?? 0
            used = Swift.max(used, number + 1)
            if let next = memberwise(number, after: end) {
                expanded = true
                index = next
            } else {
                output += Array("$\(offset + number)".utf8)
                index = end
            }
        } else if isWordByte(byte) || byte == UInt8(ascii: "$") {
            var end = index + 1
            while end < bytes.count && isWordByte(bytes[end]) { end += 1 }
            let word = String(decoding: bytes[index..<end], as: UTF8.self)
            if byte != UInt8(ascii: "$") && !isDigit(byte) {
                // The collection of a SUBQUERY: its objects' class names the variable's properties.
                let translated = engineKeyPathAndTarget(word, schema)
                subqueryTarget = endsWithSubqueryOpening(output) ? translated.target : nil
                output += Array(translated.path.utf8)
            } else if byte == UInt8(ascii: "$"), let dot = word.firstIndex(of: "."), let info = variables[String(word[..<dot])] {
                output += Array((String(word[..<dot]) + "." + engineKeyPath(String(word[word.index(after: dot)...]), info)).utf8)
            } else {
                if byte == UInt8(ascii: "$"), let target = subqueryTarget, !word.contains(".") { variables[word] = target }
                subqueryTarget = nil
                output += bytes[index..<end]
            }
            index = end
        } else {
            output.append(byte)
            index += 1
        }
    }
    return (String(decoding: output, as: UTF8.self), expanded ? finalArguments : Array(arguments.prefix(used)))
}

/// Whether `output` ends with `SUBQUERY(` (any case, spaces allowed): the next word is the
/// collection a subquery's variable walks.
private func endsWithSubqueryOpening(_ output: [UInt8]) -> Bool {
    var end = output.count
    while end > 0 && (output[end - 1] == UInt8(ascii: " ") || output[end - 1] == UInt8(ascii: "\t")) { end -= 1 }
    guard end > 0, output[end - 1] == UInt8(ascii: "(") else { return false }
    end -= 1
    while end > 0 && (output[end - 1] == UInt8(ascii: " ") || output[end - 1] == UInt8(ascii: "\t")) { end -= 1 }
    let keyword = Array("SUBQUERY".utf8)
    guard end >= keyword.count else { return false }
    return zip(output[(end - keyword.count)..<end], keyword).allSatisfy { $0 & 0xDF == $1 }
}

/// The length of the value placeholder at `index` (a `%`): `%@`, or a printf-style specifier of
/// a number as NSPredicate's format string takes them ("The format string supports printf-style
/// format specifiers such as %x", Apple's Predicate Format String Syntax; Realm Swift's own
/// tests filter with `"int16Col = %d"`): an optional length modifier (`hh`, `h`, `ll`, `l`, `q`,
/// `L`, `z`, `t`, `j`) and one of `d D i u U o O x X f F e E g G a A`. nil for anything else
/// (`%K` is a key path; the engine refuses the rest with its message).
func valueSpecifierLength(_ bytes: [UInt8], _ index: Int) -> Int? {
    var at = index + 1
    guard at < bytes.count else { return nil }
    if bytes[at] == UInt8(ascii: "@") { return 2 }
    for modifier in ["hh", "ll", "h", "l", "q", "L", "z", "t", "j"] {
        let modifierBytes = Array(modifier.utf8)
        if at + modifierBytes.count <= bytes.count, Array(bytes[at..<(at + modifierBytes.count)]) == modifierBytes {
            at += modifierBytes.count
            break
        }
    }
    guard at < bytes.count, "dDiuUoOxXfFeEgGaA".utf8.contains(bytes[at]) else { return nil }
    return at + 1 - index
}

/// Stops with Realm's message for a predicate or key path the engine refused.
func queryFailure(_ predicate: String, _ table: TableInfo) -> Never {
    let message = String(cString: ce_last_error_message())
    if ce_last_error_code() != CE_ERR_INVALID_QUERY { engineFailure("Cannot evaluate the predicate \"\(predicate)\"") }
    if message.contains("has no property") {
        throwRealmException("Invalid property name in predicate \"\(predicate)\" on class '\(table.schema.className)': \(message)")
    }
    throwRealmException("Unable to parse the format string \"\(predicate)\": \(message)")
}

// MARK: - A query's engine handles

/// What a filtered, sorted or distinct `Results` is: objects (those of a class, of a list or set
/// of links, or those linking to an object), those of them that match a predicate (the filters
/// joined with AND; nil: all of them), then its sort and distinct descriptors in the order they
/// were added — as Realm, a filter added after a sort filters before the sort and distinct
/// apply. The engine handles are made on first use and evaluate against whatever transaction the
/// Realm has at each call, so the results stay live.
final class ResultsQuery {
    /// The objects filtered.
    enum Base {
        /// Every object of the class, in key order.
        case table
        /// The objects of a list or set of links, in its order.
        case collection(ManagedCollection)
        /// The objects of the class whose link property `property` links to `owner`, in key
        /// order (a LinkingObjects property).
        case backlinks(owner: ObjectBase, property: String)
    }

    enum Descriptor {
        case sort([SortDescriptor])
        case distinct([String])
    }

    let objectClass: ObjectBase.Type
    /// For DynamicObjects (`objectClass` is `DynamicObject`): the name of their table.
    let typeName: String?
    let base: Base
    let predicate: String?
    let arguments: [Any]
    let descriptors: [Descriptor]

    private var query: OpaquePointer?
    /// The view of the base objects, of those that match, then one view per descriptor (the last
    /// one is read).
    private var views: [OpaquePointer] = []
    private var table: TableInfo?

    init(objectClass: ObjectBase.Type, typeName: String? = nil, base: Base = .table, predicate: String? = nil,
         arguments: [Any] = [], descriptors: [Descriptor] = []) {
        self.objectClass = objectClass
        self.typeName = typeName
        self.base = base
        self.predicate = predicate
        self.arguments = arguments
        self.descriptors = descriptors
    }

    deinit {
        for view in views.reversed() { ce_results_free(view) }
        ce_query_free(query)
    }

    /// This query with `predicate` (as `enginePredicate` wrote it, with its arguments) joined to
    /// its filters with AND.
    func filtered(_ predicate: String, _ arguments: [Any]) -> ResultsQuery {
        let joined = self.predicate.map { "(\($0)) AND (\(predicate))" } ?? predicate
        return ResultsQuery(objectClass: objectClass, typeName: typeName, base: base, predicate: joined,
                            arguments: self.arguments + arguments, descriptors: descriptors)
    }

    /// This query with one more descriptor.
    func adding(_ descriptor: Descriptor) -> ResultsQuery {
        ResultsQuery(objectClass: objectClass, typeName: typeName, base: base, predicate: predicate, arguments: arguments,
                     descriptors: descriptors + [descriptor])
    }

    /// The same query with engine handles of its own (a frozen Realm's thread reads with one).
    func copy() -> ResultsQuery {
        ResultsQuery(objectClass: objectClass, typeName: typeName, base: base, predicate: predicate, arguments: arguments,
                     descriptors: descriptors)
    }

    /// The same query over the data of `core` (a frozen or thawed Realm of the same file); nil
    /// if the object whose collection or linking objects it filters does not exist there.
    func rebased(onto core: RealmCore) -> ResultsQuery? {
        let newBase: Base
        switch base {
        case .table: newBase = .table
        case .collection(let collection):
            guard let moved = collection.rebased(onto: core) else { return nil }
            newBase = .collection(moved)
        case .backlinks(let owner, let property):
            guard let moved = core.importObject(owner) else { return nil }
            newBase = .backlinks(owner: moved, property: property)
        }
        return ResultsQuery(objectClass: objectClass, typeName: typeName, base: newBase, predicate: predicate,
                            arguments: arguments, descriptors: descriptors)
    }

    /// The name of the objects' class (their table's).
    var className: String { typeName ?? ObjectSchemaInfo.className(of: objectClass) }

    /// The table of the objects' class in `core` (DynamicObjects': their table's); nil while the
    /// file has none.
    func tableInfo(_ core: RealmCore) -> TableInfo? {
        guard let typeName else { return core.tableInfo(for: objectClass) }
        return core.dynamicTableInfo(named: typeName)
    }

    /// The schema the objects are read with (DynamicObjects': their table's; an empty one while
    /// the file has no table).
    func schemaInfo(_ core: RealmCore) -> ObjectSchemaInfo {
        typeName == nil ? ObjectSchemaInfo.of(objectClass) : tableInfo(core)?.schema ?? ObjectSchemaInfo.of(objectClass)
    }

    var hasDistinct: Bool {
        descriptors.contains { if case .distinct = $0 { true } else { false } }
    }

    /// The results view and the class's table; nil while the file has no table for the class.
    func view(_ core: RealmCore) -> (view: OpaquePointer, table: TableInfo)? {
        // A frozen Realm's threads read at once: each with its own copy (and handles).
        if let frozen = core.frozen { return frozen.query(self).ownView(core) }
        return ownView(core)
    }

    private func ownView(_ core: RealmCore) -> (view: OpaquePointer, table: TableInfo)? {
        // The class's table as the Realm knows it now: a write that created it may have been
        // cancelled since the handles were made.
        guard let table = tableInfo(core) else { return nil }
        if let last = views.last, let built = self.table {
            if built.tableKey == table.tableKey { return (last, built) }
            for view in views.reversed() { ce_results_free(view) }
            views = []
            ce_query_free(query)
            query = nil
        }
        let txn = core.currentTxn()
        var first: OpaquePointer?
        switch base {
        case .table:
            let query = parseQuery(core, table, predicate ?? "TRUEPREDICATE", arguments)
            self.query = query
            guard ce_query_find_all(query, &first) else { engineFailure() }
        case .collection(let collection):
            guard ce_results_from_collection(txn, collection.read(), &first) else { engineFailure() }
        case .backlinks(let owner, let property):
            guard let index = table.schema.indexByName[property] else {
                throwRealmException("Property '\(table.schema.className).\(property)' declared as origin of linking objects does not exist.")
            }
            _ = core.txn(for: owner)
            guard ce_results_from_backlinks(txn, owner._tableKey, owner._key, table.tableKey, table.columns[index].key, &first) else {
                engineFailure()
            }
        }
        guard let first else { engineFailure() }
        views = [first]
        if let predicate, query == nil {
            let query = parseQuery(core, table, predicate, arguments)
            self.query = query
            var filtered: OpaquePointer?
            guard ce_results_filter(txn, first, query, &filtered), let filtered else { engineFailure() }
            views.append(filtered)
        }
        for descriptor in descriptors {
            var next: OpaquePointer?
            let ok: Bool
            switch descriptor {
            case .sort(let descriptors):
                let keys = descriptors.map { SortDescriptor(keyPath: engineKeyPath($0.keyPath, table.schema), ascending: $0.ascending) }
                ok = withSortKeys(keys) { ce_results_sort(txn, views[views.count - 1], $0.baseAddress, $0.count, &next) }
                if !ok { descriptorFailure("sort on", descriptors.map(\.keyPath), table) }
            case .distinct(let keyPaths):
                ok = withCStrings(keyPaths.map { engineKeyPath($0, table.schema) }) { ce_results_distinct(txn, views[views.count - 1], $0.baseAddress, $0.count, &next) }
                if !ok { descriptorFailure("distinct on", keyPaths, table) }
            }
            guard let next else { engineFailure() }
            views.append(next)
        }
        self.table = table
        return (views[views.count - 1], table)
    }
}

/// Stops with realm-core's message for a sort or distinct key path that ends at a `Data`
/// property (its `is_sortable_type` refuses binary; the engine sorts binaries by bytes, and its
/// own messages cover the key paths realm-core refuses otherwise).
func refuseDataKeyPath(_ keyPath: String, _ schema: ObjectSchemaInfo) {
    if keyPath.contains("@") || keyPath.contains("[") { return }
    var info = schema
    let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    for (position, part) in parts.enumerated() {
        guard let index = info.indexByName[part] else { return }
        let shape = info.properties[index].shape
        if shape.collection != CE_COLLECTION_NONE { return }
        if shape.type == CE_TYPE_BINARY, position == parts.count - 1 {
            throwRealmException("Cannot sort on key path '\(keyPath)': property '\(info.className).\(part)' is of "
                + "unsupported type 'data'.")
        }
        guard let target = shape.linkTarget else { return }
        info = ObjectSchemaInfo.of(target)
    }
}

/// Stops with Realm's message for a key path that cannot be sorted or made distinct on.
private func descriptorFailure(_ what: String, _ keyPaths: [String], _ table: TableInfo) -> Never {
    let message = String(cString: ce_last_error_message())
    // The engine words the key paths Realm refuses as realm-core does ("Cannot sort on key path
    // 'x': property 'Person.x' does not exist.", distinct's too): passed on as they are.
    if message.hasPrefix("Cannot sort on key path") { throwRealmException(message) }
    throwRealmException(
        "Cannot \(what) key path '\(keyPaths.joined(separator: ", "))' of class '\(table.schema.className)': \(message)")
}

/// Runs `body` with the engine's sort keys for `descriptors` (their strings alive meanwhile).
func withSortKeys<R>(_ descriptors: [SortDescriptor], _ body: (UnsafeBufferPointer<ce_sort_key>) -> R) -> R {
    withCStrings(descriptors.map(\.keyPath)) { paths in
        let keys = descriptors.indices.map { ce_sort_key(key_path: paths[$0], ascending: descriptors[$0].ascending) }
        return keys.withUnsafeBufferPointer(body)
    }
}

/// Runs `body` with C copies of `strings`.
func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer(body)
}

/// The engine's name of an aggregate, for messages.
func aggregateName(_ aggregate: ce_aggregate) -> String {
    switch aggregate {
    case CE_AGGREGATE_MIN: "min"
    case CE_AGGREGATE_MAX: "max"
    case CE_AGGREGATE_SUM: "sum"
    case CE_AGGREGATE_AVG: "average"
    default: "count"
    }
}

/// An aggregate over a results view, read as `T`; nil when the engine gives null (no values).
func aggregate<T: _CValueConvertible>(
    _ view: OpaquePointer, _ core: RealmCore, _ table: TableInfo, _ keyPath: String, _ aggregate: ce_aggregate, as type: T.Type
) -> T? {
    var value = ce_value()
    guard ce_results_aggregate(view, core.currentTxn(), engineKeyPath(keyPath, table.schema), aggregate, &value, nil) else {
        let message = String(cString: ce_last_error_message())
        if ce_last_error_code() == CE_ERR_WRONG_TYPE {
            throwRealmException("Invalid \(aggregateName(aggregate)) on property '\(table.schema.className).\(keyPath)': \(message)")
        }
        throwRealmException("Invalid property name '\(keyPath)' for class '\(table.schema.className)' in \(aggregateName(aggregate)): \(message)")
    }
    if value.isNull { return nil }
    return T._ceRead(aggregateValue(value, as: T._ceType), Realm(core))
}
