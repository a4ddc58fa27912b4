import Foundation
import ServiceFixtures
import XCTest

/// Universal Clipboard between two Wayland desktops: each device a batond on its own bus in a
/// headless sway of its own, with the real `wl-copy` and `wl-paste` (wl-clipboard) as the
/// apps that copy and paste; batond uses the compositor's data-control protocol.
final class UniversalClipboardWaylandTests: XCTestCase {
    private var desktopA: WaylandSession!
    private var desktopB: WaylandSession!
    private var devices: DevicePair!
    private var processes: [Process] = []
    private var folder: URL!

    override func setUpWithError() throws {
        if let missing = WaylandSession.missingRequirement { throw XCTSkip(missing) }
        for tool in ["wl-copy", "wl-paste"] where !FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)") {
            throw XCTSkip("\(tool) is missing (scripts/setup.sh installs wl-clipboard)")
        }
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("wayland-clipboard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        desktopA = try WaylandSession()
        desktopB = try WaylandSession()
        devices = try DevicePair(environmentA: desktopA.environment.merging(["XDG_SESSION_TYPE": "wayland"]) { $1 },
                                 environmentB: desktopB.environment.merging(["XDG_SESSION_TYPE": "wayland"]) { $1 })
        try devices.pair()
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false { devices?.printLogs() }
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        devices?.tearDown()
        desktopA?.stop()
        desktopB?.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func testTextAndAnImageCopiedOnAArePastedOnB() throws {
        let lineA = try status(of: devices.a)
        XCTAssertTrue(lineA.contains("Wayland clipboard"), "A uses its compositor's clipboard: \(lineA)")
        try copy(Array("Lunch on Friday".utf8), type: "text/plain;charset=utf-8", on: desktopA)
        try waitForPromise(on: devices.b, of: "alpha")
        XCTAssertFalse(devices.batondA.log.contains("pasted this device's copy"), "nothing is fetched before a paste")
        let started = Date()
        let text = try paste("text/plain;charset=utf-8", on: desktopB)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(String(decoding: text, as: UTF8.self), "Lunch on Friday")
        XCTAssertLessThan(took, 2)
        print("UniversalClipboardWaylandTests: text pasted on B in \(Int(took * 1000)) ms (wl-paste's start included)")

        var image = [UInt8](repeating: 0, count: 3 << 20)
        for index in image.indices { image[index] = UInt8.random(in: 0...255) }
        Thread.sleep(forTimeInterval: 0.6)
        try copy(image, type: "image/png", on: desktopA)
        try waitForPromise(on: devices.b, of: "alpha", types: "image/png")
        let imageStarted = Date()
        let pasted = try paste("image/png", on: desktopB)
        print("UniversalClipboardWaylandTests: a 3 MiB image pasted on B in \(Int(Date().timeIntervalSince(imageStarted) * 1000)) ms")
        XCTAssertTrue(pasted == image, "the image arrives byte for byte (\(pasted.count) of \(image.count) bytes)")
    }

    // MARK: Helpers

    private func status(of session: ServiceSession) throws -> String {
        try DevicePair.clipboardStatus(of: session)
    }

    private func waitForPromise(on session: ServiceSession, of device: String, types: String = "") throws {
        try DevicePair.waitForClipboardPromise(on: session, of: device, types: types)
    }

    private func environment(of desktop: WaylandSession) -> [String: String] {
        desktop.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
    }

    /// Copies `bytes` as `type` with wl-copy on `desktop`, held until another copy replaces it.
    private func copy(_ bytes: [UInt8], type: String, on desktop: WaylandSession) throws {
        let file = folder.appendingPathComponent(UUID().uuidString)
        try Data(bytes).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wl-copy")
        process.arguments = ["--foreground", "--type", type]
        process.environment = environment(of: desktop)
        process.standardInput = try FileHandle(forReadingFrom: file)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
    }

    /// What wl-paste pastes as `type` on `desktop`.
    private func paste(_ type: String, on desktop: WaylandSession) throws -> [UInt8] {
        let output = folder.appendingPathComponent(UUID().uuidString)
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wl-paste")
        process.arguments = ["--no-newline", "--type", type]
        process.environment = environment(of: desktop)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard waitUntil(timeout: 10, { !process.isRunning }) else {
            process.terminate()
            throw FixtureError("wl-paste on B did not end")
        }
        guard process.terminationStatus == 0 else { throw FixtureError("wl-paste ended with \(process.terminationStatus)") }
        return Array(try Data(contentsOf: output))
    }
}
