// CustomPersistableTests.swift — CustomPersistable and FailableCustomPersistable (issue 18 item 4):
// types stored as their persisted type in properties (optional or not) and collections, queried
// through it, and a failable conversion that stops with Realm's message in a non-optional context.

import Foundation
import Testing

import OpenRealm

/// A URL-like wrapper stored as a String.
struct WebLink: CustomPersistable, Hashable {
    typealias PersistedType = String
    var address: String
    init(_ address: String) { self.address = address }
    init(persistedValue: String) { address = persistedValue }
    var persistableValue: String { address }
}

/// An enum-like type stored as an Int.
struct Level: CustomPersistable, Hashable {
    typealias PersistedType = Int
    var rank: Int
    static let low = Level(rank: 1), medium = Level(rank: 2), high = Level(rank: 3)
    init(rank: Int) { self.rank = rank }
    init(persistedValue: Int) { rank = persistedValue }
    var persistableValue: Int { rank }
}

/// A failable mapping: only strings with a scheme (or the empty default) convert back.
struct SiteAddress: FailableCustomPersistable, Hashable {
    typealias PersistedType = String
    var text: String
    /// Any text, even one that does not convert back (as a URL whose string is not a valid URL).
    init(unchecked text: String) { self.text = text }
    init?(persistedValue: String) {
        guard persistedValue.isEmpty || persistedValue.contains("://") else { return nil }
        text = persistedValue
    }
    var persistableValue: String { text }
}

/// A failable mapping that does not convert the persisted type's default (""), which Realm forbids.
struct StrictSite: FailableCustomPersistable, Hashable {
    typealias PersistedType = String
    var text: String
    init?(persistedValue: String) {
        guard !persistedValue.isEmpty else { return nil }
        text = persistedValue
    }
    var persistableValue: String { text }
}

/// Used only by the exit test: its `site` has no default that converts.
final class StrictSiteModel: Object {
    @Persisted var site: StrictSite
}

final class CustomPersistableModel: Object {
    @Persisted var link: WebLink
    @Persisted var optionalLink: WebLink?
    @Persisted(indexed: true) var level: Level
    @Persisted var site: SiteAddress
    @Persisted var optionalSite: SiteAddress?
    @Persisted var links: List<WebLink>
    @Persisted var optionalLinks: List<WebLink?>
    @Persisted var levels: MutableSet<Level>
    @Persisted var linkMap: Map<String, WebLink>
    @Persisted var sites: List<SiteAddress?>
}

private func memoryRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "custom-\(UUID().uuidString)", objectTypes: [CustomPersistableModel.self]))
}

private func generic<T: _Persistable>(_: T.Type) -> Any.Type { T.PersistedType.self }

@Suite("CustomPersistable")
struct CustomPersistableTests {
    @Test("the schema has the persisted types")
    func schema() throws {
        let realm = try memoryRealm()
        let schema = try #require(realm.schema["CustomPersistableModel"])
        #expect(schema["link"]?.type == .string)
        #expect(schema["link"]?.isOptional == false)
        #expect(schema["optionalLink"]?.type == .string)
        #expect(schema["optionalLink"]?.isOptional == true)
        #expect(schema["level"]?.type == .int)
        #expect(schema["level"]?.isIndexed == true)
        #expect(schema["links"]?.type == .string)
        #expect(schema["links"]?.isArray == true)
        #expect(schema["optionalLinks"]?.isOptional == true)
        #expect(schema["levels"]?.type == .int)
        #expect(schema["levels"]?.isSet == true)
        #expect(schema["linkMap"]?.isMap == true)
        #expect(ObjectIdentifier(generic(WebLink.self)) == ObjectIdentifier(String.self))
        #expect(ObjectIdentifier(generic(Level.self)) == ObjectIdentifier(Int.self))
    }

    @Test("properties and collections store and read back the custom values")
    func roundTrip() throws {
        let realm = try memoryRealm()
        let model = CustomPersistableModel()
        #expect(model.link == WebLink(""))
        #expect(model.level == Level(rank: 0))
        #expect(model.site == SiteAddress(unchecked: ""))
        model.link = WebLink("https://a.example")
        model.level = .high
        model.links.append(objectsIn: [WebLink("x://1"), WebLink("x://2")])
        model.levels.insert(objectsIn: [.low, .high, .low])
        model.linkMap["home"] = WebLink("https://home.example")
        try realm.write { realm.add(model) }

        #expect(model.link == WebLink("https://a.example"))
        #expect(model.optionalLink == nil)
        #expect(model.level == .high)
        #expect(Array(model.links) == [WebLink("x://1"), WebLink("x://2")])
        #expect(Set(model.levels) == [.low, .high])
        #expect(model.linkMap["home"] == WebLink("https://home.example"))
        try realm.write {
            model.optionalLink = WebLink("ftp://b")
            model.optionalLinks.append(objectsIn: [nil, WebLink("z://")])
            model.levels.insert(.medium)
            model.site = SiteAddress(unchecked: "https://site")
        }
        #expect(model.optionalLink == WebLink("ftp://b"))
        #expect(Array(model.optionalLinks) == [nil, WebLink("z://")])
        #expect(model.levels.count == 3)
        #expect(model.site.text == "https://site")
        // Stored as the persisted type: key-value coding gives the persisted value, as Realm's.
        #expect(model.value(forKey: "link") as? String == "https://a.example")
        let created = try realm.write {
            realm.create(CustomPersistableModel.self, value: ["link": "p://q", "level": 2, "links": ["r://s"]])
        }
        #expect(created.link == WebLink("p://q"))
        #expect(created.level == .medium)
        #expect(Array(created.links) == [WebLink("r://s")])
    }

