// swift-tools-version: 6.1
import Foundation
import PackageDescription

let package = Package(
    name: "OpenRealm",
    products: [
        .library(name: "OpenRealm", targets: ["OpenRealm"]),
        .library(name: "CEngine", targets: ["CEngine"]),
        .executable(name: "openrealm", targets: ["OpenRealmCLI"]),
    ],
    targets: [
        // The storage engine, in C. The same sources are built by CMakeLists.txt for C users.
        .target(
            name: "CEngine",
            path: "CEngine",
            exclude: ["tests"],
            sources: ["src"],
            publicHeadersPath: "include",
            cSettings: [
                .define("NDEBUG", .when(configuration: .release)),
                .define("_GNU_SOURCE"),
                .headerSearchPath("src/base"),
                .headerSearchPath("src/storage"),
                .headerSearchPath("src/objects"),
                .headerSearchPath("src/query"),
                .headerSearchPath("src/notify"),
            ],
            linkerSettings: [
                .linkedLibrary("crypto"),
                .linkedLibrary("zstd"),
                .linkedLibrary("pthread"),
                .linkedLibrary("m"),
            ]
        ),
        // What the Swift layer needs from C besides the engine: a thread-local counter.
        .target(
            name: "COpenRealmSupport",
            path: "Sources/COpenRealmSupport"
        ),
        .target(
            name: "OpenRealm",
            dependencies: ["CEngine", "COpenRealmSupport"],
            path: "Sources/OpenRealm"
        ),
        .executableTarget(
            name: "OpenRealmCLI",
            dependencies: ["OpenRealm"],
            path: "Sources/OpenRealmCLI"
        ),
        // Runs the built `openrealm` as a process (the dependency makes SwiftPM build it).
        .testTarget(
            name: "OpenRealmCLITests",
            dependencies: ["OpenRealmCLI", "OpenRealm"],
            path: "Tests/OpenRealmCLITests"
        ),
        // The Getting Started article's code, compiled and run (Tests/OpenRealmDocsTests).
        .testTarget(
            name: "OpenRealmDocsTests",
            dependencies: ["OpenRealm"],
            path: "Tests/OpenRealmDocsTests"
        ),
        .testTarget(
            name: "OpenRealmTests",
            dependencies: ["OpenRealm", "CEngine"],
            path: "Tests/OpenRealmTests"
        ),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)

// The documentation (`scripts/docs.sh`): swift-docc-plugin is a dependency only when
// OPENREALM_DOCS=1 is set, so a package that depends on OpenRealm never resolves,
// fetches or builds it.
if ProcessInfo.processInfo.environment["OPENREALM_DOCS"] == "1" {
    package.dependencies.append(
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
