import BatonBus
import Foundation
import ServiceFixtures
import XCTest

/// `--version`: batond and baton print the one version both are built with.
final class VersionTests: XCTestCase {
    private func run(_ product: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = ServiceSession.product(product)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    func testBothProgramsPrintTheOneVersion() throws {
        for product in ["batond", "baton"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: ServiceSession.product(product).path),
                              "\(product) is not built: run `swift build --build-tests` first")
            let result = try run(product, ["--version"])
            XCTAssertEqual(result.status, 0, "\(product) --version: \(result.output)")
            XCTAssertEqual(result.output, BatonVersion.string + "\n", "\(product) --version")
        }
        XCTAssertNotNil(BatonVersion.string.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+/), "MAJOR.MINOR.PATCH: \(BatonVersion.string)")
    }

    func testHelpMentionsVersion() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: ServiceSession.product("baton").path))
        let help = try run("baton", ["--help"])
        XCTAssertTrue(help.output.contains("--version"), help.output)
    }
}
