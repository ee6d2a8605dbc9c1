// ValueProtocolTests.swift — generic code written against Realm's value protocols compiles and
// works (RealmCollectionValue, _Persistable and PersistedType, _RealmSchemaDiscoverable,
// _RealmCollectionValueInsideOptional, MinMaxType, AddableType, SortableType,
// RealmKeyedCollection), and the rest of item 2: ObjectId("…"), Decimal128's numeric members,
// List's RangeReplaceableCollection.

import Foundation
import Testing

import OpenRealm

private func firstTwo<T: RealmCollectionValue>(_ list: List<T>) -> [T] { Array(list.prefix(2)) }

private func persistedTypeName<T: _Persistable>(_: T.Type) -> String { "\(T.PersistedType.self)" }

private func storedAs<T: RealmCollectionValue>(_: T.Type) -> Any.Type { T.PersistedType.self }

private func propertyType<T: _RealmSchemaDiscoverable>(_: T.Type) -> (PropertyType, Bool) { (T._rlmType, T._rlmOptional) }

private func optionalList<T: _RealmCollectionValueInsideOptional>(_ values: [T?]) -> List<T?> {
    let list = List<T?>()
    list.append(objectsIn: values)
    return list
}

private func smallest<T: RealmCollectionValue & MinMaxType>(_ list: List<T>) -> T? { list.min() }

private func total<T: RealmCollectionValue & AddableType>(_ list: List<T>) -> T { list.sum() }

private func ordered<T: RealmCollectionValue & SortableType & Comparable>(_ set: MutableSet<T>) -> [T] { set.sorted() }

private func numericQueryCount<T: _Persistable>(_ results: Results<AllTypes>, _ keyPath: String, _ value: T) -> Int
where T.PersistedType: _QueryNumeric {
    results.filter("\(keyPath) >= %@", value).count
}

private func keys<M: RealmKeyedCollection>(_ map: M) -> [M.Key] { map.keys }

private func sumOf<T: Numeric>(_ values: [T]) -> T { values.reduce(0, +) }

@Suite("Realm's value protocols")
struct ValueProtocolTests {
    @Test("generic functions over the value protocols")
    func genericCode() throws {
        let ints = List<Int>()
        ints.append(objectsIn: [3, 1, 2])
        #expect(firstTwo(ints) == [3, 1])
        #expect(smallest(ints) == 1)
        #expect(total(ints) == 6)
        #expect(persistedTypeName(Int.self) == "Int")
        #expect(persistedTypeName(Mood.self) == "String")
        #expect(persistedTypeName(Int?.self) == "Optional<Int>")
        #expect(ObjectIdentifier(storedAs(Mood.self)) == ObjectIdentifier(String.self))
        #expect(ObjectIdentifier(storedAs(Dog.self)) == ObjectIdentifier(Object.self))
        #expect(propertyType(Int?.self) == (.int, true))
        #expect(propertyType(String.self) == (.string, false))
        #expect(propertyType(List<Dog>.self) == (.object, false))
        #expect(propertyType(AnyRealmValue.self) == (.any, false))
        let optionals = optionalList([1, nil, 3])
        #expect(optionals.count == 3 && optionals[1] == nil)
        let set = MutableSet<String>()
        set.insert(objectsIn: ["b", "a"])
        #expect(ordered(set) == ["a", "b"])
        let map = Map<String, Int>()
        map["x"] = 1
        #expect(keys(map) == ["x"])

        let realm = try Realm(configuration: .init(inMemoryIdentifier: "value-protocols-\(UUID().uuidString)"))
        try realm.write {
            realm.add(AllTypes(value: ["int": 5]))
            realm.add(AllTypes(value: ["int": 1]))
        }
        #expect(numericQueryCount(realm.objects(AllTypes.self), "int", 2) == 1)
    }

    @Test("ObjectId from a static string; Decimal128's numeric conformances")
    func valueTypes() throws {
        let id = ObjectId("6054d1f5e5f8a2b3c4d5e6f7")
        #expect(id == (try ObjectId(string: "6054d1f5e5f8a2b3c4d5e6f7")))
        let price: Decimal128 = Decimal128("19.99")
        #expect(price.stringValue == "19.99")
        #expect(Decimal128(exactly: UInt64.max)?.stringValue == "18446744073709551615")
        #expect(Decimal128(exactly: Int8(-5)) == Decimal128(-5))
        #expect(sumOf([Decimal128(1), Decimal128(2)]) == Decimal128(3))
        #expect(Decimal128(1).distance(to: Decimal128(4)) == Decimal128(3))
        #expect(Decimal128(1).advanced(by: Decimal128(2)) == Decimal128(3))
        #expect(Decimal128.min < Decimal128(0) && Decimal128.max > Decimal128(0))
        #expect(Decimal128.max.stringValue == "+9999999999999999999999999999999999E+6111")
        let negated = Decimal128(2)
        negated.negate()
        #expect(negated == Decimal128(-2) && (-negated).magnitude == Decimal128(2))
        #expect((try Decimal128(string: "NaN")).isSignalingNaN)
    }

    @Test("List is a RangeReplaceableCollection, managed or not")
    func rangeReplaceable() throws {
        let list = List<String>()
        list.append(objectsIn: ["a", "b", "c", "d"])
        list.replaceSubrange(1..<3, with: ["x", "y", "z"])
        #expect(Array(list) == ["a", "x", "y", "z", "d"])
        list.replaceSubrange(0..., with: ["q"])
        #expect(Array(list) == ["q"])
        var mutable = list
        mutable.insert(contentsOf: ["1", "2"], at: 0)
        mutable.removeSubrange(0..<1)
        #expect(Array(list) == ["2", "q"])

        let realm = try Realm(configuration: .init(inMemoryIdentifier: "range-replaceable-\(UUID().uuidString)"))
        let person = Person(value: ["id": 1, "nicknames": ["a", "b", "c"]])
        try realm.write {
            realm.add(person)
            person.nicknames.replaceSubrange(0..<2, with: ["z"])
        }
        #expect(Array(person.nicknames) == ["z", "c"])
    }
}
