// swift-tools-version: 6.1
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
        .testTarget(
            name: "OpenRealmTests",
            dependencies: ["OpenRealm", "CEngine"],
            path: "Tests/OpenRealmTests"
        ),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)
