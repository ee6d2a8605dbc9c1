// ObjectSurfaceAuditTests.swift — models, their schema and the Realm as Realm Swift's
// SwiftObjectInterfaceTests, SwiftPropertyTypeTest, SwiftUnicodeTests, SwiftRealmTests,
// ObjectSchemaInitializationTests and CompactionTests use them: values and defaults written and
// read back, integer sizes, UTF-8 values and property names, ignored properties, the object
// schema of each property kind, and compaction on launch.

import Foundation
import Testing

import OpenRealm

final class AuditFlag: Object {
    @Persisted var flag: Bool
}

final class AuditEverything: Object {
    @Persisted var boolCol = false
    @Persisted var intCol = 123
    @Persisted var int8Col: Int8 = 1
    @Persisted var int16Col: Int16 = 2
    @Persisted var int32Col: Int32 = 3
    @Persisted var int64Col: Int64 = 4
    @Persisted var floatCol: Float = 1.23
    @Persisted var doubleCol = 12.3
    @Persisted var stringCol = "a"
    @Persisted var binaryCol = Data("a".utf8)
    @Persisted var dateCol = Date(timeIntervalSince1970: 1)
    @Persisted var decimalCol = Decimal128(number: 123)
    @Persisted var objectIdCol = ObjectId("1234567890ab1234567890ab")
    @Persisted var uuidCol = UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!
    @Persisted var objectCol: AuditFlag?
    @Persisted var arrayCol: List<AuditFlag>
    @Persisted var setCol: MutableSet<AuditFlag>
    @Persisted var mapCol: Map<String, AuditFlag?>
    @Persisted var anyCol: AnyRealmValue
    @Persisted var optStringCol: String?
    @Persisted var optIntCol: Int?
    @Persisted var optBinaryCol: Data?
    @Persisted var optDateCol: Date?
    @Persisted(indexed: true) var indexedString: String
    @Persisted(indexed: true) var indexedDate: Date
    @Persisted var intList: List<Int?>

    /// Not persisted: no `@Persisted`.
    var runtimeProperty: NSObject?
    var runtimeDefaultProperty = "property"
    var computed: Int { intCol * 2 }
}

final class AuditIndexed: Object {
    @Persisted(indexed: true) var string: String
    @Persisted(indexed: true) var int: Int
    @Persisted(indexed: true) var int8: Int8
    @Persisted(indexed: true) var int16: Int16
    @Persisted(indexed: true) var int32: Int32
    @Persisted(indexed: true) var int64: Int64
    @Persisted(indexed: true) var bool: Bool
    @Persisted(indexed: true) var date: Date
    @Persisted(indexed: true) var objectId: ObjectId
    @Persisted(indexed: true) var uuid: UUID
    @Persisted var mixed: AnyRealmValue
    @Persisted(indexed: true) var optString: String?
    @Persisted var double: Double
}

final class AuditPrimaryString: Object {
    @Persisted(primaryKey: true) var stringCol: String
    @Persisted var intCol: Int
}

final class AuditUnicode: Object {
    @Persisted var 柱колоéнǢкƱаم👍 = ""
}

final class AuditIgnored: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    var runtimeProperty: NSObject?
    var runtimeDefaultProperty = "property"
    var readOnlyProperty: Int { age }
}

final class AuditString: Object {
    @Persisted var stringCol = ""
}

/// A LinkingObjects property without its origin property: Realm refuses the class.
final class AuditNoOrigin: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var name: String
    @Persisted var owners: LinkingObjects<AuditFlag>
}

final class AuditListOfOptionals: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var flags: List<AuditFlag?>
}

final class AuditSetOfOptionals: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var flags: MutableSet<AuditFlag?>
}

final class AuditMapOfRequired: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var flags: Map<String, AuditFlag>
}

final class AuditOptionalAny: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var value: AnyRealmValue?
}

final class AuditPart: EmbeddedObject {
    @Persisted var size: Int
}

final class AuditSetOfEmbedded: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted var parts: MutableSet<AuditPart>
}

private let auditUTF8 = "值значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"

