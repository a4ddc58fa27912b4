// swift-tools-version: 6.1
import PackageDescription

// Baton's micro-benchmarks: a separate package so the main package stays free of them.
// Dependency-free on purpose (no ordo-one/benchmark): a plain executable timing with the
// monotonic clock. Build and run:
//
//     swift build -c release --package-path Benchmarks
//     Benchmarks/.build/release/BatonBenchmarks
let package = Package(
    name: "BatonBenchmarks",
    dependencies: [
        .package(name: "Baton", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "BatonBenchmarks",
            dependencies: [
                .product(name: "Baton", package: "Baton"),
                .product(name: "BatonTesting", package: "Baton"),
            ]
        ),
        .executableTarget(
            name: "PeerBenchmarks",
            dependencies: [
                .product(name: "Baton", package: "Baton"),
                .product(name: "BatonPeer", package: "Baton"),
                .product(name: "BatonBus", package: "Baton"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
