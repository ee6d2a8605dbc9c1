// Models.swift — the model classes the Swift API tests use.

import Foundation
import OpenRealm

final class Dog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

final class Address: EmbeddedObject {
    @Persisted var street: String
    @Persisted var city: String
}

enum Mood: String, PersistableEnum {
    case happy, grumpy
}

final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age = 18
    @Persisted var height: Double?
    @Persisted var dog: Dog?
    @Persisted var dogs: List<Dog>
    @Persisted var nicknames: List<String>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var address: Address?
    @Persisted var addresses: List<Address>
    @Persisted var mood: Mood
    @Persisted var anything: AnyRealmValue
}

/// Every scalar type, required and optional.
final class AllTypes: Object {
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var bool: Bool
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var optInt: Int?
    @Persisted var optBool: Bool?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optDecimal: Decimal128?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUUID: UUID?
    @Persisted var optMood: Mood?
}

/// A base class and a subclass: superclass properties are persisted too.
class Animal: Object {
    @Persisted var species: String
}

final class Cat: Animal {
    @Persisted var lives = 9
}

/// Objects that link to each other (a cycle of new objects).
final class Node: Object {
    @Persisted(primaryKey: true) var id: String
    @Persisted var next: Node?
    @Persisted var children: List<Node>
}

/// Collections of every kind of element.
final class Collections: Object {
    @Persisted var ints: List<Int>
    @Persisted var optionalStrings: List<String?>
    @Persisted var dates: MutableSet<Date>
    @Persisted var objectIds: MutableSet<ObjectId>
    @Persisted var dogSet: MutableSet<Dog>
    @Persisted var doubles: Map<String, Double>
    @Persisted var dogMap: Map<String, Dog?>
    @Persisted var addressMap: Map<String, Address?>
    @Persisted var mixedList: List<AnyRealmValue>
}

/// Versions of one model ("Item" in the file) for schema tests.
enum V1 {
    final class Item: Object {
        @Persisted var name: String
        @Persisted var count: Int
    }
}

enum V2 {
    final class Item: Object {
        @Persisted var name: String
        @Persisted var count: Int
        @Persisted var price: Double
    }
}

enum V3 {
    final class Item: Object {
        @Persisted var name: String
        @Persisted var count: String?
    }
}

/// Primary keys of the other allowed types.
final class StringKeyed: Object {
    @Persisted(primaryKey: true) var key: String
    @Persisted var value: Int
}

final class ObjectIdKeyed: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var value: Int
}

final class UUIDKeyed: Object {
    @Persisted(primaryKey: true) var id: UUID
}

final class OptionalIntKeyed: Object {
    @Persisted(primaryKey: true) var id: Int?
}

/// A model that is Identifiable through its object key.
final class Tag: Object, ObjectKeyIdentifiable {
    @Persisted var label: String
}

/// Versions of "Contact" for migration tests.
enum ContactV1 {
    final class Contact: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var first: String
        @Persisted var last: String
        @Persisted var age: String
    }
}

enum ContactV2 {
    final class Contact: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var fullName: String
        @Persisted var age: Int
        @Persisted var isAdult: Bool
    }
}

enum ContactV3 {
    final class Contact: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
        @Persisted var age: Int
        @Persisted var isAdult: Bool
    }
}

/// Two classes that each list the objects linking from the other.
final class Club: Object {
    @Persisted var name: String
    @Persisted var members: List<Member>
    @Persisted(originProperty: "clubs") var memberOf: LinkingObjects<Member>
}

final class Member: Object {
    @Persisted var name: String
    @Persisted var clubs: List<Club>
    @Persisted(originProperty: "members") var joined: LinkingObjects<Club>
}

/// A LinkingObjects property whose origin does not exist (a programmer error when used).
final class BadLinks: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted(originProperty: "nope") var owners: LinkingObjects<Person>
}

/// Its origin property is an int (ProgrammerErrorTests).
final class BadLinksNotALink: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted(originProperty: "age") var owners: LinkingObjects<Person>
}

/// Its origin property links to Dog (ProgrammerErrorTests).
final class BadLinksElsewhere: Object {
    override class func _realmIgnoreClass() -> Bool { true }
    @Persisted(originProperty: "dog") var owners: LinkingObjects<Person>
}
