// swift-tools-version: 6.1
// The Swift-API benchmark (W1-W4, W6 of docs/BENCHMARKS.md): OpenRealm's Swift API
// against GRDB (SQLite through Swift) and against OpenRealm's C API called from Swift, in one
// process run. A separate package so that the main build does not depend on GRDB.
// Build and run it with Benchmarks/run_swift.sh.
import PackageDescription

let package = Package(
    name: "SwiftBench",
    dependencies: [
        .package(name: "OpenRealm", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "swiftbench",
            dependencies: [
                .product(name: "OpenRealm", package: "OpenRealm"),
                .product(name: "CEngine", package: "OpenRealm"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/swiftbench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
