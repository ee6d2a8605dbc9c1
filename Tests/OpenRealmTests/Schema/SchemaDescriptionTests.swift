// SchemaDescriptionTests.swift — ObjectSchema and Schema as Realm's RLMObjectSchema and RLMSchema
// give them: linking objects are computed properties (not in `properties`, found by subscript,
// described after the persisted ones), embedded classes say so, a schema's classes are sorted.

import Foundation
import Testing

import OpenRealm

final class DescribedToy: EmbeddedObject {
    @Persisted var label: String
}

final class DescribedPet: Object {
    @Persisted var name: String
    @Persisted var toy: DescribedToy?
    @Persisted(originProperty: "pet") var keepers: LinkingObjects<DescribedKeeper>
}

final class DescribedKeeper: Object {
    @Persisted var pet: DescribedPet?
}

@Suite("Schema descriptions")
struct SchemaDescriptionTests {
    @Test("linking objects are not in properties; the subscript finds them")
    func linkingObjectsAreComputed() throws {
        let schema = DescribedPet().objectSchema
        #expect(schema.properties.map(\.name) == ["name", "toy"])
        #expect(schema["keepers"]?.type == .linkingObjects)
        #expect(schema["keepers"]?.objectClassName == "DescribedKeeper")
        #expect(schema["keepers"]?.linkOriginPropertyName == "pet")
        #expect(schema["keepers"]?.isArray == true)
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "described-\(UUID().uuidString)"))
        #expect(realm.schema["DescribedPet"]?.properties.count == 2)
        #expect(realm.schema["DescribedPet"] == schema)
    }

    @Test("an object schema's description: properties, then linking objects")
    func objectSchemaDescription() {
        let expected = """
            DescribedPet {
            \tname {
            \t\ttype = string;
            \t\tcolumnName = name;
            \t\tindexed = NO;
            \t\tisPrimary = NO;
            \t\tarray = NO;
            \t\tset = NO;
            \t\tdictionary = NO;
            \t\toptional = NO;
            \t}
            \ttoy {
            \t\ttype = object;
            \t\tobjectClassName = DescribedToy;
            \t\tlinkOriginPropertyName = (null);
            \t\tcolumnName = toy;
            \t\tindexed = NO;
            \t\tisPrimary = NO;
            \t\tarray = NO;
            \t\tset = NO;
            \t\tdictionary = NO;
            \t\toptional = YES;
            \t}
            \tkeepers {
            \t\ttype = linking objects;
            \t\tobjectClassName = DescribedKeeper;
            \t\tlinkOriginPropertyName = pet;
            \t\tcolumnName = keepers;
            \t\tindexed = NO;
            \t\tisPrimary = NO;
            \t\tarray = YES;
            \t\tset = NO;
            \t\tdictionary = NO;
            \t\toptional = NO;
            \t}
            }
            """
        #expect(DescribedPet().objectSchema.description == expected)
    }

    @Test("an embedded class's description says so; a schema's lists its classes sorted")
    func embeddedAndSchemaDescription() throws {
        #expect(DescribedToy().objectSchema.description.hasPrefix("DescribedToy (embedded) {\n\tlabel {\n"))
        let realm = try Realm(configuration: .init(inMemoryIdentifier: "described-\(UUID().uuidString)",
                                                   objectTypes: [DescribedKeeper.self, DescribedPet.self, DescribedToy.self]))
        let description = realm.schema.description
        #expect(description.hasPrefix("Schema {\n\tDescribedKeeper {\n\t\tpet {\n\t\t\ttype = object;\n"))
        #expect(description.hasSuffix("\t\t}\n\t}\n}"))
        let keeper = try #require(description.range(of: "\tDescribedKeeper {"))
        let pet = try #require(description.range(of: "\tDescribedPet {"))
        let toy = try #require(description.range(of: "\tDescribedToy (embedded) {"))
        #expect(keeper.lowerBound < pet.lowerBound && pet.lowerBound < toy.lowerBound)
    }
}
