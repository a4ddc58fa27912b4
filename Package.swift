// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Baton",
    products: [
        .library(name: "Baton", targets: ["Baton"]),
        .library(name: "BatonTesting", targets: ["BatonTesting"]),
        .library(name: "BatonGtk", targets: ["BatonGtk"]),
        .library(name: "BatonPeer", targets: ["BatonPeer"]),
        .library(name: "BatonBus", targets: ["BatonBus"]),
        // libbaton-1.so: the GObject API (namespace Baton 1.0) for C, Python, JavaScript and
        // Vala apps, a façade over BatonGtk; scripts/gir.sh makes its .gir, .typelib and .pc.
        .library(name: "baton-1", type: .dynamic, targets: ["BatonGObject"]),
        .executable(name: "batond", targets: ["batond"]),
        .executable(name: "baton", targets: ["baton"]),
        .executable(name: "BatonCoreDemo", targets: ["BatonCoreDemo"]),
        .executable(name: "MailComposer", targets: ["MailComposer"]),
        .executable(name: "TextEditor", targets: ["TextEditor"]),
        .executable(name: "baton-app", targets: ["BatonApp"]),
        .executable(name: "baton-browser-host", targets: ["BatonBrowserHost"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .target(name: "Baton"),
        .target(name: "BatonTesting", dependencies: ["Baton"]),
        .systemLibrary(
            name: "CGtk",
            pkgConfig: "gtk4",
            providers: [.apt(["libgtk-4-dev"])]
        ),
        .systemLibrary(
            name: "CGLib",
            pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        .systemLibrary(
            name: "CX11",
            pkgConfig: "x11",
            providers: [.apt(["libx11-dev", "libxfixes-dev"])]
        ),
        .target(name: "BatonGLib", dependencies: ["Baton", "CGLib"]),
        .target(
            name: "BatonBus",
            dependencies: ["Baton", "BatonGLib"],
            resources: [
                .embedInCode("Resources/org.baton.Daemon1.xml"),
                .embedInCode("Resources/org.baton.Application1.xml"),
            ]
        ),
        .target(
            name: "BatonPeer",
            dependencies: [
                "Baton", "BatonGLib", "BatonBus", "CGLib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "BatonGtk",
            dependencies: [
                "Baton", "BatonGLib", "BatonBus", "CGLib", "CGtk",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "CBatonGObject", dependencies: ["CGtk"], exclude: ["libbaton-1.map"],
                cSettings: [.define("BATON_COMPILATION")]),
        .target(
            name: "BatonGObject",
            dependencies: [
                "CBatonGObject", "Baton", "BatonBus", "BatonGLib", "BatonGtk", "CGLib", "CGtk",
                .product(name: "Logging", package: "swift-log"),
            ],
            // The library's SONAME, so that apps linked with -lbaton-1 ask for the ABI version,
            // and its exports: the GObject API alone (Sources/CBatonGObject/libbaton-1.map).
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "-soname=libbaton-1.so.0",
                "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/CBatonGObject/libbaton-1.map",
            ])]
        ),
        .executableTarget(
            name: "batond",
            dependencies: [
                "Baton", "BatonGLib", "BatonBus", "BatonPeer", "CGLib", "CX11",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Resources"]
        ),
        .executableTarget(
            name: "baton",
            dependencies: [
                "Baton", "BatonGLib", "BatonBus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "BatonCoreDemo",
            dependencies: ["Baton", "BatonTesting"],
            path: "Examples/CoreDemo"
        ),
        .systemLibrary(
            name: "CAdwaita",
            pkgConfig: "libadwaita-1",
            providers: [.apt(["libadwaita-1-dev"])]
        ),
        .target(
            name: "ExampleSupport",
            dependencies: [
                "Baton", "BatonGLib", "BatonGtk", "CGtk", "CAdwaita",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Shared"
        ),
        .executableTarget(
            name: "MailComposer",
            dependencies: [
                "Baton", "BatonGtk", "CGtk", "CAdwaita", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/MailComposer",
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "TextEditor",
            dependencies: [
                "Baton", "BatonGLib", "BatonGtk", "CGtk", "CAdwaita", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/TextEditor",
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "BatonApp",
            dependencies: [
                "Baton", "BatonBus", "BatonGLib", "BatonGtk", "CGtk", "CAdwaita", "ExampleSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Resources"]
        ),
        .executableTarget(
            name: "BatonBrowserHost",
            dependencies: ["Baton", "BatonGLib", "BatonBus", "CGLib"],
            exclude: ["Resources"]
        ),
        .testTarget(name: "BatonTests", dependencies: ["Baton", "BatonTesting"]),
        .testTarget(name: "BatonGtkTests", dependencies: ["Baton", "BatonGtk", "BatonTesting", "CGtk"]),
        .testTarget(name: "MailComposerTests", dependencies: ["ServiceFixtures"]),
        .testTarget(name: "TextEditorTests", dependencies: ["ServiceFixtures"]),
        .testTarget(
            name: "GObjectExampleTests", dependencies: ["ServiceFixtures"],
            exclude: ["api-contract.py", "vala-check.vala", "stream-app.py", "document-app.py"]
        ),
        .executableTarget(
            name: "BatonTestApp",
            dependencies: ["Baton", "BatonGtk", "BatonGLib", "CGLib", "CGtk"],
            path: "Tests/BatonTestApp"
        ),
        .target(name: "ServiceFixtures", dependencies: ["CGLib"], path: "Tests/ServiceFixtures"),
        .testTarget(name: "BatondTests", dependencies: ["ServiceFixtures", "batond", "BatonBrowserHost", "BatonGLib", "CGLib"]),
        .testTarget(name: "BatonPeerTests", dependencies: ["BatonPeer", "BatonGLib", "BatonBus", "Baton", "ServiceFixtures"]),
        .testTarget(name: "BatonGLibTests", dependencies: ["Baton", "BatonGLib", "BatonBus", "CGLib", "ServiceFixtures"]),
        .executableTarget(
            name: "BatonGtkHarness",
            dependencies: ["Baton", "BatonGtk", "CGtk"],
            path: "Tests/BatonGtkHarness"
        ),
    ],
    swiftLanguageModes: [.v6]
)
