// ValueMatrixTests.swift — the value matrix: for every Realm value type and its optional
// variant, the List, MutableSet and Map operations Realm documents (append, insert, remove,
// contains, index(of:); min and max of the MinMaxType values; sum and average of the AddableType
// values; sorted(ascending:) and distinct() of managed collections), managed and unmanaged.

import Foundation
import Testing

import OpenRealm

/// A List, a MutableSet and a Map of every value type, required and optional.
final class ValueMatrixHolder: Object {
    @Persisted var intList: List<Int>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var intMap: Map<String, Int>
    @Persisted var optIntList: List<Int?>
    @Persisted var optIntSet: MutableSet<Int?>
    @Persisted var optIntMap: Map<String, Int?>
    @Persisted var int8List: List<Int8>
    @Persisted var int8Set: MutableSet<Int8>
    @Persisted var int8Map: Map<String, Int8>
    @Persisted var optInt8List: List<Int8?>
    @Persisted var optInt8Set: MutableSet<Int8?>
    @Persisted var optInt8Map: Map<String, Int8?>
    @Persisted var int16List: List<Int16>
    @Persisted var int16Set: MutableSet<Int16>
    @Persisted var int16Map: Map<String, Int16>
    @Persisted var optInt16List: List<Int16?>
    @Persisted var optInt16Set: MutableSet<Int16?>
    @Persisted var optInt16Map: Map<String, Int16?>
    @Persisted var int32List: List<Int32>
    @Persisted var int32Set: MutableSet<Int32>
    @Persisted var int32Map: Map<String, Int32>
    @Persisted var optInt32List: List<Int32?>
    @Persisted var optInt32Set: MutableSet<Int32?>
    @Persisted var optInt32Map: Map<String, Int32?>
    @Persisted var int64List: List<Int64>
    @Persisted var int64Set: MutableSet<Int64>
    @Persisted var int64Map: Map<String, Int64>
    @Persisted var optInt64List: List<Int64?>
    @Persisted var optInt64Set: MutableSet<Int64?>
    @Persisted var optInt64Map: Map<String, Int64?>
    @Persisted var boolList: List<Bool>
    @Persisted var boolSet: MutableSet<Bool>
    @Persisted var boolMap: Map<String, Bool>
    @Persisted var optBoolList: List<Bool?>
    @Persisted var optBoolSet: MutableSet<Bool?>
    @Persisted var optBoolMap: Map<String, Bool?>
    @Persisted var floatList: List<Float>
    @Persisted var floatSet: MutableSet<Float>
    @Persisted var floatMap: Map<String, Float>
    @Persisted var optFloatList: List<Float?>
    @Persisted var optFloatSet: MutableSet<Float?>
    @Persisted var optFloatMap: Map<String, Float?>
    @Persisted var doubleList: List<Double>
    @Persisted var doubleSet: MutableSet<Double>
    @Persisted var doubleMap: Map<String, Double>
    @Persisted var optDoubleList: List<Double?>
    @Persisted var optDoubleSet: MutableSet<Double?>
    @Persisted var optDoubleMap: Map<String, Double?>
    @Persisted var stringList: List<String>
    @Persisted var stringSet: MutableSet<String>
    @Persisted var stringMap: Map<String, String>
    @Persisted var optStringList: List<String?>
    @Persisted var optStringSet: MutableSet<String?>
    @Persisted var optStringMap: Map<String, String?>
    @Persisted var dataList: List<Data>
    @Persisted var dataSet: MutableSet<Data>
    @Persisted var dataMap: Map<String, Data>
    @Persisted var optDataList: List<Data?>
    @Persisted var optDataSet: MutableSet<Data?>
    @Persisted var optDataMap: Map<String, Data?>
    @Persisted var dateList: List<Date>
    @Persisted var dateSet: MutableSet<Date>
    @Persisted var dateMap: Map<String, Date>
    @Persisted var optDateList: List<Date?>
    @Persisted var optDateSet: MutableSet<Date?>
    @Persisted var optDateMap: Map<String, Date?>
    @Persisted var decimalList: List<Decimal128>
    @Persisted var decimalSet: MutableSet<Decimal128>
    @Persisted var decimalMap: Map<String, Decimal128>
    @Persisted var optDecimalList: List<Decimal128?>
    @Persisted var optDecimalSet: MutableSet<Decimal128?>
    @Persisted var optDecimalMap: Map<String, Decimal128?>
    @Persisted var objectIdList: List<ObjectId>
    @Persisted var objectIdSet: MutableSet<ObjectId>
    @Persisted var objectIdMap: Map<String, ObjectId>
    @Persisted var optObjectIdList: List<ObjectId?>
    @Persisted var optObjectIdSet: MutableSet<ObjectId?>
    @Persisted var optObjectIdMap: Map<String, ObjectId?>
    @Persisted var uuidList: List<UUID>
    @Persisted var uuidSet: MutableSet<UUID>
    @Persisted var uuidMap: Map<String, UUID>
    @Persisted var optUuidList: List<UUID?>
    @Persisted var optUuidSet: MutableSet<UUID?>
    @Persisted var optUuidMap: Map<String, UUID?>
    @Persisted var mixedList: List<AnyRealmValue>
    @Persisted var mixedSet: MutableSet<AnyRealmValue>
    @Persisted var mixedMap: Map<String, AnyRealmValue>
}

