// DescriptionTests.swift — descriptions of objects and collections in Realm's format (the
// patterns are those Realm's own tests match).

import Foundation
import Testing

import OpenRealm

final class DescribedFlag: Object {
    @Persisted var boolCol = false
}

final class Described: Object {
    @Persisted var boolCol = false
    @Persisted var intCol = 123
    @Persisted var floatCol: Float = 1.23
    @Persisted var doubleCol = 12.3
    @Persisted var stringCol = "a"
    @Persisted var binaryCol = Data("a".utf8)
    @Persisted var dateCol = Date(timeIntervalSince1970: 1)
    @Persisted var objectIdCol = try! ObjectId(string: "1234567890ab1234567890ab")
    @Persisted var objectCol: DescribedFlag? = DescribedFlag()
    @Persisted var uuidCol = UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!
    @Persisted var anyCol: AnyRealmValue
    @Persisted var arrayCol: List<DescribedFlag>
    @Persisted var setCol: MutableSet<DescribedFlag>
    @Persisted var mapCol: Map<String, DescribedFlag?>
}

final class Recursive: Object {
    @Persisted var objects: List<Recursive>
}

private func expectMatches(_ text: String, _ pattern: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let regex = try! NSRegularExpression(pattern: "^" + pattern + "$")
    let matched = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    #expect(matched, "\(text)\n does not match\n\(pattern)", sourceLocation: sourceLocation)
}

@Suite("Descriptions in Realm's format")
struct DescriptionTests {
    @Test("an object with every kind of property")
    func object() {
        expectMatches(Described().description,
                      "Described \\{\n\tboolCol = 0;\n\tintCol = 123;\n\tfloatCol = 1\\.23;\n\tdoubleCol = 12\\.3;\n\tstringCol = a;\n"
                        + "\tbinaryCol = <61 — 1 total bytes>;\n\tdateCol = 1970-01-01 00:00:01 \\+0000;\n"
                        + "\tobjectIdCol = 1234567890ab1234567890ab;\n\tobjectCol = DescribedFlag \\{\n\t\tboolCol = 0;\n\t\\};\n"
                        + "\tuuidCol = 137DECC8-B300-4954-A233-F89909F4FD89;\n\tanyCol = \\(null\\);\n"
                        + "\tarrayCol = List<DescribedFlag> <0x[0-9a-f]+> \\(\n\t\n\t\\);\n"
                        + "\tsetCol = MutableSet<DescribedFlag> <0x[0-9a-f]+> \\(\n\t\n\t\\);\n"
                        + "\tmapCol = Map<string, DescribedFlag> <0x[0-9a-f]+> \\(\n\t\n\t\\);\n\\}")
    }

    @Test("objects that contain themselves stop at Realm's maximum depth")
    func recursive() {
        let object = Recursive()
        object.objects.append(object)
        expectMatches(object.description,
                      "Recursive \\{\n\tobjects = List<Recursive> <0x[0-9a-f]+> \\(\n\t\t\\[0\\] Recursive \\{\n"
                        + "\t\t\tobjects = List<Recursive> <0x[0-9a-f]+> \\(\n\t\t\t\t\\[0\\] Recursive \\{\n"
                        + "\t\t\t\t\tobjects = <Maximum depth exceeded>;\n\t\t\t\t\\}\n\t\t\t\\);\n\t\t\\}\n\t\\);\n\\}")
        object.objects.removeAll()
    }

    @Test("List, MutableSet, Map, Results and LinkingObjects")
    func collections() throws {
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "describe-\(UUID().uuidString)"))
        let person = Person(value: ["id": 1, "name": "Ann"])
        person.nicknames.append(objectsIn: ["x", "y"])
        person.tags.insert("t")
        person.scores["math"] = 90
        let rex = Dog(value: ["name": "Rex", "age": 3])
        person.dogs.append(rex)
        expectMatches(person.nicknames.description, "List<string> <0x[0-9a-f]+> \\(\n\t\\[0\\] x,\n\t\\[1\\] y\n\\)")
        try realm.write { realm.add(person) }
        expectMatches(person.nicknames.description, "List<string> <0x[0-9a-f]+> \\(\n\t\\[0\\] x,\n\t\\[1\\] y\n\\)")
        expectMatches(person.tags.description, "MutableSet<string> <0x[0-9a-f]+> \\(\n\t\\[0\\] t\n\\)")
        expectMatches(person.scores.description, "Map<string, int> <0x[0-9a-f]+> \\(\n\\[math\\]: 90\n\\)")
        let dog = "Dog \\{\n\t\tname = Rex;\n\t\tage = 3;\n\t\\}"
        expectMatches(person.dogs.description, "List<Dog> <0x[0-9a-f]+> \\(\n\t\\[0\\] \(dog)\n\\)")
        expectMatches(realm.objects(Dog.self).description, "Results<Dog> <0x[0-9a-f]+> \\(\n\t\\[0\\] \(dog)\n\\)")
        expectMatches(rex.owners.description, "LinkingObjects<Person> <0x[0-9a-f]+> \\(\n\t\\[0\\] Person \\{\n(.|\n)*\n\t\\}\n\\)")
        expectMatches(realm.objects(Dog.self).filter("age > 5").description, "Results<Dog> <0x[0-9a-f]+> \\(\n\n\\)")
    }
}
