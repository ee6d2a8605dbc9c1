// GettingStartedTests.swift — the Getting Started article's code is the code that
// GettingStartedExample.swift compiles, and it runs and prints what the article says.

import Foundation
import Testing

/// The repository's root, from this file's path.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The ```swift blocks of a Markdown text, each without its fences.
func swiftBlocks(of markdown: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
        if current == nil {
            if line == "```swift" { current = [] }
        } else if line == "```" {
            blocks.append(current!.joined(separator: "\n"))
            current = nil
        } else {
            current!.append(line)
        }
    }
    return blocks
}

/// The regions of GettingStartedExample.swift between `// article: NAME` and `// end`, with the
/// indentation of their marker line removed.
func exampleRegions(of source: String) -> [String] {
    var regions: [String] = []
    var current: [Substring]?
    var indent = 0
    for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
        let trimmed = line.drop(while: { $0 == " " })
        if current == nil {
            if trimmed.hasPrefix("// article: ") {
                current = []
                indent = line.count - trimmed.count
            }
        } else if trimmed == "// end" {
            regions.append(current!.joined(separator: "\n"))
            current = nil
        } else {
            current!.append(line.count >= indent && line.prefix(indent).allSatisfy({ $0 == " " }) ? line.dropFirst(indent) : line)
        }
    }
    return regions
}

@Suite struct GettingStartedTests {
    @Test func articleShowsTheCompiledCode() throws {
        let article = try String(contentsOf: root.appendingPathComponent("Sources/OpenRealm/OpenRealm.docc/GettingStarted.md"), encoding: .utf8)
        let example = try String(contentsOf: root.appendingPathComponent("Tests/OpenRealmDocsTests/GettingStartedExample.swift"), encoding: .utf8)
        // The package manifest is the one block that belongs to another program.
        let blocks = swiftBlocks(of: article).filter { !$0.hasPrefix("// Package.swift") }
        let regions = exampleRegions(of: example)
        #expect(regions.count == 7)
        #expect(blocks.count == regions.count)
        for (index, (block, region)) in zip(blocks, regions).enumerated() {
            #expect(block == region, "code block \(index + 1) of the article differs from region \(index + 1) of the example")
        }
    }

    @Test func codeRunsAndPrintsWhatTheArticleSays() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let printed = try gettingStarted(in: directory)
        #expect(printed == [
            "1 1 25.0 Ann",
            "[\"Ann\", \"Bo\"]",
            "initial: 2",
            "update: [1] [] [0]",
            "0 1",
        ])
        // Each printed line is the comment beside its print in the article.
        let article = try String(contentsOf: root.appendingPathComponent("Sources/OpenRealm/OpenRealm.docc/GettingStarted.md"), encoding: .utf8)
        for line in printed { #expect(article.contains("// \(line)\n"), "the article does not show '\(line)'") }
    }
}
