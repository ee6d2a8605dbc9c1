// ThreadSafeReferenceInWriteTests.swift — a ThreadSafeReference to an object created in the
// current write transaction, as Realm's ThreadSafeReferenceTests make one: it resolves to the
// object once the write is committed, and to nil where the object does not exist.

import Foundation
import Testing

import OpenRealm

@Suite("ThreadSafeReference made in a write transaction")
struct ThreadSafeReferenceInWriteTests {
    @Test("a reference to an object created in the write resolves after the commit, nil in another file")
    func createdInWrite() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "tsr-write-\(UUID().uuidString)")
        let realm = try Realm(configuration: configuration)
        realm.beginWrite()
        let dog = realm.create(Dog.self, value: ["name": "hello"])
        let elsewhere = ThreadSafeReference(to: dog)
        let here = ThreadSafeReference(to: dog)
        try realm.commitWrite()
        let (other, resolved) = try onOtherThread { () -> (Bool, String?) in
            let other = try Realm(configuration: .init(inMemoryIdentifier: "tsr-write-other-\(UUID().uuidString)"))
            let otherResolved = other.resolve(elsewhere)
            return (otherResolved == nil, try Realm(configuration: configuration).resolve(here)?.name)
        }
        #expect(other)
        #expect(resolved == "hello")
        #expect(here.isInvalidated && elsewhere.isInvalidated)
    }

    @Test("a reference to a DynamicObject created in the write resolves after the commit")
    func dynamicCreatedInWrite() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "tsr-dynamic-\(UUID().uuidString)")
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.add(Dog(value: ["name": "typed"])) }
        realm.beginWrite()
        let reference = ThreadSafeReference(to: realm.dynamicCreate("Dog", value: ["name": "dynamic"]))
        try realm.commitWrite()
        let resolved = try onOtherThread { try Realm(configuration: configuration).resolve(reference)?["name"] as? String }
        #expect(resolved == "dynamic")
    }

    @Test("a reference made in a write that is cancelled resolves to nil")
    func cancelledWrite() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "tsr-cancel-\(UUID().uuidString)")
        let realm = try Realm(configuration: configuration)
        realm.beginWrite()
        let reference = ThreadSafeReference(to: realm.create(Dog.self, value: ["name": "gone"]))
        realm.cancelWrite()
        let resolved = try onOtherThread { try Realm(configuration: configuration).resolve(reference)?.name }
        #expect(resolved == nil)
    }

    @Test("a reference to an object that existed before the write keeps its committed values")
    func existingObjectInWrite() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "tsr-existing-\(UUID().uuidString)")
        let realm = try Realm(configuration: configuration)
        let dog = try realm.write { realm.create(Dog.self, value: ["name": "before"]) }
        try realm.write {
            dog.name = "after"
            let reference = ThreadSafeReference(to: dog)
            let resolved = try onOtherThread { try Realm(configuration: configuration).resolve(reference)?.name }
            #expect(resolved == "before")
        }
    }
}
