// UnicodeAuditTests.swift — text beyond ASCII against Realm Swift's SwiftUnicodeTests: UTF-8
// values and a UTF-8 property name stored, read back and queried, and the same text as
// collection values, map keys, string operators and sort keys.

import Foundation
import Testing

import OpenRealm

/// Text of several scripts, symbols and emoji, in one string.
private let mixedScripts = "値значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"

/// An object holding text.
final class UnicodeAuditText: Object {
    @Persisted var text: String
    @Persisted var texts: List<String>
    @Persisted var textSet: MutableSet<String>
    @Persisted var byName: Map<String, String>
}

/// An object whose property is named outside ASCII.
final class UnicodeAuditName: Object {
    @Persisted var 名前ñ👍: String
}

private func unicodeRealm() throws -> Realm {
    try Realm(configuration: .init(inMemoryIdentifier: "unicode-audit-\(UUID().uuidString)",
                                   objectTypes: [UnicodeAuditText.self, UnicodeAuditName.self]))
}

@Suite("Unicode text as Realm (SwiftUnicodeTests)")
struct UnicodeAuditTests {
    @Test("a UTF-8 value reads back unchanged and == finds it; != finds nothing else")
    func utf8ValueStoredAndQueried() throws {
        let realm = try unicodeRealm()
        try realm.write { realm.create(UnicodeAuditText.self, value: [mixedScripts]) }
        let texts = realm.objects(UnicodeAuditText.self)
        let stored = try #require(texts.first)
        #expect(stored.text == mixedScripts)
        #expect(stored.text.utf8.count == mixedScripts.utf8.count)
        let found = try #require(texts.filter("text == %@", mixedScripts).first)
        #expect(found.isSameObject(as: stored))
        #expect(texts.filter("text != %@", mixedScripts).count == 0)
        #expect(texts.where { $0.text == mixedScripts }.count == 1)
    }

    @Test("a property named in UTF-8 is read, written and queried by its name and by %K")
    func utf8PropertyName() throws {
        let realm = try unicodeRealm()
        try realm.write { realm.create(UnicodeAuditName.self, value: ["名前ñ👍": mixedScripts]) }
        let named = realm.objects(UnicodeAuditName.self)
        let stored = try #require(named.first)
        #expect(stored.名前ñ👍 == mixedScripts)
        #expect(stored["名前ñ👍"] as? String == mixedScripts)
        let found = try #require(named.filter("%K == %@", "名前ñ👍", mixedScripts).first)
        #expect(found.isSameObject(as: stored))
        #expect(named.filter("名前ñ👍 == %@", mixedScripts).count == 1)
        #expect(realm.schema["UnicodeAuditName"]?.properties.map(\.name) == ["名前ñ👍"])
    }

    @Test("UTF-8 values and map keys are kept in List, MutableSet and Map")
    func utf8InCollections() throws {
        let realm = try unicodeRealm()
        let holder = try realm.write {
            realm.create(UnicodeAuditText.self, value: [
                "texts": ["é", "e\u{301}", "👍🏽"], "byName": ["ключ": "значение", "鍵": "値", "🔑": "👍"],
            ])
        }
        #expect(Array(holder.texts) == ["é", "e\u{301}", "👍🏽"])
        #expect(holder.texts.index(of: "👍🏽") == 2)
        // A managed collection compares text by its bytes, as realm-core does: the composed and
        // the decomposed é are two values and two keys (Swift's == finds them equal).
        #expect(holder.texts.index(of: "e\u{301}") == 1)
        try realm.write {
            holder.textSet.insert(objectsIn: ["é", "e\u{301}", "é"])
            holder.byName["é"] = "composed"
            holder.byName["e\u{301}"] = "decomposed"
        }
        #expect(holder.textSet.count == 2)
        #expect(holder.byName.count == 5 && holder.byName["é"] == "composed")
        #expect(holder.byName["ключ"] == "значение" && holder.byName["鍵"] == "値" && holder.byName["🔑"] == "👍")
        #expect(Set(holder.byName.keys).isSuperset(of: ["ключ", "鍵", "🔑"]))
        let texts = realm.objects(UnicodeAuditText.self)
        #expect(texts.filter("byName['ключ'] == 'значение'").count == 1)
        #expect(texts.filter("ANY texts == %@", "👍🏽").count == 1)
    }

    @Test("BEGINSWITH, ENDSWITH, CONTAINS and LIKE match text outside ASCII")
    func stringOperators() throws {
        let realm = try unicodeRealm()
        try realm.write { realm.create(UnicodeAuditText.self, value: [mixedScripts]) }
        let texts = realm.objects(UnicodeAuditText.self)
        #expect(texts.filter("text BEGINSWITH %@", "値зна").count == 1)
        #expect(texts.filter("text ENDSWITH %@", "مرحبا").count == 1)
        #expect(texts.filter("text CONTAINS %@", "👍☞").count == 1)
        #expect(texts.filter("text LIKE %@", "値?начен*").count == 1)
        #expect(texts.filter("text LIKE %@", "値*👎*").count == 0)
        #expect(texts.filter("text LIKE %@", "値*مرحبا").count == 1)
        #expect(texts.filter("text CONTAINS %@", "👎").count == 0)
    }

    @Test("[c] folds the case of Latin, Greek and Cyrillic letters")
    func caseInsensitive() throws {
        let realm = try unicodeRealm()
        try realm.write {
            for text in ["ÅNGSTRÖM", "ΑΛΦΑ", "ПРИВЕТ"] { realm.create(UnicodeAuditText.self, value: [text]) }
        }
        let texts = realm.objects(UnicodeAuditText.self)
        #expect(texts.filter("text ==[c] %@", "ångström").count == 1)
        #expect(texts.filter("text ==[c] %@", "αλφα").count == 1)
        #expect(texts.filter("text CONTAINS[c] %@", "ривет").count == 1)
        #expect(texts.filter("text == %@", "привет").count == 0)
    }

    @Test("text sorts by its UTF-8 bytes, that is by code point")
    func sortByCodePoint() throws {
        let realm = try unicodeRealm()
        // realm-core compares StringData by unsigned bytes (string_data.hpp), so the order is
        // the code points' order: ASCII, then Latin-1, Cyrillic, CJK, then emoji.
        let ordered = ["Z", "a", "é", "я", "値", "👍"]
        try realm.write {
            for text in ordered.reversed() { realm.create(UnicodeAuditText.self, value: [text]) }
        }
        let texts = realm.objects(UnicodeAuditText.self)
        #expect(texts.sorted(byKeyPath: "text").map(\.text) == ordered)
        #expect(texts.sorted(byKeyPath: "text", ascending: false).map(\.text) == ordered.reversed())
    }
}
