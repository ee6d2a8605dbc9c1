// GettingStartedExample.swift — the code of the Getting Started article
// (Sources/OpenRealm/OpenRealm.docc/GettingStarted.md), compiled here and run by
// GettingStartedTests. Each region between `// article:` and `// end` is one code block of the
// article, in order, indented by one level inside the function; the tests check that the two agree.

import Foundation
import OpenRealm

// article: models
class Dog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var dogs: List<Dog>
}
// end

/// Runs the article's code in `directory` and returns the lines it printed.
func gettingStarted(in directory: URL) throws -> [String] {
    var printed: [String] = []
    func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

    // article: open
    var config = Realm.Configuration(objectTypes: [Person.self, Dog.self])
    config.fileURL = directory.appendingPathComponent("people.realm")
    let realm = try Realm(configuration: config)
    // end

    // article: write
    try realm.write {
        let ann = Person(value: ["id": 1, "name": "Ann", "age": 34])
        ann.dogs.append(Dog(value: ["name": "Rex", "age": 11]))
        realm.add(ann)
        realm.add(Person(value: ["id": 2, "name": "Bo", "age": 16]))
    }
    // end

    // article: query
    let adults = realm.objects(Person.self).filter("age >= %@", 18).sorted(byKeyPath: "name")
    let oldDogs = realm.objects(Dog.self).where { $0.age > 10 }
    let meanAge: Double? = realm.objects(Person.self).average(ofProperty: "age")
    let rex = realm.object(ofType: Dog.self, forPrimaryKey: "Rex")
    print(adults.count, oldDogs.count, meanAge ?? 0, rex?.owners.first?.name ?? "")   // 1 1 25.0 Ann
    // end

    // article: update
    let bo = realm.object(ofType: Person.self, forPrimaryKey: 2)!
    try realm.write {
        bo.age += 2                                               // Bo is 18 now
        realm.add(Person(value: ["id": 1, "name": "Ann", "age": 35]), update: .modified)
    }
    print(adults.map(\.name))                                     // ["Ann", "Bo"]
    // end

    // article: observe
    let token = adults.observe { change in
        switch change {
        case .initial(let people):
            print("initial:", people.count)                       // initial: 2
        case .update(_, let deletions, let insertions, let modifications):
            print("update:", deletions, insertions, modifications)   // update: [1] [] [0]
        case .error(let error):
            print(error)
        }
    }
    realm.refresh()                                               // delivers .initial
    try realm.write {
        realm.object(ofType: Person.self, forPrimaryKey: 1)!.age += 1
        realm.delete(bo)
    }
    realm.refresh()                                               // delivers the update
    token.invalidate()
    // end

    // article: delete
    try realm.write {
        realm.delete(realm.objects(Dog.self).filter("age > %@", 10))
    }
    print(realm.objects(Dog.self).count, realm.objects(Person.self).count)   // 0 1
    // end
    return printed
}