@Suite("Models, schema and Realm as Realm's object, property-type, unicode and Realm tests")
struct ObjectSurfaceAuditTests {
    private func realm() throws -> Realm {
        try memoryRealm([AuditFlag.self, AuditEverything.self, AuditPrimaryString.self, AuditUnicode.self,
                         AuditIgnored.self, AuditString.self])
    }

    @Test("values set on an added object read back from a query (testSwiftObject)")
    func valuesReadBack() throws {
        let realm = try realm()
        realm.beginWrite()
        let object = AuditEverything()
        realm.add(object)
        object.boolCol = true
        object.intCol = 1234
        object.floatCol = 1.1
        object.doubleCol = 2.2
        object.stringCol = "abcd"
        object.binaryCol = Data("abcd".utf8)
        object.dateCol = Date(timeIntervalSince1970: 123)
        object.objectCol = AuditFlag()
        object.objectCol!.flag = true
        object.arrayCol.append(object.objectCol!)
        try realm.commitWrite()
        let first = try #require(realm.objects(AuditEverything.self).first)
        #expect(first.boolCol && first.intCol == 1234 && first.floatCol == Float(1.1) && first.doubleCol == 2.2)
        #expect(first.stringCol == "abcd" && first.binaryCol == Data("abcd".utf8))
        #expect(first.dateCol == Date(timeIntervalSince1970: 123) && first.objectCol?.flag == true)
        #expect(object.arrayCol.count == 1 && object.arrayCol.first?.flag == true)
    }

    @Test("an added object keeps its declared defaults (testDefaultValueSwiftObject)")
    func defaults() throws {
        let realm = try realm()
        try realm.write { realm.add(AuditEverything()) }
        let first = try #require(realm.objects(AuditEverything.self).first)
        #expect(!first.boolCol && first.intCol == 123 && first.floatCol == Float(1.23) && first.doubleCol == 12.3)
        #expect(first.stringCol == "a" && first.binaryCol == Data("a".utf8) && first.dateCol == Date(timeIntervalSince1970: 1))
        #expect(first.decimalCol == Decimal128(number: 123) && first.objectIdCol == ObjectId("1234567890ab1234567890ab"))
        #expect(first.uuidCol == UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89"))
        #expect(first.int8Col == 1 && first.int16Col == 2 && first.int32Col == 3 && first.int64Col == 4)
        #expect(first.objectCol == nil && first.arrayCol.isEmpty && first.anyCol == .none)
        // create with an empty dictionary uses the same defaults
        let created = try realm.write { realm.create(AuditEverything.self, value: [String: Any]()) }
        #expect(created.intCol == 123 && created.stringCol == "a" && created.boolCol == false)
    }

    @Test("optional properties start nil, take values and go back to nil (testOptionalSwiftProperties)")
    func optionals() throws {
        let realm = try realm()
        try realm.write { realm.add(AuditEverything()) }
        let first = try #require(realm.objects(AuditEverything.self).first)
        #expect(first.objectCol == nil && first.optStringCol == nil && first.optBinaryCol == nil && first.optDateCol == nil)
        try realm.write {
            first.objectCol = AuditFlag()
            first.objectCol!.flag = true
            first.optStringCol = "Hi!"
            first.optBinaryCol = Data("hi".utf8)
            first.optDateCol = Date(timeIntervalSinceReferenceDate: 10)
            first.optIntCol = 0
        }
        #expect(first.objectCol?.flag == true && first.optStringCol == "Hi!" && first.optBinaryCol == Data("hi".utf8))
        #expect(first.optDateCol == Date(timeIntervalSinceReferenceDate: 10) && first.optIntCol == 0)
        try realm.write {
            first.objectCol = nil
            first.optStringCol = nil
            first.optBinaryCol = nil
            first.optDateCol = nil
            first.optIntCol = nil
        }
        #expect(first.objectCol == nil && first.optStringCol == nil && first.optBinaryCol == nil && first.optDateCol == nil)
        #expect(first.optIntCol == nil)
        #expect(realm.objects(AuditFlag.self).count == 1)
    }

    @Test("className() is the class's own name")
    func className() {
        #expect(AuditEverything.className() == "AuditEverything")
        #expect(AuditEverything().objectSchema.className == "AuditEverything")
    }

