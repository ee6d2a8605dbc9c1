// MixedCollectionParityTests.swift — lists and dictionaries nested in AnyRealmValue, as Realm
// Swift's MixedCollectionTest uses them: fromArray, fromDictionary, updates through listValue
// and dictionaryValue, nesting, reassignment, enumeration.

import Foundation
import Testing

import OpenRealm

final class MixedHolder: Object {
    @Persisted var anyValue: AnyRealmValue
}

@Suite("Nested collections in AnyRealmValue as Realm")
struct MixedCollectionParityTests {
    private func realm() throws -> Realm { try memoryRealm([MixedHolder.self, Dog.self, Person.self, Address.self]) }

    @Test("a dictionary from fromDictionary, unmanaged, added, updated and created (testAnyMixedDictionary)")
    func mixedDictionary() throws {
        let dog = Dog(value: ["name": "Rex"])
        let date = Date(timeIntervalSince1970: 1_000_000)
        let dictionary: [String: AnyRealmValue] = [
            "key1": .string("hello"), "key2": .bool(false), "key3": .int(234), "key5": .double(12345.678901),
            "key7": .date(date), "key8": .object(dog), "key11": .decimal128(Decimal128(number: 567)),
        ]
        func check(_ holder: MixedHolder) {
            let map = holder.anyValue.dictionaryValue
            #expect(map?["key1"] == .string("hello"))
            #expect(map?["key2"] == .bool(false))
            #expect(map?["key3"]?.intValue == 234)
            #expect(map?["key5"]?.doubleValue == 12345.678901)
            #expect(map?["key7"]?.dateValue == date)
            #expect(map?["key8"]?.object(Dog.self)?.name == "Rex")
            #expect(map?["key11"]?.decimal128Value == Decimal128(number: 567))
        }
        let holder = MixedHolder()
        holder.anyValue = .fromDictionary(dictionary)
        check(holder)
        holder.anyValue = .fromDictionary(["key": .none])
        #expect(holder.anyValue.dictionaryValue?["key"] == AnyRealmValue.none)
        let realm = try realm()
        try realm.write { realm.add(holder) }
        #expect(holder.anyValue.dictionaryValue?["key"] == AnyRealmValue.none)
        try realm.write {
            let created = realm.create(MixedHolder.self, value: ["anyValue": dictionary])
            check(created)
        }
        check(try #require(realm.objects(MixedHolder.self).last))
    }

    @Test("updating and removing through dictionaryValue and listValue (testAnyMixed*UpdateAndDelete)")
    func updateAndDelete() throws {
        let holder = MixedHolder()
        holder.anyValue = .fromDictionary(["key1": .string("hello"), "key2": .bool(false), "key3": .int(234)])
        holder.anyValue.dictionaryValue?["key2"] = .data(Data("a".utf8))
        #expect(holder.anyValue.dictionaryValue?["key2"] == .data(Data("a".utf8)))
        let listHolder = MixedHolder()
        listHolder.anyValue = .fromArray([.string("hello"), .bool(false), .int(234)])
        listHolder.anyValue.listValue?[1] = .float(789.123)
        #expect(listHolder.anyValue.listValue?[1] == .float(789.123))
        let realm = try realm()
        try realm.write { realm.add([holder, listHolder]) }
        try realm.write {
            holder.anyValue.dictionaryValue?["key1"] = .double(12345.678901)
            holder.anyValue.dictionaryValue?["key3"] = nil
            listHolder.anyValue.listValue?.remove(at: 0)
            listHolder.anyValue.listValue?.remove(at: 0)
        }
        #expect(holder.anyValue.dictionaryValue?["key1"] == .double(12345.678901))
        #expect(holder.anyValue.dictionaryValue?["key3"] == nil)
        #expect(holder.anyValue.dictionaryValue?.count == 2)
        #expect(listHolder.anyValue.listValue?.count == 1)
        #expect(listHolder.anyValue.listValue?[0] == .int(234))
    }

    @Test("nested lists and dictionaries, from values and from Swift collections (testAnyMixedNested*)")
    func nested() throws {
        let dog = Dog(value: ["name": "Rex"])
        let inner = AnyRealmValue.fromArray([.object(dog)])
        let value = AnyRealmValue.fromDictionary(["key0": .fromDictionary(["key1": .fromArray([inner])]), "key4": .bool(false)])
        let holder = MixedHolder()
        holder.anyValue = value
        func check(_ holder: MixedHolder) {
            #expect(holder.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?[0].listValue?[0]
                .object(Dog.self)?.name == "Rex")
            #expect(holder.anyValue.dictionaryValue?["key4"]?.boolValue == false)
        }
        check(holder)
        let realm = try realm()
        try realm.write { realm.add(holder) }
        check(holder)
        try realm.write {
            let created = realm.create(MixedHolder.self, value: [
                "anyValue": ["key0": ["key1": [[AnyRealmValue.object(dog)]]], "key4": AnyRealmValue.bool(false)],
            ])
            check(created)
        }
    }

