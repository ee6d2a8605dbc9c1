// QuerySurfaceTests.swift — the rest of Realm's Query<T>: string operators against another
// property and on Data, aggregates on collection key paths, PersistableEnum raw values and their
// ordering, AnyRealmValue properties and the lists and dictionaries they hold.

import Foundation
import Testing

import OpenRealm

enum TaskPriority: Int, PersistableEnum {
    case low = 1, medium = 5, high = 10
}

final class QueryTask: Object {
    @Persisted var title: String
    @Persisted var word: String
    @Persisted var priority: TaskPriority
    @Persisted var escalation: TaskPriority
    @Persisted var blob: Data
    @Persisted var part: Data
    @Persisted var mixed: AnyRealmValue
}

@Suite("Query surface")
struct QuerySurfaceTests {
    private func tasksRealm() throws -> Realm {
        let realm = try memoryRealm([QueryTask.self])
        try realm.write {
            realm.add(QueryTask(value: ["title": "Write the report", "word": "report", "priority": TaskPriority.high,
                                        "escalation": TaskPriority.low, "blob": Data([1, 2, 3, 4]), "part": Data([2, 3]),
                                        "mixed": AnyRealmValue.int(7)]))
            realm.add(QueryTask(value: ["title": "Call Ann", "word": "ann", "priority": TaskPriority.low,
                                        "escalation": TaskPriority.medium, "blob": Data([9, 9]), "part": Data([1]),
                                        "mixed": AnyRealmValue.string("seven")]))
            realm.add(QueryTask(value: ["title": "Plan", "word": "Plan", "priority": TaskPriority.medium,
                                        "escalation": TaskPriority.medium, "blob": Data([5]), "part": Data([5]),
                                        "mixed": AnyRealmValue.none]))
        }
        return realm
    }

    private func titles(_ results: Results<QueryTask>) -> [String] { results.map(\.title).sorted() }

    @Test("string operators take another property")
    func stringOperatorsAgainstProperty() throws {
        let tasks = try tasksRealm().objects(QueryTask.self)
        #expect(titles(tasks.where { $0.title.contains($0.word) }) == ["Plan", "Write the report"])
        #expect(titles(tasks.where { $0.title.contains($0.word, options: .caseInsensitive) }) == ["Call Ann", "Plan", "Write the report"])
        #expect(titles(tasks.where { $0.title.ends(with: $0.word) }) == ["Plan", "Write the report"])
        #expect(titles(tasks.where { $0.title.starts(with: $0.word) }) == ["Plan"])
        #expect(titles(tasks.where { $0.title.equals($0.word) }) == ["Plan"])
        #expect(titles(tasks.where { $0.title.notEquals($0.word) }) == ["Call Ann", "Write the report"])
        #expect(titles(tasks.where { $0.word.like($0.title) }) == ["Plan"])
    }

    @Test("Data takes the substring operators, with values and other properties")
    func dataOperators() throws {
        let tasks = try tasksRealm().objects(QueryTask.self)
        #expect(titles(tasks.where { $0.blob.contains(Data([2, 3])) }) == ["Write the report"])
        #expect(titles(tasks.where { $0.blob.starts(with: Data([9])) }) == ["Call Ann"])
        #expect(titles(tasks.where { $0.blob.ends(with: Data([3, 4])) }) == ["Write the report"])
        #expect(titles(tasks.where { $0.blob.equals(Data([5])) }) == ["Plan"])
        #expect(titles(tasks.where { $0.blob.notEquals(Data([5])) }) == ["Call Ann", "Write the report"])
        #expect(titles(tasks.where { $0.blob.contains($0.part) }) == ["Plan", "Write the report"])
        #expect(titles(tasks.where { $0.blob.equals($0.part) }) == ["Plan"])
    }

    @Test("PersistableEnum compares by raw value, with values and other properties")
    func enumOrdering() throws {
        let tasks = try tasksRealm().objects(QueryTask.self)
        #expect(titles(tasks.where { $0.priority == .high }) == ["Write the report"])
        #expect(titles(tasks.where { $0.priority != .high }) == ["Call Ann", "Plan"])
        #expect(titles(tasks.where { $0.priority > .low }) == ["Plan", "Write the report"])
        #expect(titles(tasks.where { $0.priority >= .medium }) == ["Plan", "Write the report"])
        #expect(titles(tasks.where { $0.priority < .medium }) == ["Call Ann"])
        #expect(titles(tasks.where { $0.priority <= .medium }) == ["Call Ann", "Plan"])
        #expect(titles(tasks.where { $0.priority > $0.escalation }) == ["Write the report"])
        #expect(titles(tasks.where { $0.priority >= $0.escalation }) == ["Plan", "Write the report"])
        #expect(titles(tasks.where { $0.priority.in([.low, .medium]) }) == ["Call Ann", "Plan"])
        #expect(tasks.filter("priority > %@", 4).count == 2)
    }