/// An unmanaged holder, or one added to a new in-memory Realm.
private func matrixHolder(_ managed: Bool) throws -> (Realm?, ValueMatrixHolder) {
    let holder = ValueMatrixHolder()
    guard managed else { return (nil, holder) }
    let realm = try Realm(configuration: .init(
        inMemoryIdentifier: "value-matrix-\(UUID().uuidString)", objectTypes: [ValueMatrixHolder.self]))
    try realm.write { realm.add(holder) }
    return (realm, holder)
}

/// Runs `body` in a write transaction of `realm`, or directly for unmanaged collections.
private func write(_ realm: Realm?, _ body: () -> Void) throws {
    if let realm { try realm.write(body) } else { body() }
}

/// Empties the three collections and fills them with `values` (the map's keys "k0", "k1", ...).
private func fill<T: RealmCollectionValue>(_ realm: Realm?, _ list: List<T>, _ set: MutableSet<T>, _ map: Map<String, T>,
                                           _ values: [T]) throws {
    try write(realm) {
        list.removeAll()
        set.removeAll()
        map.removeAll()
        list.append(objectsIn: values)
        set.insert(objectsIn: values)
        for (i, value) in values.enumerated() { map.updateValue(value, forKey: "k\(i)") }
    }
}

/// append, insert, remove, contains and index(of:) with two distinct values `a` and `b`.
private func basics<T: RealmCollectionValue>(_ realm: Realm?, _ list: List<T>, _ set: MutableSet<T>, _ map: Map<String, T>,
                                             _ a: T, _ b: T) throws {
    let kind = "\(T.self)\(realm == nil ? " unmanaged" : " managed")"
    try write(realm) {
        list.append(b)
        list.insert(a, at: 0)
        list.append(a)
        set.insert(a)
        set.insert(b)
        set.insert(b)
        map.updateValue(a, forKey: "x")
        map.updateValue(b, forKey: "y")
    }
    #expect(Array(list) == [a, b, a], "\(kind) List append and insert")
    #expect(list.index(of: b) == 1 && list.index(of: a) == 0 && list.contains(b), "\(kind) List index(of:)")
    #expect(set.count == 2 && set.contains(a) && set.contains(b) && set.index(of: a) != nil, "\(kind) MutableSet insert")
    #expect(map.count == 2 && map["y"] == b && map["x"] == a, "\(kind) Map subscript")
    #expect(map.index(of: a) == MapIndex(offset: 0) && map.index(of: b) == MapIndex(offset: 1), "\(kind) Map index(of:)")
    #expect(map.contains { $1 == b }, "\(kind) Map contains(where:)")
    try write(realm) {
        list.remove(at: 1)
        set.remove(b)
        map.removeObject(for: "y")
    }
    #expect(Array(list) == [a, a] && list.index(of: b) == nil && !list.contains(b), "\(kind) List remove(at:)")
    #expect(set.count == 1 && !set.contains(b) && set.index(of: b) == nil, "\(kind) MutableSet remove")
    #expect(map.count == 1 && map["y"] == nil && map.index(of: b) == nil, "\(kind) Map removeObject(for:)")
}

