// ThreadSafeReferenceAuditTests.swift — ThreadSafeReference against Realm Swift's
// ThreadSafeReferenceTests: references to unmanaged or invalidated values stop, a reference
// resolves once, and objects, lists, sets, maps, results, linking objects and AnyRealmCollections
// passed to another thread are live there, their changes seen here after a refresh.

import Foundation
import Testing

import OpenRealm

final class TSRAuditEmployee: Object {
    @Persisted var name: String
    @Persisted var age: Int
}

final class TSRAuditCompany: Object {
    @Persisted var name: String
    @Persisted var employees: List<TSRAuditEmployee>
    @Persisted var employeeSet: MutableSet<TSRAuditEmployee>
    @Persisted var byRole: Map<String, TSRAuditEmployee?>
    @Persisted var mottos: List<String>
}

final class TSRAuditPet: Object {
    @Persisted var name: String
    @Persisted(originProperty: "pet") var owners: LinkingObjects<TSRAuditOwner>
}

final class TSRAuditOwner: Object {
    @Persisted var name: String
    @Persisted var pet: TSRAuditPet?
}

private let tsrTypes: [ObjectBase.Type] = [TSRAuditEmployee.self, TSRAuditCompany.self, TSRAuditPet.self, TSRAuditOwner.self]

/// A configuration of a new in-memory Realm with the models above.
private func tsrConfiguration() -> Realm.Configuration {
    .init(inMemoryIdentifier: "tsr-audit-\(UUID().uuidString)", objectTypes: tsrTypes)
}

/// Something handed to another thread in a test that knows it is safe (a reference is Sendable;
/// a configuration is).
private struct Handed<T>: @unchecked Sendable { let value: T }

/// Resolves `reference` in `realm`, checking it is invalidated by that and only by that.
private func resolveOnce<T>(_ realm: Realm, _ reference: ThreadSafeReference<T>,
                            sourceLocation: SourceLocation = #_sourceLocation) -> T? {
    #expect(!reference.isInvalidated, sourceLocation: sourceLocation)
    let resolved = realm.resolve(reference)
    #expect(reference.isInvalidated, sourceLocation: sourceLocation)
    return resolved
}