    @Test("64-bit and sized integers keep their values (testLongType, testIntSizes)")
    func integerSizes() throws {
        let realm = try realm()
        let longs = [17179869184, 2147483647, -17179869184, Int.max, Int.min]
        try realm.write {
            for long in longs { realm.create(AuditEverything.self, value: ["intCol": long]) }
        }
        let objects = realm.objects(AuditEverything.self)
        #expect(objects.map(\.intCol) == longs)
        try realm.write { objects[0].intCol = 8589934592 }
        #expect(objects[0].intCol == 8589934592)
        try realm.write {
            let object = realm.create(AuditEverything.self)
            object.int8Col = .min
            object.int16Col = Int16(1) << 12
            object.int32Col = Int32(1) << 30
            object.int64Col = Int64(1) << 40
        }
        let sized = try #require(objects.last)
        #expect(sized.int8Col == .min && sized.int16Col == 4096 && sized.int32Col == 1 << 30 && sized.int64Col == 1 << 40)
        try realm.write {
            sized.int8Col = .max
            sized.int16Col = .min
            sized.int32Col = .max
            sized.int64Col = .min
        }
        #expect(sized.int8Col == .max && sized.int16Col == .min && sized.int32Col == .max && sized.int64Col == .min)
        #expect(objects.filter("int8Col == %@", Int8.max).count == 1)
        #expect(objects.filter("int64Col == %@", Int64.min).count == 1)
    }

    @Test("UTF-8 values are stored, read back and queried (testUTF8StringContents)")
    func utf8Values() throws {
        let realm = try realm()
        try realm.write { realm.create(AuditString.self, value: [auditUTF8]) }
        let first = try #require(realm.objects(AuditString.self).first)
        #expect(first.stringCol == auditUTF8)
        let found = try #require(realm.objects(AuditString.self).filter("stringCol == %@", auditUTF8).first)
        #expect(found.isSameObject(as: first) && found.stringCol == auditUTF8)
        #expect(realm.objects(AuditString.self).filter("stringCol != %@", auditUTF8).count == 0)
        #expect(realm.objects(AuditString.self).where { $0.stringCol == auditUTF8 }.count == 1)
    }

    @Test("a property named in UTF-8 is stored and queried by %K (testUTF8PropertyWithUTF8StringContents)")
    func utf8PropertyName() throws {
        let realm = try realm()
        try realm.write { realm.create(AuditUnicode.self, value: [auditUTF8]) }
        let first = try #require(realm.objects(AuditUnicode.self).first)
        #expect(first.柱колоéнǢкƱаم👍 == auditUTF8)
        let found = try #require(realm.objects(AuditUnicode.self).filter("%K == %@", "柱колоéнǢкƱаم👍", auditUTF8).first)
        #expect(found.isSameObject(as: first))
        #expect(realm.objects(AuditUnicode.self).filter("柱колоéнǢкƱаم👍 == %@", auditUTF8).count == 1)
        #expect(realm.schema["AuditUnicode"]?.properties.map(\.name) == ["柱колоéнǢкƱаم👍"])
    }

    @Test("objects created in a write are counted in it; deleting two leaves the third (testRealmAddAndRemoveObjects)")
    func addAndRemove() throws {
        let realm = try realm()
        realm.beginWrite()
        for text in ["a", "b", "c"] { realm.create(AuditString.self, value: [text]) }
        #expect(realm.objects(AuditString.self).count == 3)
        try realm.commitWrite()
        var objects = realm.objects(AuditString.self)
        #expect(objects.count == 3 && objects[0].stringCol == "a")
        realm.beginWrite()
        realm.delete(objects[2])
        realm.delete(objects[0])
        #expect(realm.objects(AuditString.self).count == 1)
        try realm.commitWrite()
        objects = realm.objects(AuditString.self)
        #expect(objects.count == 1 && objects[0].stringCol == "b")
        // An empty write transaction commits.
        realm.beginWrite()
        try realm.commitWrite()
    }

