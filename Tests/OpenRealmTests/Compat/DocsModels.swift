// DocsModels.swift — the models of the tests that check what Realm Swift's documentation (the SDK
// guide and its API reference) says of the local API: a kennel of pets, their keepers and the
// keepers' embedded contact details.

import Foundation
import OpenRealm

/// A pet without a primary key.
final class DocsPet: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var toy: String?
    @Persisted(originProperty: "pets") var keepers: LinkingObjects<DocsKeeper>
}

/// Embedded contact details of a keeper.
final class DocsContact: EmbeddedObject {
    @Persisted var phone: String
    @Persisted var town: String
}

/// A keeper with a primary key, pets and embedded objects.
final class DocsKeeper: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var rank: Int
    @Persisted var favourite: DocsPet?
    @Persisted var pets: List<DocsPet>
    @Persisted var contact: DocsContact?
    @Persisted var pastContacts: List<DocsContact>
}

/// The classes of the documentation tests.
let docsTypes: [ObjectBase.Type] = [DocsPet.self, DocsContact.self, DocsKeeper.self]

/// A new in-memory Realm of the documentation tests' classes.
func docsRealm(_ identifier: String = "docs-\(UUID().uuidString)") throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: identifier, objectTypes: docsTypes))
}

/// A chain of objects, for how deep a collection's notifications look.
final class DocsLink: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
    @Persisted var next: DocsLink?
}