@Suite("ThreadSafeReference as Realm (ThreadSafeReferenceTests)")
struct ThreadSafeReferenceAuditTests {
    @Test("a reference to an unmanaged List stops with Realm's message")
    func unmanagedList() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ThreadSafeReference(to: TSRAuditCompany().employees)
        }
        expectStop("Cannot construct reference to unmanaged object", result)
    }

    @Test("a reference to an unmanaged MutableSet stops with Realm's message")
    func unmanagedSet() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ThreadSafeReference(to: TSRAuditCompany().employeeSet)
        }
        expectStop("Cannot construct reference to unmanaged object", result)
    }

    @Test("a reference to the List of a deleted object stops: it is invalidated")
    func invalidatedList() async {
        removeInMemoryRealm("openrealm-exit-tsrInvalidatedList")
        defer { removeInMemoryRealm("openrealm-exit-tsrInvalidatedList") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-tsrInvalidatedList",
                                                       objectTypes: [TSRAuditEmployee.self, TSRAuditCompany.self]))
            let company = TSRAuditCompany(value: ["name": "c", "employees": [["name": "a"]]])
            try realm.write {
                realm.add(company)
                realm.deleteAll()
            }
            _ = ThreadSafeReference(to: company.employees)
        }
        expectStop("Cannot construct reference to invalidated object", result)
    }

    @Test("a reference to the MutableSet of a deleted object stops: it is invalidated")
    func invalidatedSet() async {
        removeInMemoryRealm("openrealm-exit-tsrInvalidatedSet")
        defer { removeInMemoryRealm("openrealm-exit-tsrInvalidatedSet") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-tsrInvalidatedSet",
                                                       objectTypes: [TSRAuditEmployee.self, TSRAuditCompany.self]))
            let company = TSRAuditCompany(value: ["name": "c", "employeeSet": [["name": "a"]]])
            try realm.write {
                realm.add(company)
                realm.deleteAll()
            }
            _ = ThreadSafeReference(to: company.employeeSet)
        }
        expectStop("Cannot construct reference to invalidated object", result)
    }

    @Test("a reference to a List resolves once; the second resolve stops with Realm's message")
    func listResolvesOnce() async {
        removeInMemoryRealm("openrealm-exit-tsrListTwice")
        defer { removeInMemoryRealm("openrealm-exit-tsrListTwice") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-tsrListTwice",
                                                       objectTypes: [TSRAuditEmployee.self, TSRAuditCompany.self]))
            let company = try realm.write { realm.create(TSRAuditCompany.self) }
            let reference = ThreadSafeReference(to: company.employees)
            _ = realm.resolve(reference)
            _ = realm.resolve(reference)
        }
        expectStop("Can only resolve a thread safe reference once", result)
    }

    @Test("references made in and after a write: nil in another file; each resolves once to the object")
    func referencesInAndAfterWrite() throws {
        let configuration = tsrConfiguration()
        let realm = try Realm(configuration: configuration)
        realm.beginWrite()
        let employee = realm.create(TSRAuditEmployee.self, value: ["name": "hello"])
        let inWrite = Handed(value: ThreadSafeReference(to: employee))
        try realm.commitWrite()
        let first = Handed(value: ThreadSafeReference(to: employee))
        let second = Handed(value: ThreadSafeReference(to: employee))
        let names = try onOtherThread { () -> [String?] in
            let elsewhere = try Realm(configuration: tsrConfiguration())
            let inOtherFile = resolveOnce(elsewhere, inWrite.value)
            let here = try Realm(configuration: configuration)
            // Two references to one object resolve independently.
            return [inOtherFile?.name, resolveOnce(here, first.value)?.name, resolveOnce(here, second.value)?.name]
        }
        #expect(names == [nil, "hello", "hello"])
    }

    @Test("objects written on another thread change here only after a refresh")
    func objectsChangedElsewhere() throws {
        let configuration = tsrConfiguration()
        let realm = try Realm(configuration: configuration)
        let (company, employee) = try realm.write {
            (realm.create(TSRAuditCompany.self), realm.create(TSRAuditEmployee.self))
        }
        let companyRef = Handed(value: ThreadSafeReference(to: company))
        let employeeRef = Handed(value: ThreadSafeReference(to: employee))
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            let company = try #require(resolveOnce(realm, companyRef.value))
            let employee = try #require(resolveOnce(realm, employeeRef.value))
            try realm.write {
                company.name = "the meaning of life"
                employee.age = 42
            }
        }
        #expect(company.name == "" && employee.age == 0)
        realm.refresh()
        #expect(company.name == "the meaning of life" && employee.age == 42)
    }

    @Test("a List passed to another thread is live there; its changes are seen here after a refresh")
    func listChangedElsewhere() throws {
        let configuration = tsrConfiguration()
        let realm = try Realm(configuration: configuration)
        let company = try realm.write {
            realm.create(TSRAuditCompany.self, value: ["employees": [["name": "jg"]], "mottos": ["one"]])
        }
        let employeesRef = Handed(value: ThreadSafeReference(to: company.employees))
        let mottosRef = Handed(value: ThreadSafeReference(to: company.mottos))
        let seen = try onOtherThread { () -> [String] in
            let realm = try Realm(configuration: configuration)
            let employees = try #require(resolveOnce(realm, employeesRef.value))
            let mottos = try #require(resolveOnce(realm, mottosRef.value))
            let before = employees.map(\.name) + Array(mottos)
            try realm.write {
                employees.removeAll()
                employees.append(TSRAuditEmployee(value: ["name": "jp"]))
                employees.append(TSRAuditEmployee(value: ["name": "az"]))
                mottos.append("two")
            }
            #expect(employees.map(\.name) == ["jp", "az"])
            return before
        }
        #expect(seen == ["jg", "one"])
        #expect(company.employees.map(\.name) == ["jg"])
        realm.refresh()
        #expect(company.employees.map(\.name) == ["jp", "az"])
        #expect(Array(company.mottos) == ["one", "two"])
    }

    @Test("a MutableSet passed to another thread is live there; its changes are seen here after a refresh")
    func setChangedElsewhere() throws {
        let configuration = tsrConfiguration()
        let realm = try Realm(configuration: configuration)
        let company = try realm.write { realm.create(TSRAuditCompany.self, value: ["employeeSet": [["name": "jg"]]]) }
        let setRef = Handed(value: ThreadSafeReference(to: company.employeeSet))
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            let employees = try #require(resolveOnce(realm, setRef.value))
            #expect(employees.count == 1 && employees[0].name == "jg")
            try realm.write {
                employees.removeAll()
                employees.insert(TSRAuditEmployee(value: ["name": "jp"]))
                employees.insert(TSRAuditEmployee(value: ["name": "az"]))
            }
            #expect(Set(employees.map(\.name)) == ["jp", "az"])
        }
        #expect(company.employeeSet.count == 1 && company.employeeSet[0].name == "jg")
        realm.refresh()
        #expect(Set(company.employeeSet.map(\.name)) == ["jp", "az"])
    }

    @Test("a Map passed to another thread is live there; its changes are seen here after a refresh")
    func mapChangedElsewhere() throws {
        let configuration = tsrConfiguration()
        let realm = try Realm(configuration: configuration)
        let company = try realm.write { realm.create(TSRAuditCompany.self, value: ["byRole": ["boss": ["name": "jg"]]]) }
        let mapRef = Handed(value: ThreadSafeReference(to: company.byRole))
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            let byRole = try #require(resolveOnce(realm, mapRef.value))
            #expect(byRole["boss"]??.name == "jg")
            try realm.write {
                byRole["boss"] = TSRAuditEmployee(value: ["name": "jp"])
                byRole["clerk"] = nil as TSRAuditEmployee?
            }
        }
        #expect(company.byRole.count == 1 && company.byRole["boss"]??.name == "jg")
        realm.refresh()
        #expect(company.byRole["boss"]??.name == "jp")
        #expect(company.byRole.keys.sorted() == ["boss", "clerk"])
    }

    @Test("Results keep their filter and sort on another thread and follow writes made there")
    func resultsChangedElsewhere() throws {
        let configuration = tsrConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm.write { for name in ["A", "B", "C", "D"] { realm.create(TSRAuditEmployee.self, value: [name]) } }
        let all = realm.objects(TSRAuditEmployee.self)
        let results = all.filter("name != 'C'").sorted(byKeyPath: "name", ascending: false)
        #expect(results.map(\.name) == ["D", "B", "A"])
        let resultsRef = Handed(value: ThreadSafeReference(to: results))
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            let results = try #require(resolveOnce(realm, resultsRef.value))
            #expect(results.map(\.name) == ["D", "B", "A"])
            try realm.write {
                realm.delete(results[2])
                realm.delete(results[0])
                realm.create(TSRAuditEmployee.self, value: ["E"])
            }
            #expect(results.map(\.name) == ["E", "B"])
            #expect(realm.objects(TSRAuditEmployee.self).count == 3)
        }
        #expect(results.map(\.name) == ["D", "B", "A"] && all.count == 4)
        realm.refresh()
        #expect(results.map(\.name) == ["E", "B"] && all.count == 3)
    }

    @Test("LinkingObjects, read before or not, follow links swapped on another thread")
    func linkingObjectsChangedElsewhere() throws {
        let configuration = tsrConfiguration()
        let realm = try Realm(configuration: configuration)
        let cookie = TSRAuditPet(value: ["name": "Cookie"])
        let skipper = TSRAuditPet(value: ["name": "Skipper"])
        try realm.write {
            realm.add(TSRAuditOwner(value: ["name": "Andrea", "pet": cookie]))
            realm.add(TSRAuditOwner(value: ["name": "Mike", "pet": skipper]))
        }
        #expect(cookie.owners.map(\.name) == ["Andrea"])
        // Skipper's owners are not read before the reference is made.
        let cookieRef = Handed(value: ThreadSafeReference(to: cookie.owners))
        let skipperRef = Handed(value: ThreadSafeReference(to: skipper.owners))
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            let cookieOwners = try #require(resolveOnce(realm, cookieRef.value))
            let skipperOwners = try #require(resolveOnce(realm, skipperRef.value))
            #expect(cookieOwners.map(\.name) == ["Andrea"] && skipperOwners.map(\.name) == ["Mike"])
            try realm.write {
                let (andrea, mike) = (cookieOwners[0], skipperOwners[0])
                (andrea.pet, mike.pet) = (mike.pet, andrea.pet)
            }
            #expect(cookieOwners.map(\.name) == ["Mike"] && skipperOwners.map(\.name) == ["Andrea"])
        }
        #expect(cookie.owners.map(\.name) == ["Andrea"] && skipper.owners.map(\.name) == ["Mike"])
        realm.refresh()
        #expect(cookie.owners.map(\.name) == ["Mike"] && skipper.owners.map(\.name) == ["Andrea"])
    }

    @Test("AnyRealmCollections of Results, a List and a MutableSet resolve with their contents")
    func anyRealmCollections() throws {
        let configuration = tsrConfiguration()
        let realm = try Realm(configuration: configuration)
        let company = try realm.write {
            realm.create(TSRAuditCompany.self, value: [
                "employees": ["A", "B", "C", "D"].map { ["name": $0] },
                "employeeSet": ["A", "B", "C", "D"].map { ["name": $0] },
            ])
        }
        let results = AnyRealmCollection(realm.objects(TSRAuditEmployee.self)
            .filter("name != 'C'").sorted(byKeyPath: "name", ascending: false))
        let list = AnyRealmCollection(company.employees)
        let set = AnyRealmCollection(company.employeeSet)
        #expect(results.map(\.name) == ["D", "D", "B", "B", "A", "A"])
        let refs = Handed(value: (ThreadSafeReference(to: results), ThreadSafeReference(to: list),
                                  ThreadSafeReference(to: set)))
        let (resolvedResults, resolvedList, resolvedSet) = try onOtherThread { () -> ([String], [String], Set<String>) in
            let realm = try Realm(configuration: configuration)
            let results = try #require(resolveOnce(realm, refs.value.0))
            let list = try #require(resolveOnce(realm, refs.value.1))
            let set = try #require(resolveOnce(realm, refs.value.2))
            return (results.map(\.name), list.map(\.name), Set(set.map(\.name)))
        }
        #expect(resolvedResults == ["D", "D", "B", "B", "A", "A"])
        #expect(resolvedList == ["A", "B", "C", "D"])
        #expect(resolvedSet == ["A", "B", "C", "D"])
    }
}