    @Test("queries compare through the persisted value")
    func queries() throws {
        let realm = try memoryRealm()
        try realm.write {
            for (index, address) in ["https://a", "https://b", "https://c"].enumerated() {
                let model = CustomPersistableModel()
                model.link = WebLink(address)
                model.level = Level(rank: index + 1)
                model.links.append(WebLink(address + "/list"))
                realm.add(model)
            }
        }
        let all = realm.objects(CustomPersistableModel.self)
        let b = WebLink("https://b")
        #expect(all.where { $0.link == b }.count == 1)
        #expect(all.where { $0.link != b }.count == 2)
        #expect(all.filter("link == %@", b.persistableValue).count == 1)
        #expect(all.filter("link == %@", b).count == 1)
        #expect(all.where { $0.level > .low }.count == 2)
        #expect(all.where { $0.level <= .medium }.count == 2)
        #expect(all.where { $0.level >= .high }.first?.link == WebLink("https://c"))
        #expect(all.where { $0.level < Level(rank: 1) }.count == 0)
        #expect(all.filter("level IN %@", [1, 3]).count == 2)
        #expect(all.where { $0.optionalLink == nil }.count == 3)
        #expect(all.where { $0.links == WebLink("https://a/list") }.count == 1)
        #expect(all.sorted(byKeyPath: "level", ascending: false).first?.level == .high)
        // String operators on a type stored as a String take the custom type, as Realm's.
        #expect(all.where { $0.link.starts(with: WebLink("https://")) }.count == 3)
        #expect(all.where { $0.link.ends(with: WebLink("/b")) }.count == 1)
        #expect(all.where { $0.link.contains(WebLink("C"), options: .caseInsensitive) }.count == 1)
        #expect(all.where { $0.link.equals(WebLink("HTTPS://A"), options: .caseInsensitive) }.count == 1)
        #expect(all.where { $0.link.notEquals(WebLink("https://a")) }.count == 2)
        #expect(all.where { $0.link.like(WebLink("*://?")) }.count == 3)
        #expect(all.where { $0.optionalLink.contains(WebLink("a")) }.count == 0)
    }

    @Test("a failable conversion reads nil in optional contexts")
    func failableOptional() throws {
        let realm = try memoryRealm()
        let model = CustomPersistableModel()
        model.optionalSite = SiteAddress(unchecked: "not a site")
        model.sites.append(objectsIn: [SiteAddress(unchecked: "https://ok"), SiteAddress(unchecked: "bad")])
        try realm.write { realm.add(model) }
        #expect(model.optionalSite == nil)
        #expect(Array(model.sites) == [SiteAddress(unchecked: "https://ok"), nil])
        #expect(realm.objects(CustomPersistableModel.self).filter("optionalSite == 'not a site'").count == 1)
        try realm.write { model.optionalSite = SiteAddress(unchecked: "https://fine") }
        #expect(model.optionalSite?.text == "https://fine")
    }
}

@Suite("CustomPersistable errors")
struct CustomPersistableErrorTests {
    @Test("a persisted value that does not convert stops in a non-optional context")
    func failableRequired() async {
        removeInMemoryRealm("openrealm-exit-failableRequired")
        defer { removeInMemoryRealm("openrealm-exit-failableRequired") }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: .init(inMemoryIdentifier: "openrealm-exit-failableRequired",
                                                       objectTypes: [CustomPersistableModel.self]))
            let model = CustomPersistableModel()
            model.site = SiteAddress(unchecked: "bad")
            try realm.write { realm.add(model) }
            _ = model.site
        }
        expectStop("Failed to convert persisted value 'bad' to type 'SiteAddress' in a non-optional context.", result)
    }

    @Test("a failable type whose default does not convert stops when the default is needed")
    func failableDefault() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = StrictSiteModel().site
        }
        expectStop("Failed to default construct a StrictSite using the default value for persisted type String. "
            + "This conversion must either succeed, the property must be optional, or you must explicitly specify a default value for the property.", result)
    }
}
