// A program that depends on OpenRealm as a versioned SwiftPM package would:
// it defines a model, writes an object and queries it back.
import Foundation
import OpenRealm

final class Item: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("openrealm-consumer-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

var configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("consumer.realm"))
configuration.objectTypes = [Item.self]
let realm = try Realm(configuration: configuration)
try realm.write {
    realm.add(Item(value: ["id": 1, "name": "first"]))
}
let found = realm.objects(Item.self).filter("name == %@", "first")
guard found.count == 1, found.first?.id == 1 else {
    print("consumer: expected one Item named first, found \(found.count)")
    exit(1)
}
print("consumer: OpenRealm works as a versioned dependency")