    @Test("properties without @Persisted are ignored: not stored, not in the schema (testRealmIgnoresProperties)")
    func ignoredProperties() throws {
        let realm = try realm()
        let object = AuditIgnored()
        #expect(object.runtimeDefaultProperty == "property")
        try realm.write {
            object.name = "@fz"
            object.age = 31
            realm.add(object)
        }
        try realm.write { object.runtimeProperty = NSObject() }
        let objects = realm.objects(AuditIgnored.self)
        #expect(objects.count == 1)
        #expect(objects[0].runtimeProperty == nil && objects[0].runtimeDefaultProperty == "property")
        #expect(objects[0].name == "@fz" && objects[0].age == 31)
        let schema = AuditIgnored().objectSchema
        #expect(schema.properties.map(\.name) == ["name", "age"])
        #expect(schema["runtimeProperty"] == nil && schema["runtimeDefaultProperty"] == nil && schema["readOnlyProperty"] == nil)
    }

    @Test("a write on another thread reaches sorted results after refresh")
    func sortedAfterBackgroundWrite() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("audit-sorted-\(UUID().uuidString).realm")
        defer { _ = try? Realm.deleteFiles(for: .init(fileURL: url)) }
        let configuration = Realm.Configuration(fileURL: url, objectTypes: [AuditEverything.self, AuditFlag.self])
        let realm = try Realm(configuration: configuration)
        let all = realm.objects(AuditEverything.self)
        let sorted = all.sorted(byKeyPath: "intCol")
        #expect(sorted.count == 0)
        try onOtherThread {
            let other = try Realm(configuration: configuration)
            try other.write {
                other.create(AuditEverything.self, value: ["intCol": 2])
                other.create(AuditEverything.self, value: ["intCol": 1])
            }
        }
        realm.refresh()
        #expect(all.count == 2 && sorted.count == 2 && sorted.map(\.intCol) == [1, 2])
    }

    @Test("the object schema of each property kind (testAllValidTypes)")
    func objectSchemaOfEachKind() throws {
        let schema = AuditEverything().objectSchema
        #expect(schema["noSuchCol"] == nil)
        let expected: [(String, PropertyType)] = [
            ("boolCol", .bool), ("intCol", .int), ("int8Col", .int), ("floatCol", .float), ("doubleCol", .double),
            ("stringCol", .string), ("binaryCol", .data), ("dateCol", .date), ("decimalCol", .decimal128),
            ("objectIdCol", .objectId), ("uuidCol", .UUID),
        ]
        for (name, type) in expected {
            let property = try #require(schema[name], "\(name)")
            #expect(property.name == name && property.type == type, "\(name)")
            #expect(!property.isIndexed && !property.isOptional && property.objectClassName == nil, "\(name)")
            #expect(!property.isArray && !property.isSet && !property.isMap, "\(name)")
        }
        let object = try #require(schema["objectCol"])
        #expect(object.type == .object && object.isOptional && !object.isIndexed && object.objectClassName == "AuditFlag")
        let array = try #require(schema["arrayCol"])
        #expect(array.type == .object && array.isArray && !array.isOptional && array.objectClassName == "AuditFlag")
        let set = try #require(schema["setCol"])
        #expect(set.type == .object && set.isSet && !set.isOptional && set.objectClassName == "AuditFlag")
        let map = try #require(schema["mapCol"])
        #expect(map.type == .object && map.isMap && map.isOptional && map.objectClassName == "AuditFlag")
        let any = try #require(schema["anyCol"])
        #expect(any.type == .any && !any.isOptional)
        let intList = try #require(schema["intList"])
        #expect(intList.type == .int && intList.isArray && intList.isOptional)
        for name in ["optStringCol", "optIntCol", "optBinaryCol", "optDateCol"] {
            #expect(schema[name]?.isOptional == true, "\(name)")
        }
        #expect(schema["indexedString"]?.isIndexed == true && schema["indexedDate"]?.isIndexed == true)
        #expect(schema["computed"] == nil && schema["runtimeProperty"] == nil)
    }

    @Test("a LinkingObjects property without an origin property stops with Realm's message")
    func linkingObjectsWithoutOrigin() async {
        removeInMemoryRealm("openrealm-exit-noOrigin")
        defer { removeInMemoryRealm("openrealm-exit-noOrigin") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-noOrigin",
                                               objectTypes: [AuditNoOrigin.self, AuditFlag.self]))
        }
        expectStop("LinkingObjects<AuditFlag> property 'owners' must set the origin property name with @Persisted(originProperty: \"name\").", result)
    }

    @Test("a list of optional objects stops with Realm's message")
    func listOfOptionalObjects() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-listOfOptionals",
                                               objectTypes: [AuditListOfOptionals.self, AuditFlag.self]))
        }
        expectStop("List<AuditFlag> property 'flags' must not be marked as optional.", result)
    }

    @Test("a set of optional objects stops with Realm's message")
    func setOfOptionalObjects() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-setOfOptionals",
                                               objectTypes: [AuditSetOfOptionals.self, AuditFlag.self]))
        }
        expectStop("MutableSet<AuditFlag> property 'flags' must not be marked as optional.", result)
    }

    @Test("a map of non-optional objects stops with Realm's message")
    func mapOfRequiredObjects() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-mapOfRequired",
                                               objectTypes: [AuditMapOfRequired.self, AuditFlag.self]))
        }
        expectStop("Map<String, AuditFlag> property 'flags' must be marked as optional.", result)
    }

    @Test("an optional AnyRealmValue property stops with Realm's message")
    func optionalAnyRealmValue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-optionalAny",
                                               objectTypes: [AuditOptionalAny.self]))
        }
        expectStop("AnyRealmValue property 'value' must not be marked as optional: nil values are represented as AnyRealmValue.none", result)
    }

    @Test("a set of embedded objects stops with realm-core's message")
    func setOfEmbeddedObjects() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-setOfEmbedded",
                                               objectTypes: [AuditSetOfEmbedded.self, AuditPart.self]))
        }
        expectStop("Set property 'AuditSetOfEmbedded.parts' cannot contain embedded object type 'AuditPart'. "
            + "Set semantics are not applicable to embedded objects.", result)
    }

    @Test("indexable types are indexed in the schema and queried through the index (testIndexedProperties)")
    func indexedProperties() throws {
        let schema = AuditIndexed().objectSchema
        for name in ["string", "int", "int8", "int16", "int32", "int64", "bool", "date", "objectId", "uuid", "optString"] {
            #expect(schema[name]?.isIndexed == true, "\(name)")
        }
        #expect(schema["double"]?.isIndexed == false)
        let realm = try memoryRealm([AuditIndexed.self])
        try realm.write {
            realm.create(AuditIndexed.self, value: ["string": "a", "int": 1, "bool": true, "mixed": AnyRealmValue.string("x")])
            realm.create(AuditIndexed.self, value: ["string": "b", "int": 2, "mixed": AnyRealmValue.int(5)])
        }
        let all = realm.objects(AuditIndexed.self)
        #expect(all.filter("string == 'b'").first?.int == 2)
        #expect(all.filter("bool == true").count == 1 && all.filter("mixed == 5").count == 1)
        #expect(all.filter("mixed == 'x'").first?.string == "a")
    }

    @Test("primary key property: none by default, the marked one otherwise (testPrimaryKey)")
    func primaryKeyProperty() {
        #expect(AuditEverything().objectSchema.primaryKeyProperty == nil)
        let key = AuditPrimaryString().objectSchema.primaryKeyProperty
        #expect(key?.name == "stringCol" && key?.isPrimaryKey == true)
    }
}