/// min() and max() of `values` (nil values skipped).
private func minMax<T: RealmCollectionValue & MinMaxType>(_ realm: Realm?, _ list: List<T>, _ set: MutableSet<T>,
                                                          _ map: Map<String, T>, _ values: [T], min: T, max: T) throws {
    let kind = "\(T.self)\(realm == nil ? " unmanaged" : " managed")"
    try fill(realm, list, set, map, values)
    #expect(list.min() == min && list.max() == max, "\(kind) List min/max")
    #expect(set.min() == min && set.max() == max, "\(kind) MutableSet min/max")
    #expect(map.min() == min && map.max() == max, "\(kind) Map min/max")
}

/// sum() and average() of `values` (nil values skipped).
private func sums<T: RealmCollectionValue & AddableType>(_ realm: Realm?, _ list: List<T>, _ set: MutableSet<T>,
                                                         _ map: Map<String, T>, _ values: [T], sum: T, average: Double) throws {
    let kind = "\(T.self)\(realm == nil ? " unmanaged" : " managed")"
    try fill(realm, list, set, map, values)
    #expect(list.sum() == sum && set.sum() == sum && map.sum() == sum, "\(kind) sum")
    let averages: [Double?] = [list.average(), set.average(), map.average()]
    #expect(averages == [average, average, average], "\(kind) average")
}

/// The number a mixed value holds.
private func number(_ value: AnyRealmValue) -> Double? {
    switch value {
    case .int(let int): Double(int)
    case .float(let float): Double(float)
    case .double(let double): double
    case .decimal128(let decimal): decimal.doubleValue
    default: nil
    }
}

/// sum() and average() of mixed numbers: Realm gives a managed collection's as realm-core does
/// (a Decimal128 sum) and an unmanaged one's as Foundation's @sum (a double); both hold 6.
private func mixedSums(_ realm: Realm?, _ list: List<AnyRealmValue>, _ set: MutableSet<AnyRealmValue>,
                       _ map: Map<String, AnyRealmValue>, _ values: [AnyRealmValue]) throws {
    let kind = "AnyRealmValue\(realm == nil ? " unmanaged" : " managed")"
    try fill(realm, list, set, map, values)
    #expect([list.sum(), set.sum(), map.sum()].map(number) == [6, 6, 6], "\(kind) sum")
    let averages: [Double?] = [list.average(), set.average(), map.average()]
    #expect(averages == [2, 2, 2], "\(kind) average")
}

/// sorted(ascending:) and distinct() of managed collections holding `ascending` (distinct values
/// in ascending order) in descending order, each twice in the list.
private func sorting<T: RealmCollectionValue>(_ realm: Realm, _ list: List<T>, _ set: MutableSet<T>, _ map: Map<String, T>,
                                              _ ascending: [T]) throws where T.PersistedType: SortableType {
    let kind = "\(T.self)"
    let descending = Array(ascending.reversed())
    try fill(realm, list, set, map, descending)
    try realm.write { list.append(objectsIn: descending) }
    #expect(Array(list.sorted(ascending: true)) == ascending.flatMap { [$0, $0] }, "\(kind) List sorted ascending")
    #expect(Array(list.sorted(ascending: false)) == descending.flatMap { [$0, $0] }, "\(kind) List sorted descending")
    #expect(Array(list.distinct()) == descending, "\(kind) List distinct")
    #expect(Array(set.sorted(ascending: true)) == ascending, "\(kind) MutableSet sorted")
    #expect(set.distinct().count == ascending.count, "\(kind) MutableSet distinct")
    #expect(Array(map.sorted(ascending: true)) == ascending, "\(kind) Map sorted")
    #expect(Array(map.distinct()) == descending, "\(kind) Map distinct")
}