    @Test("reassigning values and collections inside a managed list and dictionary (testReassignToMixed*)")
    func reassign() throws {
        let holder = MixedHolder()
        holder.anyValue = .fromArray([.bool(true), .fromDictionary(["key": .int(12)]), .float(13.12)])
        let realm = try realm()
        try realm.write { realm.add(holder) }
        #expect(holder.anyValue.listValue?[1].dictionaryValue?["key"] == .int(12))
        try realm.write { holder.anyValue.listValue?.append(.fromArray([.double(20.20), .string("hello")])) }
        #expect(holder.anyValue.listValue?[3].listValue?[0] == .double(20.20))
        try realm.write {
            let first = try #require(holder.anyValue.listValue?[0])
            holder.anyValue.listValue?.append(first)
        }
        #expect(holder.anyValue.listValue?[4] == .bool(true))
        try realm.write { holder.anyValue.listValue?[1] = .fromDictionary(["new-key": .int(3)]) }
        #expect(holder.anyValue.listValue?[1].dictionaryValue?["new-key"] == .int(3))
        try realm.write { holder.anyValue = .fromDictionary(["key1": .string("adios")]) }
        #expect(holder.anyValue.dictionaryValue?["key1"] == .string("adios"))
        #expect(holder.anyValue.dictionaryValue?["key2"] == nil)
    }

    @Test("enumerating nested collections visits every value (testEnumerationNestedCollection)")
    func enumeration() throws {
        var value = AnyRealmValue.fromArray([.object(Dog(value: ["name": "Rex"]))])
        for level in 1...5 {
            value = .fromArray([.fromDictionary(["key\(level)": value])])
        }
        let holder = MixedHolder()
        holder.anyValue = .fromDictionary(["key0": value])
        let realm = try realm()
        try realm.write { realm.add(holder) }
        var count = 0
        var reachedLeaf = false
        func visit(_ value: AnyRealmValue) {
            count += 1
            switch value {
            case .list(let list): for item in list { visit(item) }
            case .dictionary(let map): for (_, item) in map.asKeyValueSequence() { visit(item) }
            default: reachedLeaf = true
            }
        }
        visit(holder.anyValue)
        #expect(count == 13)
        #expect(reachedLeaf)
    }
}

final class MixedCollectionsHolder: Object {
    @Persisted var map: Map<String, AnyRealmValue>
    @Persisted var set: MutableSet<AnyRealmValue>
}

@Suite("Collections of AnyRealmValue as Realm")
struct MixedValueCollectionTests {
    @Test("a map's value(forKey:) gives what the value holds; .none keeps the key, nil removes it (AnyRealmValueMapTests)")
    func mapKeyValueCoding() throws {
        for managed in [false, true] {
            let holder = MixedCollectionsHolder()
            let realm = try memoryRealm([MixedCollectionsHolder.self])
            if managed { realm.beginWrite(); realm.add(holder) }
            let map = holder.map
            map["a"] = .int(1)
            map["b"] = .string("two")
            map["c"] = .int(3)
            #expect(map.value(forKey: "a") as? Int == 1)
            #expect(map.value(forKey: "b") as? String == "two")
            #expect(map.value(forKey: "zz") == nil)
            map["a"] = AnyRealmValue.none
            #expect(map.count == 3)
            #expect(map.value(forKey: "a") == nil)
            map.setValue(nil, forKey: "b")
            #expect(map.count == 2)
            if managed { realm.cancelWrite() }
        }
    }

    @Test("the sum of no values is .int(0), except a managed set's (Addable AnyRealmValue tests)")
    func emptySums() throws {
        let holder = MixedCollectionsHolder()
        #expect(holder.map.sum().intValue == 0)
        #expect(holder.set.sum().intValue == 0)
        let realm = try memoryRealm([MixedCollectionsHolder.self])
        try realm.write { realm.add(holder) }
        #expect(holder.map.sum().intValue == 0)
        #expect(holder.set.sum().intValue == nil)
        try realm.write { holder.set.insert(objectsIn: [.int(1), .double(2.5)]) }
        #expect(holder.set.sum().decimal128Value == Decimal128(number: 3.5))
    }
}
