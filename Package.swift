// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Baton",
    products: [
        .library(name: "Baton", targets: ["Baton"]),
        .library(name: "BatonTesting", targets: ["BatonTesting"]),
        .library(name: "BatonGtk", targets: ["BatonGtk"]),
        .executable(name: "BatonCoreDemo", targets: ["BatonCoreDemo"]),
    ],
    targets: [
        .target(name: "Baton"),
        .target(name: "BatonTesting", dependencies: ["Baton"]),
        .systemLibrary(
            name: "CGtk",
            pkgConfig: "gtk4",
            providers: [.apt(["libgtk-4-dev"])]
        ),
        .target(name: "CBatonGtk", dependencies: ["CGtk"]),
        .target(name: "BatonGtk", dependencies: ["Baton", "CGtk", "CBatonGtk"]),
        .executableTarget(
            name: "BatonCoreDemo",
            dependencies: ["Baton", "BatonTesting"],
            path: "Examples/CoreDemo"
        ),
        .testTarget(name: "BatonTests", dependencies: ["Baton", "BatonTesting"]),
        .testTarget(name: "BatonGtkTests", dependencies: ["Baton", "BatonGtk", "BatonTesting", "CGtk"]),
        .executableTarget(
            name: "BatonGtkHarness",
            dependencies: ["Baton", "BatonGtk", "CGtk"],
            path: "Tests/BatonGtkHarness"
        ),
    ],
    swiftLanguageModes: [.v6]
)
