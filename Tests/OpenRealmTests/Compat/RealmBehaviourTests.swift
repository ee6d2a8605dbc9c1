// RealmBehaviourTests.swift — behaviours that must be Realm's exactly (issue 18 item 8): each case
// is a behaviour Realm Swift documents or its own tests check.

import Foundation
import Testing

import OpenRealm

private func memoryRealm(_ types: [ObjectBase.Type]? = nil) throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "behaviour-\(UUID().uuidString)", objectTypes: types))
}

@Suite("Realm's behaviours")
struct RealmBehaviourTests {
    @Test("min/max/sum/average of properties on unmanaged List and MutableSet")
    func unmanagedAggregates() {
        let list = List<Dog>()
        list.append(Dog(value: ["name": "a", "age": 3]))
        list.append(Dog(value: ["name": "b", "age": 7]))
        #expect(list.min(ofProperty: "age") as Int? == 3)
        #expect(list.max(ofProperty: "age") as Int? == 7)
        #expect(list.sum(ofProperty: "age") as Int == 10)
        #expect(list.average(ofProperty: "age") as Double? == 5)
        #expect(list.min(of: \.age) == 3)
        let set = MutableSet<Dog>()
        set.insert(objectsIn: Array(list))
        #expect(set.max(ofProperty: "age") as Int? == 7)
        #expect(set.sum(of: \.age) == 10)
        let ints = List<Int>()
        ints.append(objectsIn: [4, 2, 9])
        #expect(ints.min() == 2)
        #expect(ints.max() == 9)
        #expect(ints.sum() == 15)
        #expect(ints.average() as Double? == 5)
    }

    @Test("min() and max() of AnyRealmValue collections holding dates")
    func mixedDates() throws {
        let realm = try memoryRealm()
        let early = Date(timeIntervalSince1970: 100), late = Date(timeIntervalSince1970: 200)
        let unmanaged = List<AnyRealmValue>()
        unmanaged.append(objectsIn: [.date(late), .date(early)])
        #expect(unmanaged.min() == .date(early))
        #expect(unmanaged.max() == .date(late))
        let holder = Collections()
        try realm.write {
            realm.add(holder)
            holder.mixedList.append(objectsIn: [.date(late), .date(early)])
        }
        #expect(holder.mixedList.min() == .date(early))
        #expect(holder.mixedList.max() == .date(late))
    }

    @Test("a negative index stops with Realm's message")
    func negativeIndex() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(1)
            _ = list[-1]
        }
        expectStop("Cannot pass a negative value", result)
    }

    @Test("a Date read back equals the Date stored")
    func dateRoundTrip() throws {
        let realm = try memoryRealm()
        let dates = [Date(timeIntervalSince1970: 1.1), Date(timeIntervalSince1970: -1.3), Date(timeIntervalSinceReferenceDate: 123_456.789),
                     Date(timeIntervalSince1970: 1_700_000_000.123_456_7), Date(timeIntervalSinceReferenceDate: 0.1)]
        for date in dates {
            let object = AllTypes()
            object.date = date
            try realm.write { realm.add(object) }
            #expect(object.date == date, "\(date.timeIntervalSince1970)")
        }
    }

    @Test("a nil optional primary key is accepted")
    func nilPrimaryKey() throws {
        let realm = try memoryRealm()
        try realm.write { realm.add(OptionalIntKeyed()) }
        #expect(realm.object(ofType: OptionalIntKeyed.self, forPrimaryKey: nil as Int?) != nil)
        try realm.write { realm.create(OptionalIntKeyed.self, value: ["id": NSNull()], update: .modified) }
        #expect(realm.objects(OptionalIntKeyed.self).count == 1)
    }

    @Test("array input with fewer values than properties uses the defaults")
    func partialArrayInput() throws {
        let person = Person(value: [7, "Ann"])
        #expect(person.id == 7 && person.name == "Ann" && person.age == 18)
        let realm = try memoryRealm()
        try realm.write {
            let created = realm.create(Person.self, value: [8])
            #expect(created.age == 18)
            created.address = Address(value: ["street": "Main"])
        }
    }

    @Test("a query argument that is an unmanaged object; != on a link")
    func unmanagedQueryArgument() throws {
        let realm = try memoryRealm()
        let rex = Dog(value: ["name": "Rex"])
        try realm.write {
            realm.add(Person(value: ["id": 1, "dog": rex]))
            realm.add(Person(value: ["id": 2]))
            realm.add(Person(value: ["id": 3, "dog": Dog()]))
        }
        #expect(realm.objects(Person.self).filter("dog == %@", Dog()).count == 0)
        #expect(realm.objects(Person.self).filter("dog != %@", Dog()).count == 3)
        #expect(realm.objects(Person.self).filter("dog != %@", rex).count == 2)
        #expect(realm.objects(Person.self).filter("address == %@", Address()).count == 0)
    }

    @Test("iterating Results while the loop's writes move objects out visits every object")
    func iterateWhileWriting() throws {
        let realm = try memoryRealm()
        try realm.write { for age in 0..<4 { realm.add(Dog(value: ["name": "d", "age": age])) } }
        let young = realm.objects(Dog.self).filter("age < 10")
        var visited = 0
        for dog in young {
            try realm.write { dog.age = 20 }
            visited += 1
        }
        #expect(visited == 4)
        #expect(young.count == 0)
    }
}
