// RealmBehaviourTests.swift — behaviours that must be Realm's exactly (issue 18 item 8): each case
// is a behaviour Realm Swift documents or its own tests check.

import Foundation
import Testing

import OpenRealm

/// A class whose default value creates an object (Realm allows it).
final class DefaultOwner: Object {
    @Persisted var name = "owner"
}

final class PetWithDefaultOwner: Object {
    @Persisted var name: String
    @Persisted var owner: DefaultOwner? = DefaultOwner()
    @Persisted var age = 3
}

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

    @Test("a @Persisted default value that creates an object")
    func defaultValueObject() throws {
        let realm = try memoryRealm([PetWithDefaultOwner.self, DefaultOwner.self])
        let pet = PetWithDefaultOwner()
        pet.name = "Rex"
        #expect(pet.owner?.name == "owner" && pet.age == 3)
        try realm.write { realm.add(pet) }
        #expect(pet.name == "Rex" && pet.age == 3 && pet.owner?.name == "owner")
        #expect(realm.objects(DefaultOwner.self).count == 1)
        let created = try realm.write { realm.create(PetWithDefaultOwner.self, value: ["name": "Bo"]) }
        #expect(created.name == "Bo" && created.age == 3 && created.owner?.name == "owner")
    }

    @Test("an invalid path fails with .fileOperationFailed and Realm's message")
    func invalidPath() {
        let url = URL(fileURLWithPath: "/dev/null/foo")
        #expect {
            _ = try Realm(configuration: .init(fileURL: url))
        } throws: { error in
            guard let error = error as? Realm.Error else { return false }
            return error.code == .fileOperationFailed && error.fileURL?.path == url.path + ".lock"
                && error.localizedDescription == "Failed to open file at path '\(url.path).lock': parent path is not a directory"
        }
    }

    @Test("a file that cannot be opened for writing fails with .filePermissionDenied")
    func permissionDenied() async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("behaviour-permission")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("ro.realm")
        do { _ = try Realm(configuration: .init(fileURL: url, objectTypes: [Dog.self]), queue: nil) }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        for lockish in try FileManager.default.contentsOfDirectory(atPath: directory.path) where lockish != "ro.realm" {
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: directory.appendingPathComponent(lockish).path)
        }
        // Root opens any file: the check runs as an unprivileged user in a child process.
        await #expect(processExitsWith: .success) {
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("behaviour-permission/ro.realm")
            if getuid() == 0 { guard setgid(65534) == 0, setuid(65534) == 0 else { exit(2) } }
            do {
                _ = try Realm(configuration: .init(fileURL: url, objectTypes: [Dog.self]))
                exit(3)
            } catch let error as Realm.Error {
                let expected = "Failed to open Realm file at path '\(url.path)': Permission denied. "
                    + "Please use a path where your app has read-write permissions."
                exit(error.code == .filePermissionDenied && error.localizedDescription == expected ? 0 : 4)
            }
        }
    }

    @Test("a missing file opened read-only: Realm's message names the file")
    func readOnlyMissingMessage() {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("behaviour-missing-\(UUID().uuidString).realm")
        #expect {
            _ = try Realm(configuration: .init(fileURL: url, readOnly: true))
        } throws: { error in
            guard let error = error as? Realm.Error else { return false }
            return error.code == .fileNotFound
                && error.localizedDescription == "Failed to open Realm file at path '\(url.path)': No such file or directory"
        }
    }

    @Test("readOnly with deleteRealmIfMigrationNeeded is refused before any file is touched")
    func readOnlyDeleteIfMigrationNeeded() async {
        let path = NSTemporaryDirectory() + "behaviour-ro-delete.realm"
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + ".lock")
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = URL(fileURLWithPath: NSTemporaryDirectory() + "behaviour-ro-delete.realm")
            _ = try Realm(configuration: .init(fileURL: url, readOnly: true, deleteRealmIfMigrationNeeded: true))
        }
        expectStop("Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.", result)
        #expect(!FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: path + ".lock"))
    }

    @Test("iterating inside a write visits every object that matched when the loop began")
    func iterateInsideWrite() throws {
        let realm = try memoryRealm()
        try realm.write { for age in 0..<4 { realm.add(Dog(value: ["name": "d", "age": age])) } }
        let young = realm.objects(Dog.self).filter("age < 10")
        var visited = 0
        realm.beginWrite()
        for dog in young {
            dog.age = 20
            visited += 1
        }
        try realm.commitWrite()
        #expect(visited == 4)
        var deleted = 0
        try realm.write {
            for dog in realm.objects(Dog.self) {
                realm.delete(dog)
                deleted += 1
            }
        }
        #expect(deleted == 4 && realm.objects(Dog.self).isEmpty)
    }

    @Test("iterating a List while appending to it visits the elements it had")
    func iterateListWhileAppending() throws {
        let list = List<String>()
        list.append(objectsIn: ["1", "2", "1", "2"])
        var seen = ""
        for value in list {
            seen += value
            list.append("1")
        }
        #expect(seen == "1212")
        let realm = try memoryRealm()
        let person = Person(value: ["id": 1])
        try realm.write {
            realm.add(person)
            person.nicknames.append(objectsIn: ["1", "2", "1", "2"])
            var managedSeen = ""
            for value in person.nicknames {
                managedSeen += value
                person.nicknames.append("1")
            }
            #expect(managedSeen == "1212")
        }
    }
}
