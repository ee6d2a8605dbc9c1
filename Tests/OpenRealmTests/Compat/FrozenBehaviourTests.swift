// FrozenBehaviourTests.swift — frozen collections as Realm documents them: readable from any
// thread at their version, queried at that version, thawed to the newest version.

import Foundation
import Testing

import OpenRealm
import Synchronization

/// Runs `body` on a new thread and waits for it.
private func onOtherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    done.wait()
}

private struct Box<T>: @unchecked Sendable { let value: T }

@Suite("Frozen collections")
struct FrozenBehaviourTests {
    private func filled() throws -> (Realm, Person, Realm.Configuration) {
        let config = Realm.Configuration(inMemoryIdentifier: "frozen-behaviour-\(UUID().uuidString)")
        let realm = try Realm(configuration: config)
        let person = Person(value: ["id": 1, "name": "Ann"])
        try realm.write {
            realm.add(person)
            for age in 0..<5 { person.dogs.append(Dog(value: ["name": "d\(age)", "age": age])) }
        }
        return (realm, person, config)
    }

    @Test("queries on frozen Results and Lists count at the frozen version")
    func frozenQueries() throws {
        let (realm, person, _) = try filled()
        let dogs = realm.objects(Dog.self).freeze()
        let list = person.dogs.freeze()
        try realm.write {
            for dog in realm.objects(Dog.self) { dog.age += 10 }
            realm.add(Dog(value: ["name": "new", "age": 1]))
        }
        #expect(dogs.count == 5)
        #expect(dogs.filter("age >= 3").count == 2)
        #expect(dogs.where { $0.age < 3 }.count == 3)
        #expect(dogs.sorted(byKeyPath: "age", ascending: false).first?.age == 4)
        #expect(list.filter("age >= 3").count == 2)
        #expect(list.sorted(byKeyPath: "age").last?.age == 4)
        #expect(realm.objects(Dog.self).filter("age >= 3").count == 5)
    }

    @Test("thaw() on another thread sees the newest version")
    func thawOnAnotherThread() throws {
        let (realm, person, _) = try filled()
        let frozen = Box(value: (realm.objects(Dog.self).freeze(), person.dogs.freeze(), person.freeze()))
        try realm.write {
            realm.add(Dog(value: ["name": "new", "age": 1]))
            person.dogs.append(Dog(value: ["name": "another", "age": 2]))
        }
        let counts = Mutex<[Int]>([])
        onOtherThread {
            let (dogs, list, owner) = frozen.value
            let thawedDogs = dogs.thaw()
            let thawedList = list.thaw()
            let thawedOwner = owner.thaw()
            counts.withLock { $0 = [dogs.count, thawedDogs?.count ?? -1, list.count, thawedList?.count ?? -1,
                                    thawedOwner?.dogs.count ?? -1] }
        }
        #expect(counts.withLock { $0 } == [5, 7, 5, 6, 6])
    }

    @Test("reading frozen collections from other threads while the Realm changes")
    func readFromOtherThreads() throws {
        let (realm, person, _) = try filled()
        let frozen = Box(value: (person.dogs.freeze(), realm.objects(Dog.self).sorted(byKeyPath: "age").freeze()))
        let failures = Mutex(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                let (list, results) = frozen.value
                for _ in 0..<200 {
                    if list.count != 5 || list[0].name != "d0" || results[0].age != 0 || results.count != 5 {
                        failures.withLock { $0 += 1 }
                    }
                    if list.map(\.age) != [0, 1, 2, 3, 4] { failures.withLock { $0 += 1 } }
                }
                group.leave()
            }.start()
        }
        for round in 0..<20 {
            try realm.write {
                person.dogs.remove(at: 0)
                person.dogs.insert(Dog(value: ["name": "r\(round)", "age": -round]), at: 0)
            }
        }
        group.wait()
        #expect(failures.withLock { $0 } == 0)
    }

    @Test("thaw() on a thread whose Realm is at an older version sees the frozen objects")
    func thawOnThreadBehind() throws {
        let (realm, _, config) = try filled()
        let opened = DispatchSemaphore(value: 0), frozenReady = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let handoff = Mutex<Box<(Results<Dog>, Dog)>?>(nil)
        let seen = Mutex<[Int]>([])
        let sendableConfig = Box(value: config)
        Thread {
            let threadRealm = try! Realm(configuration: sendableConfig.value)
            let before = threadRealm.objects(Dog.self).count
            opened.signal()
            frozenReady.wait()
            let (dogs, newest) = handoff.withLock { $0! }.value
            let thawed = dogs.thaw()
            let thawedDog = newest.thaw()
            seen.withLock { $0 = [before, thawed?.count ?? -1, thawedDog == nil ? 0 : 1, threadRealm.objects(Dog.self).count] }
            done.signal()
        }.start()
        opened.wait()
        let newest = Dog(value: ["name": "newest", "age": 9])
        try realm.write { realm.add(newest) }
        handoff.withLock { $0 = Box(value: (realm.objects(Dog.self).freeze(), newest.freeze())) }
        frozenReady.signal()
        done.wait()
        #expect(seen.withLock { $0 } == [5, 6, 1, 6])
    }
}
