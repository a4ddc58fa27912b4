import Foundation
import ServiceFixtures
import XCTest
@testable import batond

/// Universal Clipboard between two devices, each a batond on its own bus and its own X
/// server, with Debian's real `xclip` as the apps that copy and paste: a copy on A is pasted
/// on B, its content moving only then; nothing is announced that should not be.
final class UniversalClipboardTests: XCTestCase {
    private var displayA: VirtualDisplay!
    private var displayB: VirtualDisplay!
    private var devices: DevicePair!
    private var processes: [Process] = []
    private var folder: URL!
    private static let text = "text/plain;charset=utf-8"

    /// Seconds an announcement lasts: short for the test of expiry.
    private var lifetime: Int { name.contains("Expires") ? 3 : 120 }
    /// Whether the devices are paired before the test.
    private var paired: Bool { !name.contains("Unpaired") }

    override func setUpWithError() throws {
        if let missing = Xclip.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb"), "Xvfb is missing")
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("universal-clipboard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        displayA = try VirtualDisplay()
        displayB = try VirtualDisplay()
        devices = try DevicePair(batondArguments: ["--clipboard-lifetime", "\(lifetime)"],
                                 displayA: displayA.name, displayB: displayB.name, homesInRoots: name.contains("Files"))
        if paired { try devices.pair() }
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false { devices?.printLogs() }
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        devices?.tearDown()
        displayA?.stop()
        displayB?.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func testTextCopiedOnAIsPastedOnBAndMovesOnlyThen() throws {
        let secretWord = "kumquat-\(UUID().uuidString.prefix(8))"
        let text = String(repeating: "Lunch on Friday at noon, \(secretWord). ", count: 32).prefix(1024)
        try copy(Array(text.utf8), on: displayA)
        try waitForPromise(on: devices.b, of: "alpha")
        XCTAssertFalse(devices.batondA.log.contains("pasted this device's copy"), "nothing is fetched before a paste")
        XCTAssertTrue(try status(of: devices.a).contains("offered to 1 devices"))

        let started = Date()
        let pasted = try paste(on: displayB)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(String(decoding: pasted, as: UTF8.self), String(text), "B pastes what A copied")
        XCTAssertLessThan(took, 2, "the paste arrives within 2 s of asking")
        XCTAssertTrue(waitUntil(timeout: 2) { self.devices.batondA.log.contains("pasted this device's copy: 1024 bytes of \(Self.text)") },
                      "A read it for the paste")
        print("UniversalClipboardTests: 1 KiB of text pasted on B in \(Int(took * 1000)) ms (xclip's start included)")
        for log in [devices.batondA.log, devices.batondB.log] {
            XCTAssertFalse(log.contains(secretWord), "no log holds the content")
        }

        let again = try paste(on: displayB)
        XCTAssertEqual(again, pasted, "a second paste gets the same")

        // A person's next copy, not the pasted text copied again at once (as a clipboard manager
        // would, which is not announced back).
        Thread.sleep(forTimeInterval: 0.6)
        try copy(Array("from beta".utf8), on: displayB)
        try waitForPromise(on: devices.a, of: "beta")
        XCTAssertEqual(String(decoding: try paste(on: displayA), as: UTF8.self), "from beta", "a copy on B goes the other way")
    }

    func testAnImageArrivesByteForByte() throws {
        var image = [UInt8](repeating: 0, count: 5 << 20)
        for index in image.indices { image[index] = UInt8.random(in: 0...255) }
        try copy(image, type: "image/png", on: displayA)
        try waitForPromise(on: devices.b, of: "alpha")
        let targets = String(decoding: try paste(on: displayB, target: "TARGETS"), as: UTF8.self)
        XCTAssertTrue(targets.contains("image/png"), "B's clipboard offers the image: \(targets)")
        let started = Date()
        let pasted = try paste(on: displayB, target: "image/png")
        print("UniversalClipboardTests: a 5 MiB image pasted on B in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        XCTAssertTrue(pasted == image, "the image arrives byte for byte (\(pasted.count) of \(image.count) bytes)")
    }

    func testCopiedFilesArriveInContinuedFromOnBAndPasteAsTheirPaths() throws {
        let pictures = devices.a.root.appendingPathComponent("Pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let photo = pictures.appendingPathComponent("Beach photo.png")
        let notes = devices.a.root.appendingPathComponent("notes.txt")
        try Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255) }).write(to: photo)
        try Data("Buy bread".utf8).write(to: notes)
        // As Files (Nautilus) copies them.
        let list = "copy\n" + [photo, notes].map(\.absoluteString).joined(separator: "\n")
        try copy(Array(list.utf8), type: "x-special/gnome-copied-files", on: displayA)
        try waitForPromise(on: devices.b, of: "alpha")
        XCTAssertTrue(try status(of: devices.a).contains("application/x-baton-files"), "announced as files, never as A's paths")
        XCTAssertFalse(devices.batondA.log.contains("pasted the list"), "nothing read before the paste")

        let started = Date()
        let pasted = String(decoding: try paste(on: displayB, target: "text/uri-list"), as: UTF8.self)
        print("UniversalClipboardTests: 2 files (3 MiB) pasted on B in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        let urls = pasted.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
        XCTAssertEqual(urls.map(\.lastPathComponent), ["Beach photo.png", "notes.txt"], pasted)
        for url in urls {
            XCTAssertTrue(url.path.hasPrefix(devices.b.root.path), "in B's home: \(url.path)")
            XCTAssertTrue(url.path.contains("/Continued from alpha/"), url.path)
        }
        XCTAssertTrue(try Data(contentsOf: urls[0]) == Data(contentsOf: photo), "the photo arrives byte for byte")
        XCTAssertEqual(try String(contentsOf: urls[1], encoding: .utf8), "Buy bread")

        let nautilus = String(decoding: try paste(on: displayB, target: "x-special/gnome-copied-files"), as: UTF8.self)
        XCTAssertEqual(nautilus, "copy\n" + urls.map(\.absoluteString).joined(separator: "\n"), "a file manager pastes the same files")
        XCTAssertEqual(devices.batondA.log.components(separatedBy: "pasted the list of 2 copied files").count - 1, 1, "fetched once")

        // A file in a hidden folder is not offered, nor the copy it is part of.
        let hidden = devices.a.root.appendingPathComponent(".ssh")
        try FileManager.default.createDirectory(at: hidden, withIntermediateDirectories: true)
        try Data("secret key".utf8).write(to: hidden.appendingPathComponent("id_ed25519"))
        try copy(Array((notes.absoluteString + "\r\n" + hidden.appendingPathComponent("id_ed25519").absoluteString).utf8),
                 type: "text/uri-list", on: displayA)
        XCTAssertTrue(waitUntil(timeout: 5) { self.devices.batondA.log.contains("copied files are not announced: a file outside the home folder or in a hidden folder") })
        let lineB = try status(of: devices.b)
        XCTAssertFalse(lineB.contains("ready to paste"), "B's promise was withdrawn: \(lineB)")
    }

    func testAPromiseExpiresAndBsClipboardHoldsWhatItHeldBefore() throws {
        try copy(Array("before".utf8), on: displayB)
        try waitForPromise(on: devices.a, of: "beta")
        try copy(Array("from alpha".utf8), on: displayA)
        try waitForPromise(on: devices.b, of: "alpha")
        XCTAssertTrue(waitUntil(timeout: 8) { try self.status(of: self.devices.b).contains("ready to paste") == false },
                      "the promise expires after 3 s")
        XCTAssertEqual(String(decoding: try paste(on: displayB), as: UTF8.self), "before",
                       "B's clipboard goes back to what it held, never pointing at nothing")
        XCTAssertTrue(devices.batondA.log.contains("this device's copy is no longer offered"))
    }

    @MainActor
    func testASecretHintedCopyIsNeverAnnounced() async throws {
        // A password manager's copy, as KeePassXC makes one: the text and the hint
        // `x-kde-passwordManagerHint: secret` (an X11 owner in this process, marked as an app's).
        let manager = try X11Clipboard(display: displayA.name)
        manager.marksPromises = false
        defer { manager.stop() }
        manager.promise([Self.text, "x-kde-passwordManagerHint"]) { type in
            Array((type == "x-kde-passwordManagerHint" ? "secret" : "hunter2").utf8)
        }
        let heldBack = await pumpMainLoop(timeout: 5) { self.devices.batondA.log.contains("a copy marked secret is not announced") }
        XCTAssertTrue(heldBack, "A noticed the copy and held it back")
        XCTAssertFalse(try status(of: devices.b).contains("ready to paste"))
        XCTAssertFalse(devices.batondB.log.contains("announced a copy"), "B was told nothing")

        manager.promise([Self.text, "x-kde-passwordManagerHint"]) { type in
            Array((type == "x-kde-passwordManagerHint" ? "public" : "hello").utf8)
        }
        let announced = await pumpMainLoop(timeout: 5) { self.devices.batondB.log.contains("announced a copy") }
        XCTAssertTrue(announced, "a hint that says other than secret is announced (so the check above can fail)")
    }

    func testTheSettingOffAnnouncesNothing() throws {
        XCTAssertEqual(try devices.a.baton(["settings", "clipboard", "off"]).status, 0)
        try copy(Array("not shared".utf8), on: displayA)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertTrue(try status(of: devices.a).hasPrefix("off"), "A says the clipboard is off")
        XCTAssertFalse(devices.batondB.log.contains("announced a copy"), "with the setting off, B is told nothing")

        XCTAssertEqual(try devices.a.baton(["settings", "clipboard", "on"]).status, 0)
        XCTAssertEqual(try devices.a.baton(["settings", "clipboard-device", "beta", "off"]).status, 0)
        try copy(Array("not for beta".utf8), on: displayA)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertFalse(devices.batondB.log.contains("announced a copy"), "nor with it off for B alone")

        XCTAssertEqual(try devices.a.baton(["settings", "clipboard-device", "beta", "on"]).status, 0)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(devices.batondB.log.contains("announced a copy"), "turned on again, a copy made while off is not sent")
        try copy(Array("for beta".utf8), on: displayA)
        try waitForPromise(on: devices.b, of: "alpha")
        XCTAssertEqual(String(decoding: try paste(on: displayB), as: UTF8.self), "for beta", "the next copy is")
    }

    func testAnUnpairedDeviceLearnsNothing() throws {
        try copy(Array("private".utf8), on: displayA)
        XCTAssertTrue(waitUntil(timeout: 5) { self.devices.batondA.log.contains("announced a copy") }, "A noticed the copy")
        XCTAssertTrue(devices.batondA.log.contains("to 0 devices"), "and told no device: \(devices.batondA.log.suffix(500))")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertFalse(devices.batondB.log.contains("announced a copy"), "the linked, unpaired B heard nothing")
        XCTAssertFalse(try status(of: devices.b).contains("ready to paste"))
    }

    // MARK: Helpers

    private func status(of session: ServiceSession) throws -> String {
        try DevicePair.clipboardStatus(of: session)
    }

    private func waitForPromise(on session: ServiceSession, of device: String, types: String = "") throws {
        try DevicePair.waitForClipboardPromise(on: session, of: device, types: types)
    }

    /// Copies `bytes` with xclip on `display`, which holds the clipboard until another copy
    /// takes it.
    private func copy(_ bytes: [UInt8], type: String? = nil, on display: VirtualDisplay) throws {
        processes.append(try Xclip.copy(bytes, type: type, on: display.name, in: folder))
    }

    /// What xclip pastes on `display` as `target` (its default: `UTF8_STRING`).
    private func paste(on display: VirtualDisplay, target: String? = nil) throws -> [UInt8] {
        try Xclip.paste(target, on: display.name, in: folder)
    }
}
