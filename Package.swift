// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Baton",
    products: [
        .library(name: "Baton", targets: ["Baton"]),
        .library(name: "BatonTesting", targets: ["BatonTesting"]),
        .executable(name: "BatonCoreDemo", targets: ["BatonCoreDemo"]),
    ],
    targets: [
        .target(name: "Baton"),
        .target(name: "BatonTesting", dependencies: ["Baton"]),
        .executableTarget(
            name: "BatonCoreDemo",
            dependencies: ["Baton", "BatonTesting"],
            path: "Examples/CoreDemo"
        ),
        .testTarget(name: "BatonTests", dependencies: ["Baton", "BatonTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
