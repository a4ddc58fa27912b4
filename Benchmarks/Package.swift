// swift-tools-version: 6.1
import PackageDescription

// Baton's benchmarks: a separate package so the main package stays free of them.
//
// `BatonBenchmarks` (the core) runs on ordo-one/benchmark, which counts allocations through
// its malloc interposer (the `MallocInterposer` trait; without it, it wants jemalloc).
// `BenchmarkReport` runs it and prints every figure beside its target; `PeerBenchmarks`
// (the network) is a plain executable. `scripts/bench.sh` runs both:
//
//     swift build -c release --package-path Benchmarks
//     Benchmarks/.build/release/BenchmarkReport --package-path Benchmarks
//
// or ordo-one's own tables: `swift package --package-path Benchmarks benchmark`.
let package = Package(
    name: "BatonBenchmarks",
    dependencies: [
        .package(name: "Baton", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "BatonBenchmarks",
            dependencies: [
                "BenchmarkFigures",
                .product(name: "Baton", package: "Baton"),
                .product(name: "BatonTesting", package: "Baton"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/BatonBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .target(name: "BenchmarkFigures"),
        .executableTarget(
            name: "BenchmarkReport",
            dependencies: ["BenchmarkFigures"]
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