@Suite("Value matrix: List, MutableSet and Map of every value type")
struct ValueMatrixTests {
    @Test("Int: List, MutableSet and Map operations", arguments: [false, true])
    func int(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.intList, holder.intSet, holder.intMap, 1, 2)
        try basics(realm, holder.optIntList, holder.optIntSet, holder.optIntMap, nil, 2)
        try minMax(realm, holder.intList, holder.intSet, holder.intMap, [2, 1, 3], min: 1, max: 3)
        try minMax(realm, holder.optIntList, holder.optIntSet, holder.optIntMap, [2, nil, 1, 3], min: 1, max: 3)
        try sums(realm, holder.intList, holder.intSet, holder.intMap, [1, 2, 3], sum: 6, average: 2.0)
        try sums(realm, holder.optIntList, holder.optIntSet, holder.optIntMap, [1, nil, 2, 3], sum: 6, average: 2.0)
        if let realm { try sorting(realm, holder.intList, holder.intSet, holder.intMap, [1, 2, 3]) }
        if let realm { try sorting(realm, holder.optIntList, holder.optIntSet, holder.optIntMap, [nil, 1, 2, 3]) }
    }

    @Test("Int8: List, MutableSet and Map operations", arguments: [false, true])
    func int8(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.int8List, holder.int8Set, holder.int8Map, 1, 2)
        try basics(realm, holder.optInt8List, holder.optInt8Set, holder.optInt8Map, nil, 2)
        try minMax(realm, holder.int8List, holder.int8Set, holder.int8Map, [2, 1, 3], min: 1, max: 3)
        try minMax(realm, holder.optInt8List, holder.optInt8Set, holder.optInt8Map, [2, nil, 1, 3], min: 1, max: 3)
        try sums(realm, holder.int8List, holder.int8Set, holder.int8Map, [1, 2, 3], sum: 6, average: 2.0)
        try sums(realm, holder.optInt8List, holder.optInt8Set, holder.optInt8Map, [1, nil, 2, 3], sum: 6, average: 2.0)
        if let realm { try sorting(realm, holder.int8List, holder.int8Set, holder.int8Map, [1, 2, 3]) }
        if let realm { try sorting(realm, holder.optInt8List, holder.optInt8Set, holder.optInt8Map, [nil, 1, 2, 3]) }
    }

    @Test("Int16: List, MutableSet and Map operations", arguments: [false, true])
    func int16(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.int16List, holder.int16Set, holder.int16Map, 1, 2)
        try basics(realm, holder.optInt16List, holder.optInt16Set, holder.optInt16Map, nil, 2)
        try minMax(realm, holder.int16List, holder.int16Set, holder.int16Map, [2, 1, 3], min: 1, max: 3)
        try minMax(realm, holder.optInt16List, holder.optInt16Set, holder.optInt16Map, [2, nil, 1, 3], min: 1, max: 3)
        try sums(realm, holder.int16List, holder.int16Set, holder.int16Map, [1, 2, 3], sum: 6, average: 2.0)
        try sums(realm, holder.optInt16List, holder.optInt16Set, holder.optInt16Map, [1, nil, 2, 3], sum: 6, average: 2.0)
        if let realm { try sorting(realm, holder.int16List, holder.int16Set, holder.int16Map, [1, 2, 3]) }
        if let realm { try sorting(realm, holder.optInt16List, holder.optInt16Set, holder.optInt16Map, [nil, 1, 2, 3]) }
    }

    @Test("Int32: List, MutableSet and Map operations", arguments: [false, true])
    func int32(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.int32List, holder.int32Set, holder.int32Map, 1, 2)
        try basics(realm, holder.optInt32List, holder.optInt32Set, holder.optInt32Map, nil, 2)
        try minMax(realm, holder.int32List, holder.int32Set, holder.int32Map, [2, 1, 3], min: 1, max: 3)
        try minMax(realm, holder.optInt32List, holder.optInt32Set, holder.optInt32Map, [2, nil, 1, 3], min: 1, max: 3)
        try sums(realm, holder.int32List, holder.int32Set, holder.int32Map, [1, 2, 3], sum: 6, average: 2.0)
        try sums(realm, holder.optInt32List, holder.optInt32Set, holder.optInt32Map, [1, nil, 2, 3], sum: 6, average: 2.0)
        if let realm { try sorting(realm, holder.int32List, holder.int32Set, holder.int32Map, [1, 2, 3]) }
        if let realm { try sorting(realm, holder.optInt32List, holder.optInt32Set, holder.optInt32Map, [nil, 1, 2, 3]) }
    }

    @Test("Int64: List, MutableSet and Map operations", arguments: [false, true])
    func int64(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.int64List, holder.int64Set, holder.int64Map, 1, 2)
        try basics(realm, holder.optInt64List, holder.optInt64Set, holder.optInt64Map, nil, 2)
        try minMax(realm, holder.int64List, holder.int64Set, holder.int64Map, [2, 1, 3], min: 1, max: 3)
        try minMax(realm, holder.optInt64List, holder.optInt64Set, holder.optInt64Map, [2, nil, 1, 3], min: 1, max: 3)
        try sums(realm, holder.int64List, holder.int64Set, holder.int64Map, [1, 2, 3], sum: 6, average: 2.0)
        try sums(realm, holder.optInt64List, holder.optInt64Set, holder.optInt64Map, [1, nil, 2, 3], sum: 6, average: 2.0)
        if let realm { try sorting(realm, holder.int64List, holder.int64Set, holder.int64Map, [1, 2, 3]) }
        if let realm { try sorting(realm, holder.optInt64List, holder.optInt64Set, holder.optInt64Map, [nil, 1, 2, 3]) }
    }

    @Test("Bool: List, MutableSet and Map operations", arguments: [false, true])
    func bool(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.boolList, holder.boolSet, holder.boolMap, false, true)
        try basics(realm, holder.optBoolList, holder.optBoolSet, holder.optBoolMap, nil, true)
        if let realm { try sorting(realm, holder.boolList, holder.boolSet, holder.boolMap, [false, true]) }
        if let realm { try sorting(realm, holder.optBoolList, holder.optBoolSet, holder.optBoolMap, [nil, false, true]) }
    }

    @Test("Float: List, MutableSet and Map operations", arguments: [false, true])
    func float(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.floatList, holder.floatSet, holder.floatMap, 1.5, 2.5)
        try basics(realm, holder.optFloatList, holder.optFloatSet, holder.optFloatMap, nil, 2.5)
        try minMax(realm, holder.floatList, holder.floatSet, holder.floatMap, [2.5, 1.5, 3.5], min: 1.5, max: 3.5)
        try minMax(realm, holder.optFloatList, holder.optFloatSet, holder.optFloatMap, [2.5, nil, 1.5, 3.5], min: 1.5, max: 3.5)
        try sums(realm, holder.floatList, holder.floatSet, holder.floatMap, [1.5, 2.5, 3.5], sum: 7.5, average: 2.5)
        try sums(realm, holder.optFloatList, holder.optFloatSet, holder.optFloatMap, [1.5, nil, 2.5, 3.5], sum: 7.5, average: 2.5)
        if let realm { try sorting(realm, holder.floatList, holder.floatSet, holder.floatMap, [1.5, 2.5, 3.5]) }
        if let realm { try sorting(realm, holder.optFloatList, holder.optFloatSet, holder.optFloatMap, [nil, 1.5, 2.5, 3.5]) }
    }

    @Test("Double: List, MutableSet and Map operations", arguments: [false, true])
    func double(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.doubleList, holder.doubleSet, holder.doubleMap, 1.5, 2.5)
        try basics(realm, holder.optDoubleList, holder.optDoubleSet, holder.optDoubleMap, nil, 2.5)
        try minMax(realm, holder.doubleList, holder.doubleSet, holder.doubleMap, [2.5, 1.5, 3.5], min: 1.5, max: 3.5)
        try minMax(realm, holder.optDoubleList, holder.optDoubleSet, holder.optDoubleMap, [2.5, nil, 1.5, 3.5], min: 1.5, max: 3.5)
        try sums(realm, holder.doubleList, holder.doubleSet, holder.doubleMap, [1.5, 2.5, 3.5], sum: 7.5, average: 2.5)
        try sums(realm, holder.optDoubleList, holder.optDoubleSet, holder.optDoubleMap, [1.5, nil, 2.5, 3.5], sum: 7.5, average: 2.5)
        if let realm { try sorting(realm, holder.doubleList, holder.doubleSet, holder.doubleMap, [1.5, 2.5, 3.5]) }
        if let realm { try sorting(realm, holder.optDoubleList, holder.optDoubleSet, holder.optDoubleMap, [nil, 1.5, 2.5, 3.5]) }
    }

    @Test("String: List, MutableSet and Map operations", arguments: [false, true])
    func string(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.stringList, holder.stringSet, holder.stringMap, "a", "b")
        try basics(realm, holder.optStringList, holder.optStringSet, holder.optStringMap, nil, "b")
        if let realm { try sorting(realm, holder.stringList, holder.stringSet, holder.stringMap, ["a", "b", "c"]) }
        if let realm { try sorting(realm, holder.optStringList, holder.optStringSet, holder.optStringMap, [nil, "a", "b", "c"]) }
    }

    @Test("Data: List, MutableSet and Map operations", arguments: [false, true])
    func data(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.dataList, holder.dataSet, holder.dataMap, Data("a".utf8), Data("b".utf8))
        try basics(realm, holder.optDataList, holder.optDataSet, holder.optDataMap, nil, Data("b".utf8))
        if let realm { try sorting(realm, holder.dataList, holder.dataSet, holder.dataMap, [Data("a".utf8), Data("b".utf8), Data("c".utf8)]) }
        if let realm { try sorting(realm, holder.optDataList, holder.optDataSet, holder.optDataMap, [nil, Data("a".utf8), Data("b".utf8), Data("c".utf8)]) }
    }

    @Test("Date: List, MutableSet and Map operations", arguments: [false, true])
    func date(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.dateList, holder.dateSet, holder.dateMap, Date(timeIntervalSince1970: 1000), Date(timeIntervalSince1970: 2000))
        try basics(realm, holder.optDateList, holder.optDateSet, holder.optDateMap, nil, Date(timeIntervalSince1970: 2000))
        try minMax(realm, holder.dateList, holder.dateSet, holder.dateMap, [Date(timeIntervalSince1970: 2000), Date(timeIntervalSince1970: 1000), Date(timeIntervalSince1970: 3000)], min: Date(timeIntervalSince1970: 1000), max: Date(timeIntervalSince1970: 3000))
        try minMax(realm, holder.optDateList, holder.optDateSet, holder.optDateMap, [Date(timeIntervalSince1970: 2000), nil, Date(timeIntervalSince1970: 1000), Date(timeIntervalSince1970: 3000)], min: Date(timeIntervalSince1970: 1000), max: Date(timeIntervalSince1970: 3000))
        if let realm { try sorting(realm, holder.dateList, holder.dateSet, holder.dateMap, [Date(timeIntervalSince1970: 1000), Date(timeIntervalSince1970: 2000), Date(timeIntervalSince1970: 3000)]) }
        if let realm { try sorting(realm, holder.optDateList, holder.optDateSet, holder.optDateMap, [nil, Date(timeIntervalSince1970: 1000), Date(timeIntervalSince1970: 2000), Date(timeIntervalSince1970: 3000)]) }
    }

    @Test("Decimal128: List, MutableSet and Map operations", arguments: [false, true])
    func decimal(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.decimalList, holder.decimalSet, holder.decimalMap, "1.5", "2.5")
        try basics(realm, holder.optDecimalList, holder.optDecimalSet, holder.optDecimalMap, nil, "2.5")
        try minMax(realm, holder.decimalList, holder.decimalSet, holder.decimalMap, ["2.5", "1.5", "3.5"], min: "1.5", max: "3.5")
        try minMax(realm, holder.optDecimalList, holder.optDecimalSet, holder.optDecimalMap, ["2.5", nil, "1.5", "3.5"], min: "1.5", max: "3.5")
        try sums(realm, holder.decimalList, holder.decimalSet, holder.decimalMap, ["1.5", "2.5", "3.5"], sum: "7.5", average: 2.5)
        try sums(realm, holder.optDecimalList, holder.optDecimalSet, holder.optDecimalMap, ["1.5", nil, "2.5", "3.5"], sum: "7.5", average: 2.5)
        if let realm { try sorting(realm, holder.decimalList, holder.decimalSet, holder.decimalMap, ["1.5", "2.5", "3.5"]) }
        if let realm { try sorting(realm, holder.optDecimalList, holder.optDecimalSet, holder.optDecimalMap, [nil, "1.5", "2.5", "3.5"]) }
    }

    @Test("ObjectId: List, MutableSet and Map operations", arguments: [false, true])
    func objectId(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.objectIdList, holder.objectIdSet, holder.objectIdMap, ObjectId("000000000000000000000001"), ObjectId("000000000000000000000002"))
        try basics(realm, holder.optObjectIdList, holder.optObjectIdSet, holder.optObjectIdMap, nil, ObjectId("000000000000000000000002"))
        if let realm { try sorting(realm, holder.objectIdList, holder.objectIdSet, holder.objectIdMap, [ObjectId("000000000000000000000001"), ObjectId("000000000000000000000002"), ObjectId("000000000000000000000003")]) }
        if let realm { try sorting(realm, holder.optObjectIdList, holder.optObjectIdSet, holder.optObjectIdMap, [nil, ObjectId("000000000000000000000001"), ObjectId("000000000000000000000002"), ObjectId("000000000000000000000003")]) }
    }

    @Test("UUID: List, MutableSet and Map operations", arguments: [false, true])
    func uuid(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.uuidList, holder.uuidSet, holder.uuidMap, UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "00000000-0000-0000-0000-000000000002")!)
        try basics(realm, holder.optUuidList, holder.optUuidSet, holder.optUuidMap, nil, UUID(uuidString: "00000000-0000-0000-0000-000000000002")!)
        if let realm { try sorting(realm, holder.uuidList, holder.uuidSet, holder.uuidMap, [UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "00000000-0000-0000-0000-000000000002")!, UUID(uuidString: "00000000-0000-0000-0000-000000000003")!]) }
        if let realm { try sorting(realm, holder.optUuidList, holder.optUuidSet, holder.optUuidMap, [nil, UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "00000000-0000-0000-0000-000000000002")!, UUID(uuidString: "00000000-0000-0000-0000-000000000003")!]) }
    }

    @Test("min, max and sum of optional values give the wrapped type", arguments: [false, true])
    func optionalAggregatesAsWrapped(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try fill(realm, holder.optIntList, holder.optIntSet, holder.optIntMap, [2, nil, 1, 3])
        let kind = managed ? "managed" : "unmanaged"
        let mins: [Int?] = [holder.optIntList.min(), holder.optIntSet.min(), holder.optIntMap.min()]
        let maxes: [Int?] = [holder.optIntList.max(), holder.optIntSet.max(), holder.optIntMap.max()]
        let sums: [Int] = [holder.optIntList.sum(), holder.optIntSet.sum(), holder.optIntMap.sum()]
        #expect(mins == [1, 1, 1], "\(kind) min of List, MutableSet and Map of Int?")
        #expect(maxes == [3, 3, 3], "\(kind) max of List, MutableSet and Map of Int?")
        #expect(sums == [6, 6, 6], "\(kind) sum of List, MutableSet and Map of Int?")
        try fill(realm, holder.optDoubleList, holder.optDoubleSet, holder.optDoubleMap, [nil, nil])
        let none: [Double?] = [holder.optDoubleList.min(), holder.optDoubleSet.max(), holder.optDoubleMap.min()]
        let zeros: [Double] = [holder.optDoubleList.sum(), holder.optDoubleSet.sum(), holder.optDoubleMap.sum()]
        #expect(none == [nil, nil, nil], "\(kind) min/max of only nils is nil")
        #expect(zeros == [0, 0, 0], "\(kind) sum of only nils is 0")
        if let realm {
            let results = holder.optIntList.sorted(ascending: true)
            let lowest: Int? = results.min()
            let highest: Int? = AnyRealmCollection(results).max()
            let total: Int = results.sum()
            #expect(lowest == 1 && highest == 3 && total == 6, "Results and AnyRealmCollection of Int?")
            _ = realm
        }
    }

    @Test("AnyRealmValue: List, MutableSet and Map operations", arguments: [false, true])
    func mixed(managed: Bool) throws {
        let (realm, holder) = try matrixHolder(managed)
        try basics(realm, holder.mixedList, holder.mixedSet, holder.mixedMap, .int(1), .int(2))
        try minMax(realm, holder.mixedList, holder.mixedSet, holder.mixedMap, [.int(2), .int(1), .int(3)], min: .int(1), max: .int(3))
        try mixedSums(realm, holder.mixedList, holder.mixedSet, holder.mixedMap, [.int(1), .int(2), .int(3)])
        if let realm { try sorting(realm, holder.mixedList, holder.mixedSet, holder.mixedMap, [.int(1), .int(2), .int(3)]) }
    }
}
