// FormatSpecifierTests.swift — printf-style specifiers in `filter`'s format string, and
// Realm's messages for sort and distinct key paths it refuses.

import Foundation
import Testing

import OpenRealm

/// AllTypes objects whose numbers are 0, 1 and 2 (the doubles and floats 0.5, 1.5, 2.5).
private func numbersRealm() throws -> Realm {
    let realm = try memoryRealm()
    try realm.write {
        for i in 0..<3 {
            let object = AllTypes()
            object.int = i
            object.int8 = Int8(i)
            object.int16 = Int16(i)
            object.int32 = Int32(i)
            object.int64 = Int64(i)
            object.double = Double(i) + 0.5
            object.float = Float(i) + 0.5
            object.string = "s\(i)"
            realm.add(object)
        }
    }
    return realm
}

@Suite("Format specifiers in filter")
struct FormatSpecifierTests {
    // NSPredicate's format string "supports printf-style format specifiers such as %x" (Apple's
    // Predicate Format String Syntax); Realm Swift's own tests filter with "int8Col = %d",
    // "int16Col = %d", "int32Col = %d" and "int64Col = %d" (RealmCollectionTypeTests.swift).
    @Test("%d on every integer width, as Realm Swift's tests use it")
    func integerSpecifiers() throws {
        let objects = try numbersRealm().objects(AllTypes.self)
        #expect(objects.filter("int8 = %d", Int8(1)).count == 1)
        #expect(objects.filter("int16 = %d", Int16(0)).count == 1)
        #expect(objects.filter("int16 = %d", Int16(3)).count == 0)
        #expect(objects.filter("int32 = %d", Int32(2)).count == 1)
        #expect(objects.filter("int64 = %d", Int64(1)).count == 1)
        #expect(objects.filter("int > %i", 0).count == 2)
        #expect(objects.filter("int >= %u", 1).count == 2)
        #expect(objects.filter("int == %ld", 2).count == 1)
        #expect(objects.filter("int == %lld", 2).count == 1)
        #expect(objects.filter("int == %lu", 2).count == 1)
        #expect(objects.filter("int == %hd", Int16(2)).count == 1)
        #expect(objects.filter("int == %qi", 2).count == 1)
        #expect(objects.filter("int == %zd", 2).count == 1)
        #expect(objects.filter("int IN {%d, %d}", 0, 2).count == 2)
    }

    @Test("%f and the other floating-point specifiers")
    func realSpecifiers() throws {
        let objects = try numbersRealm().objects(AllTypes.self)
        #expect(objects.filter("double > %f", 1.0).count == 2)
        #expect(objects.filter("double == %lf", 1.5).count == 1)
        #expect(objects.filter("double < %g", 1.0).count == 1)
        #expect(objects.filter("double < %e", 3.0).count == 3)
        #expect(objects.filter("float == %f", 2.5).count == 1)
        #expect(objects.filter("double BETWEEN {%f, %f}", 0.0, 1.5).count == 2)
    }

    @Test("specifiers count with %@ and %K, in order; quoted ones are text")
    func mixedWithObjectSpecifiers() throws {
        let objects = try numbersRealm().objects(AllTypes.self)
        #expect(objects.filter("int > %d AND string != %@", 0, "s1").count == 1)
        #expect(objects.filter("%K == %d", "int16", 2).count == 1)
        #expect(objects.filter("int == %d", 1).filter("double > %f", 1.0).count == 1)
        #expect(objects.filter("string == '%d'").count == 0)
        #expect(objects.where { $0.int > 0 }.filter("int < %d", 2).count == 1)
    }

    // realm-core parses sort and distinct key paths with one function (object-store results.cpp,
    // parse_keypath): "Cannot sort on key path '%1': %2.", distinct included; Realm Swift's
    // SortingTests expect "Cannot sort on key path 'invalidCol': property
    // 'AllTypesObject.invalidCol' does not exist.".
    @Test("sorting by a property that does not exist stops with Realm's message")
    func missingSortProperty() async {
        removeInMemoryRealm("openrealm-exit-sortMissing")
        defer { removeInMemoryRealm("openrealm-exit-sortMissing") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-sortMissing"))
            try realm.write { realm.add(Person()) }
            _ = realm.objects(Person.self).sorted(byKeyPath: "noSuchCol").count
        }
        expectStop("Cannot sort on key path 'noSuchCol': property 'Person.noSuchCol' does not exist.", result)
    }

    @Test("distinct on a link stops with Realm's message")
    func distinctOnLink() async {
        removeInMemoryRealm("openrealm-exit-distinctLink")
        defer { removeInMemoryRealm("openrealm-exit-distinctLink") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-distinctLink"))
            try realm.write { realm.add(Person()) }
            _ = realm.objects(Person.self).distinct(by: ["dog"]).count
        }
        expectStop("Cannot sort on key path 'dog': property 'Person.dog' of type 'object' cannot be the final property in "
            + "the key path.", result)
    }

    @Test("sorting through a value stops with Realm's message")
    func sortThroughValue() async {
        removeInMemoryRealm("openrealm-exit-sortThrough")
        defer { removeInMemoryRealm("openrealm-exit-sortThrough") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-sortThrough"))
            try realm.write { realm.add(Person()) }
            _ = realm.objects(Person.self).sorted(byKeyPath: "name.length").count
        }
        expectStop("Cannot sort on key path 'name.length': property 'Person.name' of type 'string' may only be the final "
            + "property in the key path.", result)
    }
}
