import Foundation
import ServiceFixtures
import XCTest

/// `baton pair` prints the commands the person types next: with names that hold spaces and
/// quotes, each command, typed into a shell as printed, still pairs the two devices.
final class PairCommandTests: XCTestCase {
    private var devices: DevicePair!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        devices = try DevicePair(fixedNames: false)
    }

    override func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 { devices?.printLogs() }
        devices?.tearDown()
    }

    /// Runs `line` in a shell on `session`, with `baton` found on `PATH`, as a person would.
    private func type(_ line: String, on session: ServiceSession) throws -> CommandResult {
        let folder = ServiceSession.product("baton").deletingLastPathComponent().path
        return try session.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "PATH=\"$0:$PATH\" \(line)", folder])
    }

    func testThePrintedCommandsQuoteNamesAndPairAsTyped() throws {
        XCTAssertEqual(try devices.a.baton(["settings", "name", "Study desktop"]).status, 0)
        XCTAssertEqual(try devices.b.baton(["settings", "name", "Kid's laptop"]).status, 0)
        // Unpaired, B learns A's new name from A's next hello: B links again.
        devices.batondB.stop()
        try devices.startB()
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.devices.device(self.devices.idA, on: self.devices.b)?["name"] as? String == "Study desktop"
        })
        let request = try devices.b.baton(["pair", "Study desktop"])
        XCTAssertEqual(request.status, 0, request.errorOutput)
        let lines = request.output.split(separator: "\n").map(String.init)
        let onA = try XCTUnwrap(lines.first { $0.hasPrefix("Type it on Study desktop:") }, request.output)
        let onB = try XCTUnwrap(lines.first { $0.hasPrefix("Then type here the code Study desktop shows:") }, request.output)
        XCTAssertTrue(onA.hasSuffix(#"baton pair --confirm 'Kid'\''s laptop' "# + String(onA.suffix(6))), onA)
        XCTAssertTrue(onB.hasSuffix("baton pair --confirm 'Study desktop' CODE"), onB)

        var codeA: String?
        XCTAssertTrue(waitUntil(timeout: 5) {
            codeA = try self.devices.device(self.devices.idB, on: self.devices.a)?["pairing-code"] as? String
            return codeA != nil
        })
        let commandOnA = String(onA[try XCTUnwrap(onA.range(of: "baton pair")).lowerBound...])
        let commandOnB = String(onB[try XCTUnwrap(onB.range(of: "baton pair")).lowerBound...])
        let typedOnA = try type(commandOnA, on: devices.a)
        XCTAssertEqual(typedOnA.status, 0, typedOnA.errorOutput)
        let typedOnB = try type(commandOnB.replacingOccurrences(of: "CODE", with: try XCTUnwrap(codeA)), on: devices.b)
        XCTAssertEqual(typedOnB.status, 0, typedOnB.errorOutput)
        XCTAssertTrue(typedOnB.output.contains("Paired with Study desktop"), typedOnB.output)
    }
}