@Suite("Compaction on launch as Realm's CompactionTests")
struct CompactionAuditTests {
    private func fileSize(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? -1
    }

    /// A file of 1,002 objects ("A", 1,000 copies of one UUID, "B"), written in one transaction.
    private func makeFile() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("audit-compact-\(UUID().uuidString).realm")
        let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [AuditString.self]))
        let uuid = UUID().uuidString
        try realm.write {
            realm.create(AuditString.self, value: ["A"])
            for _ in 0..<1000 { realm.create(AuditString.self, value: [uuid]) }
            realm.create(AuditString.self, value: ["B"])
        }
        return url
    }

    @Test("the block gets the file's size and the bytes in use; compacting keeps every object")
    func compactsOnLaunch() throws {
        let url = try makeFile()
        defer { _ = try? Realm.deleteFiles(for: .init(fileURL: url)) }
        // Free space to reclaim: a large value written and removed.
        do {
            let realm = try Realm(configuration: .init(fileURL: url, objectTypes: [AuditString.self]))
            let big = String(repeating: "x", count: 600_000)
            try realm.write { realm.create(AuditString.self, value: [big]) }
            try realm.write { realm.delete(realm.objects(AuditString.self).filter("stringCol == %@", big)) }
        }
        let before = try fileSize(url)
        let seen = LockedPair()
        let configuration = Realm.Configuration(fileURL: url, shouldCompactOnLaunch: { total, used in
            seen.set(total, used)
            return total > 500 * 1024 && Double(used) / Double(total) < 0.2
        }, objectTypes: [AuditString.self])
        #expect(try fileSize(url) == before)
        let realm = try Realm(configuration: configuration)
        let (total, used) = seen.get()
        #expect(total == before)
        #expect(used < total && used > 50_000)
        #expect(try fileSize(url) < before, "not compacted: total \(total), used \(used)")
        let objects = realm.objects(AuditString.self)
        #expect(objects.count == 1002 && objects.first?.stringCol == "A" && objects.last?.stringCol == "B")
    }

    @Test("a block that says no leaves the file as it was")
    func declined() throws {
        let url = try makeFile()
        defer { _ = try? Realm.deleteFiles(for: .init(fileURL: url)) }
        let before = try fileSize(url)
        let realm = try Realm(configuration: .init(fileURL: url, shouldCompactOnLaunch: { _, _ in false },
                                                   objectTypes: [AuditString.self]))
        #expect(try fileSize(url) == before)
        #expect(realm.objects(AuditString.self).count == 1002)
    }

    @Test("an encrypted file compacts and stays readable with its key; an in-memory Realm never asks")
    func encryptedAndInMemory() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("audit-compact-key-\(UUID().uuidString).realm")
        defer { _ = try? Realm.deleteFiles(for: .init(fileURL: url)) }
        let key = Data((0..<64).map { UInt8($0) })
        do {
            let realm = try Realm(configuration: .init(fileURL: url, encryptionKey: key, objectTypes: [AuditString.self]))
            let big = String(repeating: "y", count: 400_000)
            try realm.write { for text in ["A", big, "B"] { realm.create(AuditString.self, value: [text]) } }
            try realm.write { realm.delete(realm.objects(AuditString.self).filter("stringCol == %@", big)) }
        }
        let before = try fileSize(url)
        let seen = LockedPair()
        let realm = try Realm(configuration: .init(fileURL: url, encryptionKey: key, shouldCompactOnLaunch: { total, used in
            seen.set(total, used)
            return true
        }, objectTypes: [AuditString.self]))
        #expect(seen.get().0 == before)
        #expect(try fileSize(url) < before)
        #expect(realm.objects(AuditString.self).map(\.stringCol) == ["A", "B"])
        let memorySeen = LockedPair()
        let memory = try Realm(configuration: .init(inMemoryIdentifier: "audit-compact-\(UUID().uuidString)",
                                                    shouldCompactOnLaunch: { total, used in
            memorySeen.set(total, used)
            return true
        }, objectTypes: [AuditString.self]))
        #expect(memorySeen.get() == (-1, -1))
        #expect(memory.objects(AuditString.self).isEmpty)
    }

    @Test("the block is asked only when the file is first opened in the process")
    func onlyFirstOpen() throws {
        let url = try makeFile()
        defer { _ = try? Realm.deleteFiles(for: .init(fileURL: url)) }
        let held = try Realm(configuration: .init(fileURL: url, objectTypes: [AuditString.self]))
        let seen = LockedPair()
        _ = try Realm(configuration: .init(fileURL: url, shouldCompactOnLaunch: { total, used in
            seen.set(total, used)
            return true
        }, objectTypes: [AuditString.self]))
        #expect(seen.get() == (-1, -1))
        #expect(held.objects(AuditString.self).count == 1002)
    }
}

/// Two integers written by a `@Sendable` block and read by the test.
private final class LockedPair: @unchecked Sendable {
    private let lock = NSLock()
    private var values = (-1, -1)
    func set(_ a: Int, _ b: Int) { lock.lock(); values = (a, b); lock.unlock() }
    func get() -> (Int, Int) { lock.lock(); defer { lock.unlock() }; return values }
}
