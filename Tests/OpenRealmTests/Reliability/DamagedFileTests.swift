// DamagedFileTests.swift — opening damaged files through the Realm API: random bytes, truncated
// files, flipped bytes in the header and in data pages; each throws a Realm.Error with the right
// code, naming the file, and leaves the file as it was. Also writeCopy to a path under a file.

import Foundation
import Testing

import OpenRealm

/// A plain Realm of 500 dogs at `directory/name`; its configuration.
private func fileOfDogs(_ directory: URL, _ name: String) throws -> Realm.Configuration {
    let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent(name), objectTypes: [Dog.self])
    let realm = try Realm(configuration: configuration)
    try realm.write {
        for age in 0..<500 { realm.add(Dog(value: ["name": "dog \(age) " + String(repeating: "x", count: 40), "age": age])) }
    }
    return configuration
}

/// Opens `bytes` written to `directory/name` (read-write, or read-only): nil when it opens, else
/// the Realm.Error. Expects the file unchanged by a failed open, and any other error never.
private func openError(_ bytes: Data, _ directory: URL, _ name: String, readOnly: Bool = false,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> Realm.Error? {
    let url = directory.appendingPathComponent(name)
    try bytes.write(to: url)
    do {
        _ = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: readOnly, objectTypes: [Dog.self]))
        return nil
    } catch let error as Realm.Error {
        #expect(try Data(contentsOf: url) == bytes, "\(name): a failed open changed the file", sourceLocation: sourceLocation)
        #expect(error.fileURL == url, "\(name): \(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(url.path), "\(name): \(error)", sourceLocation: sourceLocation)
        return error
    }
}

@Suite("Damaged files") struct DamagedFileTests {
    @Test("random bytes, a truncated file, a damaged header: .invalidDatabase naming the file, file unchanged")
    func notADatabase() throws {
        try withDirectory { directory in
            let full = try Data(contentsOf: try #require(try fileOfDogs(directory, "dogs.realm").fileURL))
            var random = SystemRandomNumberGenerator()
            for size in [1, 100, 5000, 65536] {
                let bytes = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) })
                for readOnly in [false, true] {
                    let error = try openError(bytes, directory, "random-\(size).realm", readOnly: readOnly)
                    #expect(error?.code == .invalidDatabase, "\(size) random bytes: \(String(describing: error))")
                }
            }
            for cut in [1, 64, 4096, 8192] {
                let error = try openError(full.prefix(cut), directory, "cut-\(cut).realm")
                #expect(error?.code == .invalidDatabase, "cut at \(cut): \(String(describing: error))")
            }
            for offset in [0, 8, 40] {
                var bytes = full
                bytes[offset] ^= 0x5A
                let error = try openError(bytes, directory, "header-\(offset).realm")
                #expect(error?.code == .invalidDatabase, "byte \(offset): \(String(describing: error))")
            }
        }
    }

    /// A damaged page the schema check reads was `.fail` with no file (its catch-all): now the
    /// engine's `.invalidDatabase`, naming the file.
    @Test("a damaged data page: opening throws .invalidDatabase naming the file, or opens; never another code")
    func damagedDataPages() throws {
        try withDirectory { directory in
            let full = try Data(contentsOf: try #require(try fileOfDogs(directory, "dogs.realm").fileURL))
            var checksumFailures = 0
            for page in 2..<min(full.count / 4096, 16) {
                var bytes = full
                bytes[page * 4096 + 1000] ^= 0x5A
                guard let error = try openError(bytes, directory, "page-\(page).realm") else { continue }
                #expect(error.code == .invalidDatabase, "page \(page): \(error.code) \(error)")
                if error.message.contains("fails its checksum") { checksumFailures += 1 }
            }
            // The damage was found (the loop can fail).
            #expect(checksumFailures > 0)
        }
    }

    @Test("writeCopy to a path under a regular file: not .fileExists; nothing created")
    func copyUnderAFile() throws {
        try withDirectory { directory in
            let realm = try Realm(configuration: try fileOfDogs(directory, "dogs.realm"))
            let file = directory.appendingPathComponent("plain.txt")
            try Data("hello".utf8).write(to: file)
            let target = file.appendingPathComponent("copy.realm")
            #expect { try realm.writeCopy(toFile: target) } throws: { error in
                guard let error = error as? Realm.Error else { return false }
                return error.code == .fileAccess && error.message.contains(target.path) && error.message.contains(String(cString: strerror(ENOTDIR)))
            }
            #expect(try Data(contentsOf: file) == Data("hello".utf8))
        }
    }
}