    @Test("AnyRealmValue properties compare with values of any type")
    func anyRealmValueProperties() throws {
        let tasks = try tasksRealm().objects(QueryTask.self)
        #expect(titles(tasks.where { $0.mixed == .int(7) }) == ["Write the report"])
        #expect(titles(tasks.where { $0.mixed == .string("seven") }) == ["Call Ann"])
        #expect(titles(tasks.where { $0.mixed == .none }) == ["Plan"])
        #expect(titles(tasks.where { $0.mixed > .int(5) }) == ["Write the report"])
        #expect(titles(tasks.where { $0.mixed != .int(7) }) == ["Call Ann", "Plan"])
        #expect(titles(tasks.where { $0.mixed.in([AnyRealmValue.int(7), .string("seven")]) }) == ["Call Ann", "Write the report"])
    }

    @Test("AnyRealmValue queries reach into the lists and dictionaries it holds")
    func anyRealmValueCollections() throws {
        let realm = try tasksRealm()
        let inner = List<AnyRealmValue>()
        inner.append(objectsIn: [AnyRealmValue.int(7), .int(8)])
        let list = List<AnyRealmValue>()
        list.append(objectsIn: [AnyRealmValue.int(5), .string("a"), .list(inner)])
        let map = Map<String, AnyRealmValue>()
        map["name"] = .string("Rex")
        map["age"] = .int(3)
        let tasks = realm.objects(QueryTask.self)
        try realm.write {
            tasks.filter("title == 'Call Ann'").first!.mixed = .list(list)
            tasks.filter("title == 'Plan'").first!.mixed = .dictionary(map)
        }
        // Write the report: 7; Call Ann: [5, "a", [7, 8]]; Plan: {"name": "Rex", "age": 3}.
        #expect(titles(tasks.where { $0.mixed[0] == .int(5) }) == ["Call Ann"])
        #expect(titles(tasks.where { $0.mixed[1] == .string("a") }) == ["Call Ann"])
        #expect(titles(tasks.where { $0.mixed[2][1] == .int(8) }) == ["Call Ann"])
        #expect(titles(tasks.where { $0.mixed["name"] == .string("Rex") }) == ["Plan"])
        #expect(titles(tasks.where { $0.mixed["age"] > .int(2) }) == ["Plan"])
        #expect(titles(tasks.where { $0.mixed["it's"] == .none }) == ["Plan"])
        #expect(titles(tasks.where { $0.mixed.any == .int(5) }) == ["Call Ann"])
        #expect(titles(tasks.where { $0.mixed.any == .int(3) }) == ["Plan"])
        #expect(titles(tasks.where { $0.mixed.any.any == .int(7) }) == ["Call Ann"])
        #expect(titles(tasks.where { $0.mixed == .int(7) }) == ["Write the report"])
        #expect(titles(tasks.filter("mixed[*] == 5")) == ["Call Ann"])
        #expect(titles(tasks.filter("mixed[LAST][FIRST] == 7")) == ["Call Ann"])
        #expect(titles(tasks.filter("mixed.@type == 'dictionary'")) == ["Plan"])
        #expect(titles(tasks.filter("mixed.@type == 'numeric'")) == ["Write the report"])
        #expect(titles(tasks.filter("mixed.@size == 2")) == ["Plan"])
        #expect(titles(tasks.filter("mixed[%@] == %@", "name", "Rex")) == ["Plan"])
    }

    @Test("aggregates on a key path through a collection")
    func collectionKeyPathAggregates() throws {
        let realm = try memoryRealm()
        try realm.write {
            let ann = Person(value: ["id": 1, "name": "Ann"])
            ann.dogs.append(objectsIn: [Dog(value: ["name": "Rex", "age": 3]), Dog(value: ["name": "Old", "age": 11])])
            let bo = Person(value: ["id": 2, "name": "Bo"])
            bo.dogs.append(Dog(value: ["name": "Pup", "age": 1]))
            realm.add([ann, bo, Person(value: ["id": 3, "name": "Cy"])])
        }
        let people = realm.objects(Person.self)
        #expect(people.where { $0.dogs.age.avg > 5 }.map(\.name) == ["Ann"])
        #expect(people.where { $0.dogs.age.min < 2 }.map(\.name) == ["Bo"])
        #expect(people.where { $0.dogs.age.max >= 3 }.map(\.name) == ["Ann"])
        #expect(people.where { $0.dogs.age.sum == 14 }.map(\.name) == ["Ann"])
        #expect(people.where { $0.dogs.age.sum == 0 }.map(\.name) == ["Cy"])
    }

    @Test("an aggregate on a key path that is not through a collection stops")
    func aggregateWithoutCollection() async {
        await #expect(processExitsWith: .failure) {
            let realm = try memoryRealm()
            _ = realm.objects(Person.self).where { $0.age.avg > 5 }.count
        }
    }
}
