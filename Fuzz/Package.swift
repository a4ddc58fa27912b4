// swift-tools-version: 6.1
import PackageDescription

// libFuzzer harnesses for every decoder that reads outside input: a separate package so the
// main build stays free of them. Each executable target is one harness: its `@main` type is a
// `FuzzHarness` (FuzzSupport), whose `test` takes one input and whose `seeds` make its corpus;
// the protocol's `main`, the entry point SwiftPM links `main` to (`<target>_main`), runs
// libFuzzer's driver (declared by CFuzzer) or writes the seeds when asked. What every harness
// checks the same way is FuzzSupport's too: `Fuzz.refused(as:_:_:)`, a decoder throws only
// its own errors; `Fuzz.orFail(_:_:)`, what must not throw. Build and run with
// `scripts/fuzz.sh [SECONDS]`, which builds with
//
//     swift build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//
// BatonGLib and CGLib are not products of the main package; the harnesses import them as
// BatonBus's dependencies, as Benchmarks/PeerBenchmarks does. Executable targets' code
// (baton's activity files, batond's settings, paired devices, tailscaled's status and the
// desktop's recent list, baton-browser-host's messages) cannot be imported: their harnesses
// compile the decoding files themselves, through the symbolic links beside them.

/// The main package's name, for the harnesses that reach its `package` declarations
/// (`BusValue(variant:)`, `BusValue.deserialize(record:)`): SwiftPM names a package after its
/// folder, lower-cased, as a C identifier.
let mainPackageName: String = {
    let folder = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "main"
    let name = String(folder.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    return name.first?.isNumber == true ? "_" + name : name
}()

/// A harness target. With `mainPackageAccess` it is compiled as part of the main package
/// (`-package-name`); SwiftPM's own `-package-name` for this package would come later on the
/// command line and win, so its package access is turned off.
func harness(_ name: String, _ dependencies: [Target.Dependency], mainPackageAccess: Bool = false) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + dependencies,
        packageAccess: !mainPackageAccess,
        swiftSettings: mainPackageAccess ? [.unsafeFlags(["-package-name", mainPackageName])] : []
    )
}

let package = Package(
    name: "BatonFuzz",
    dependencies: [
        .package(name: "Baton", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer"]),
        harness("FuzzPayload", [.product(name: "Baton", package: "Baton")]),
        harness("FuzzStateRestoration", [
            .product(name: "Baton", package: "Baton"), .product(name: "BatonTesting", package: "Baton"),
        ]),
        harness("FuzzPeerFrame", [
            .product(name: "Baton", package: "Baton"), .product(name: "BatonPeer", package: "Baton"),
            .product(name: "BatonBus", package: "Baton"),
        ]),
        harness("FuzzBusRecord", [
            .product(name: "Baton", package: "Baton"), .product(name: "BatonBus", package: "Baton"),
        ], mainPackageAccess: true),
        harness("FuzzActivityFile", [
            .product(name: "Baton", package: "Baton"), .product(name: "BatonBus", package: "Baton"),
        ]),
        harness("FuzzPairedDevices", [.product(name: "BatonPeer", package: "Baton")]),
        harness("FuzzNetworkSettings", [
            .product(name: "BatonBus", package: "Baton"), .product(name: "BatonPeer", package: "Baton"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        harness("FuzzAssociationFile", []),
        harness("FuzzTailnetStatus", [.product(name: "BatonBus", package: "Baton")]),
        harness("FuzzRelayMessage", [.product(name: "BatonPeer", package: "Baton")]),
        harness("FuzzDiscoveryRecord", [
            .product(name: "Baton", package: "Baton"), .product(name: "BatonBus", package: "Baton"),
        ]),
        harness("FuzzWebHost", [.product(name: "BatonBus", package: "Baton")]),
        harness("FuzzRecentList", [.product(name: "BatonBus", package: "Baton")]),
        harness("FuzzBrowserMessage", [
            .product(name: "Baton", package: "Baton"), .product(name: "BatonBus", package: "Baton"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
