// DocsConfigurationTests.swift — what Realm Swift's guide ("Configure & Open a Realm", "Reduce
// Realm File Size", "Change an Object Model") and API reference (Realm.Configuration,
// Realm.asyncOpen, deleteFiles) say of opening Realms.

import Dispatch
import Foundation
import Testing

import OpenRealm

@Suite("Realm's documentation: configuring and opening a Realm", .serialized)
struct DocsConfigurationTests {
    // Realm.Configuration.defaultConfiguration: "the default configuration used when calling
    // Realm()"; setting it changes what Realm() opens.
    @Test("setting defaultConfiguration changes what Realm() opens")
    func defaultConfiguration() throws {
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        let identifier = "docs-default-\(UUID().uuidString)"
        var configuration = Realm.Configuration(inMemoryIdentifier: identifier, objectTypes: docsTypes)
        configuration.schemaVersion = 3
        Realm.Configuration.defaultConfiguration = configuration
        let realm = try Realm()
        #expect(realm.configuration.inMemoryIdentifier == identifier)
        #expect(realm.configuration.schemaVersion == 3)
        try realm.write { realm.create(DocsPet.self, value: ["name": "Default"]) }
        let named = try Realm(configuration: configuration)
        #expect(named.objects(DocsPet.self).count == 1)
    }

    // In-memory Realms: "When all in-memory realm instances with a particular identifier go
    // out of scope with no references, all data in that realm is deleted."
    @Test("an in-memory Realm keeps its data while an instance lives, then loses it")
    func inMemoryLifetime() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "docs-memory-\(UUID().uuidString)", objectTypes: docsTypes)
        do {
            let first = try Realm(configuration: configuration)
            try first.write { first.create(DocsPet.self, value: ["name": "Kept"]) }
            // Another instance (another thread's) sees it while the first lives.
            let seen = try onOtherThread { try Realm(configuration: configuration).objects(DocsPet.self).count }
            #expect(seen == 1)
        }
        let again = try Realm(configuration: configuration)
        #expect(again.objects(DocsPet.self).isEmpty)
    }

    // shouldCompactOnLaunch: called with the file's total and used bytes when the Realm is
    // first opened in the process; true compacts the file.
    @Test("shouldCompactOnLaunch is told the sizes and compacts on true")
    func compactOnLaunch() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("compact.realm")
            var configuration = Realm.Configuration(fileURL: url, objectTypes: docsTypes)
            do {
                let realm = try Realm(configuration: configuration)
                let text = String(repeating: "x", count: 2_000)
                try realm.write { for i in 0..<500 { realm.create(DocsPet.self, value: ["name": "\(i)", "toy": text]) } }
                try realm.write { realm.delete(realm.objects(DocsPet.self).filter("age == 0 AND name != '7'")) }
            }
            waitUntilClosedEverywhere(url)
            let before = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            let sizes = Changes<(Int, Int)>()
            configuration.shouldCompactOnLaunch = { total, used in
                sizes.append((total, used))
                return true
            }
            let realm = try Realm(configuration: configuration)
            let told = sizes.take()
            #expect(told.count == 1)
            if let (total, used) = told.first {
                #expect(total == before)
                #expect(used > 0 && used < total)
            }
            #expect(realm.objects(DocsPet.self).map(\.name) == ["7"])
            let after = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            #expect(after < before)
            // Opened again while open in this process: not asked.
            _ = try Realm(configuration: configuration)
            #expect(sizes.take().isEmpty)
        }
    }

    // "Delete a Realm file": deleteFiles(for:) says whether there was a file; fileExists.
    @Test("Realm.deleteFiles(for:) and fileExists(for:)")
    func deleteFiles() throws {
        try withDirectory { directory in
            let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("gone.realm"), objectTypes: docsTypes)
            #expect(!Realm.fileExists(for: configuration))
            #expect(try !Realm.deleteFiles(for: configuration))
            do {
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.create(DocsPet.self) }
            }
            #expect(Realm.fileExists(for: configuration))
            waitUntilClosedEverywhere(configuration.fileURL!)
            #expect(try Realm.deleteFiles(for: configuration))
            #expect(!Realm.fileExists(for: configuration))
            #expect(try Realm(configuration: configuration).objects(DocsPet.self).isEmpty)
        }
    }

    // "Open a Realm Read-Only"; a file that does not exist cannot be opened read-only.
    @Test("a read-only Realm reads; a missing file cannot be opened read-only")
    func readOnly() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("ro.realm")
            do {
                let realm = try Realm(configuration: .init(fileURL: url, objectTypes: docsTypes))
                try realm.write { realm.create(DocsPet.self, value: ["name": "Fixed"]) }
            }
            let reader = try Realm(configuration: .init(fileURL: url, readOnly: true, objectTypes: docsTypes))
            #expect(reader.objects(DocsPet.self).first?.name == "Fixed")
            #expect(reader.configuration.readOnly)
            let missing = Realm.Configuration(fileURL: directory.appendingPathComponent("none.realm"), readOnly: true, objectTypes: docsTypes)
            #expect(throws: Realm.Error.self) { try Realm(configuration: missing) }
        }
    }

    // Schema versions: a version lower than the file's cannot open it.
    @Test("a schema version lower than the file's throws")
    func lowerSchemaVersion() throws {
        try withDirectory { directory in
            let url = directory.appendingPathComponent("versions.realm")
            do { _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 2, objectTypes: docsTypes)) }
            waitUntilClosedEverywhere(url)
            do {
                _ = try Realm(configuration: .init(fileURL: url, schemaVersion: 1, objectTypes: docsTypes))
                Issue.record("opened with a lower schema version")
            } catch let error as Realm.Error {
                #expect(error.localizedDescription.contains("Provided schema version 1 is less than last set version 2"))
            }
            #expect(try schemaVersionAtURL(url) == 2)
        }
    }

    // "Open a Realm Asynchronously": asyncOpen calls back on the queue given with the Realm.
    @Test("Realm.asyncOpen calls back on the queue with a usable Realm")
    func asyncOpen() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "docs-\(UUID().uuidString)", objectTypes: docsTypes)
        let holder = try Realm(configuration: configuration)
        try holder.write { holder.create(DocsPet.self, value: ["name": "Ready"]) }
        let queue = DispatchQueue(label: "docs-async-open")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let done = DispatchSemaphore(value: 0)
        let outcome = Changes<String>()
        _ = Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
            switch result {
            case .success(let realm):
                outcome.append("\(DispatchQueue.getSpecific(key: key) == true) \(realm.objects(DocsPet.self).first?.name ?? "-")")
            case .failure(let error):
                outcome.append("error \(error)")
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcome.take() == ["true Ready"])
    }
}
