import Foundation
import ServiceFixtures
import XCTest

@testable import batond

/// batond's Wayland clipboard against Debian's real `wl-copy` and `wl-paste` (wl-clipboard),
/// in a headless sway of the test's own, through the data-control protocol: copies are
/// noticed with their types and read within a limit, promises are answered only when an app
/// pastes, a withdrawn promise gives the earlier copy back, and this device's own promise is
/// never reported as a copy.
@MainActor
final class WaylandClipboardTests: XCTestCase {
    private static let text = X11ClipboardTargets.utf8Text
    private var session: WaylandSession?
    private var clipboard: WaylandClipboard!
    private var others: [WaylandClipboard] = []
    private var copies: [ClipboardContent] = []
    private var processes: [Process] = []
    private var folder: URL!

    /// The compositor's socket, by its path (the test process is not sway's client runtime).
    private var socket: String {
        guard let session else { return "" }
        return session.clientRuntimeDirectory.appendingPathComponent(session.socketName).path
    }

    override func setUp() async throws {
        for tool in ["wl-copy", "wl-paste"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"),
                              "\(tool) is missing (scripts/setup.sh installs wl-clipboard)")
        }
        if let missing = WaylandSession.missingRequirement { throw XCTSkip(missing) }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("wayland-clipboard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        session = try WaylandSession()
        clipboard = try WaylandClipboard(display: socket)
        clipboard.onCopied = { [weak self] in self?.copies.append($0) }
    }

    override func tearDown() async throws {
        clipboard?.stop()
        for other in others { other.stop() }
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        session?.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func testACopiedTextIsNoticedAndRead() async throws {
        let bytes = Array("Copied on alpha — ünïcode, ✓\n".utf8)
        let started = Date()
        try copyWithWlCopy(bytes)
        let copy = try await nextCopy(within: 2)
        let noticed = Date().timeIntervalSince(started)
        XCTAssertEqual(copy, ClipboardContent(types: [Self.text], isSecret: false))
        let read = try await Outcome { try await self.clipboard.read(Self.text, limit: 1 << 20) }.get()
        XCTAssertEqual(read, bytes)
        print("WaylandClipboardTests: a copy noticed after \(Int(noticed * 1000)) ms (wl-copy's start included)")
    }

    func testWhatTheClipboardHeldAtTheStartIsNoCopyButIsRead() async throws {
        let bytes = Array("Copied before batond started\n".utf8)
        try copyWithWlCopy(bytes)
        _ = try await nextCopy(within: 2)
        let late = try WaylandClipboard(display: socket)
        others.append(late)
        var lateCopies: [ClipboardContent] = []
        late.onCopied = { lateCopies.append($0) }
        let read = try await Outcome { try await late.read(Self.text, limit: 1 << 20) }.get()
        XCTAssertEqual(read, bytes)
        _ = await pumpMainLoop(timeout: 0.3) { false }
        XCTAssertEqual(lateCopies, [], "what the clipboard held at the start is not announced as a copy")
    }

    func testALargeImageIsReadByteForByteWithinItsLimit() async throws {
        let image = randomBytes(3 << 20)
        try copyWithWlCopy(image, type: "image/png")
        let copy = try await nextCopy(within: 2)
        XCTAssertEqual(copy.types, ["image/png"])
        let started = Date()
        let read = try await Outcome { try await self.clipboard.read("image/png", limit: 4 << 20) }.get(timeout: 30)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(read.count, image.count)
        XCTAssertTrue(read == image, "the image arrives byte for byte")
        print("WaylandClipboardTests: 3 MiB read from wl-copy in \(Int(took * 1000)) ms")

        for limit in [1 << 20, 3 << 20 - 1] {
            do {
                _ = try await Outcome { try await self.clipboard.read("image/png", limit: limit) }.get(timeout: 30)
                XCTFail("a read over its limit fails")
            } catch let error as ClipboardError {
                XCTAssertEqual(error, .tooLarge(limit: limit))
            }
        }
        let again = try await Outcome { try await self.clipboard.read("image/png", limit: 4 << 20) }.get(timeout: 30)
        XCTAssertTrue(again == image, "wl-copy answers the next read, whole")
        let missing = Outcome { try await self.clipboard.read("text/html", limit: 1 << 20) }
        do {
            _ = try await missing.get()
            XCTFail("a type not offered is not read")
        } catch let error as ClipboardError {
            XCTAssertEqual(error, .typeNotOffered("text/html"))
        }
    }

    func testAPromiseIsFetchedOnlyWhenAnAppPastes() async throws {
        let text = Array("Promised from beta\n".utf8)
        let image = randomBytes(3 << 20)
        var calls: [String] = []
        clipboard.promise([Self.text, "image/png"]) { type in
            calls.append(type)
            return type == "image/png" ? image : text
        }
        let held = await pumpMainLoop(timeout: 5) { self.clipboard.holdsClipboard }
        XCTAssertTrue(held, "the promise takes the clipboard")

        let types = String(decoding: try await pasteWithWlPaste(["--list-types"]), as: UTF8.self).split(separator: "\n")
        XCTAssertTrue(types.contains("text/plain;charset=utf-8") && types.contains("image/png") && types.contains("UTF8_STRING")
                      && types.contains("text/plain"), "types: \(types)")
        XCTAssertEqual(calls, [], "nothing is fetched before a paste")

        let pasted = try await pasteWithWlPaste(["--type", Self.text])
        XCTAssertEqual(pasted, text)
        XCTAssertEqual(calls, [Self.text])
        let pastedAsString = try await pasteWithWlPaste(["--type", "UTF8_STRING"])
        XCTAssertEqual(pastedAsString, text)
        XCTAssertEqual(calls, [Self.text], "another name of the same text is not fetched again")

        let started = Date()
        let pastedImage = try await pasteWithWlPaste(["--type", "image/png"])
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(pastedImage.count, image.count)
        XCTAssertTrue(pastedImage == image, "the image is pasted byte for byte")
        XCTAssertEqual(calls, [Self.text, "image/png"])
        let again = try await pasteWithWlPaste(["--type", "image/png"])
        XCTAssertEqual(again.count, image.count, "pasted again")
        XCTAssertEqual(calls, [Self.text, "image/png"], "a second paste of the promise is not fetched again")
        _ = await pumpMainLoop(timeout: 0.3) { false }
        XCTAssertEqual(copies, [], "this device's own promise is not reported as a copy")
        print("WaylandClipboardTests: 3 MiB pasted into wl-paste in \(Int(took * 1000)) ms, wl-paste's start included")
    }

    func testAWithdrawnPromiseGivesTheEarlierCopyBack() async throws {
        let earlier = Array("Copied here before the promise\n".utf8)
        try copyWithWlCopy(earlier)
        _ = try await nextCopy(within: 2)
        clipboard.promise([Self.text]) { _ in Array("Promised\n".utf8) }
        let held = await pumpMainLoop(timeout: 5) { self.clipboard.holdsClipboard }
        XCTAssertTrue(held, "the promise takes the clipboard")
        let promised = try await pasteWithWlPaste(["--type", Self.text])
        XCTAssertEqual(promised, Array("Promised\n".utf8))

        clipboard.withdraw()
        let given = try await pasteWithWlPaste(["--type", Self.text])
        XCTAssertEqual(given, earlier, "the earlier copy is back")
        let givenAsText = try await pasteWithWlPaste(["--type", "text/plain"])
        XCTAssertEqual(givenAsText, earlier)

        try copyWithWlCopy(Array("A new copy\n".utf8))
        let newCopy = try await nextCopy(within: 2)
        XCTAssertEqual(newCopy.types, [Self.text])
        XCTAssertFalse(clipboard.holdsClipboard, "a new copy replaces what was given back")
        XCTAssertEqual(copies.count, 2, "only wl-copy's two copies are reported, none of this device's")
    }

    func testAWithdrawnPromiseOverNothingLeavesTheClipboardEmpty() async throws {
        clipboard.promise([Self.text]) { _ in Array("Promised\n".utf8) }
        let held = await pumpMainLoop(timeout: 5) { self.clipboard.holdsClipboard }
        XCTAssertTrue(held, "the promise takes the clipboard")
        let promised = try await pasteWithWlPaste(["--type", Self.text])
        XCTAssertEqual(promised, Array("Promised\n".utf8))
        clipboard.withdraw()
        XCTAssertFalse(clipboard.holdsClipboard)
        let status = try await runWlPaste(["--list-types"], output: folder.appendingPathComponent("empty"))
        XCTAssertNotEqual(status, 0, "nothing to paste")
        XCTAssertEqual(copies, [], "emptying the clipboard is no copy")
    }

    func testACopyAfterAPromiseIsReportedAndEndsIt() async throws {
        var calls = 0
        clipboard.promise([Self.text]) { _ in
            calls += 1
            return Array("Promised\n".utf8)
        }
        let held = await pumpMainLoop(timeout: 5) { self.clipboard.holdsClipboard }
        XCTAssertTrue(held, "the promise takes the clipboard")
        let bytes = Array("Copied over the promise\n".utf8)
        try copyWithWlCopy(bytes)
        let copy = try await nextCopy(within: 2)
        XCTAssertEqual(copy, ClipboardContent(types: [Self.text], isSecret: false))
        let ended = await pumpMainLoop(timeout: 2) { !self.clipboard.holdsClipboard }
        XCTAssertTrue(ended, "the compositor cancels the promise")
        let read = try await Outcome { try await self.clipboard.read(Self.text, limit: 1 << 20) }.get()
        XCTAssertEqual(read, bytes, "a read gets wl-copy's copy, not the promise")
        let pasted = try await pasteWithWlPaste(["--type", Self.text])
        XCTAssertEqual(pasted, bytes)
        XCTAssertEqual(calls, 0)
    }

    func testAnotherBatondsPromiseIsKnownAsOne() async throws {
        let other = try WaylandClipboard(display: socket)
        others.append(other)
        other.promise([Self.text]) { _ in Array("from the other device".utf8) }
        let copy = try await nextCopy(within: 2)
        XCTAssertEqual(copy, ClipboardContent(types: [Self.text], isSecret: false, isPromise: true), "the marker is no type of the copy's")
    }

    func testASecretHintedCopyIsMarkedSecret() async throws {
        let manager = try WaylandClipboard(display: socket)
        manager.marksPromises = false
        others.append(manager)
        manager.promise([Self.text, "x-kde-passwordManagerHint"]) { type in
            Array((type == "x-kde-passwordManagerHint" ? "secret" : "hunter2").utf8)
        }
        let secret = try await nextCopy(within: 2)
        XCTAssertEqual(secret, ClipboardContent(types: [Self.text], isSecret: true))
        let hint = String(decoding: try await pasteWithWlPaste(["--type", "x-kde-passwordManagerHint"]), as: UTF8.self)
        XCTAssertEqual(hint, "secret", "wl-paste sees the same hint")

        manager.promise([Self.text, "x-kde-passwordManagerHint"]) { type in
            Array((type == "x-kde-passwordManagerHint" ? "public" : "hello").utf8)
        }
        let hintedPublic = try await nextCopy(within: 2)
        XCTAssertEqual(hintedPublic, ClipboardContent(types: [Self.text], isSecret: false), "a hint that says other than secret")

        manager.promise([Self.text, "application/x-nspasteboard-concealed-type"]) { _ in Array("hunter2".utf8) }
        let concealed = try await nextCopy(within: 2)
        XCTAssertEqual(concealed, ClipboardContent(types: [Self.text], isSecret: true))
    }

    func testAPasteThatStopsReadingHoldsNoOtherPasteUp() async throws {
        let image = randomBytes(3 << 20)
        var calls = 0
        clipboard.promise(["image/png"]) { _ in
            calls += 1
            return image
        }
        let held = await pumpMainLoop(timeout: 5) { self.clipboard.holdsClipboard }
        XCTAssertTrue(held, "the promise takes the clipboard")
        // Another client reads the image with a 1 MiB limit, and closes its pipe past it: the
        // writing side fails (EPIPE), and the process goes on.
        let reader = try WaylandClipboard(display: socket)
        others.append(reader)
        do {
            _ = try await Outcome { try await reader.read("image/png", limit: 1 << 20) }.get(timeout: 20)
            XCTFail("a read over its limit fails")
        } catch let error as ClipboardError {
            XCTAssertEqual(error, .tooLarge(limit: 1 << 20))
        }
        let started = Date()
        let pasted = try await pasteWithWlPaste(["--type", "image/png"])
        XCTAssertTrue(pasted == image, "the next paste arrives whole")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "without waiting for the first paste to time out")
        XCTAssertEqual(calls, 1)
    }

    func testAnAppThatDoesNotAnswerTimesTheReadOut() async throws {
        let slow = try WaylandClipboard(display: socket)
        others.append(slow)
        slow.promise([Self.text]) { _ in
            try await Task.sleep(nanoseconds: 3_000_000_000)
            return Array("Too late\n".utf8)
        }
        _ = try await nextCopy(within: 2)
        let reader = try WaylandClipboard(display: socket, timeout: 0.5)
        others.append(reader)
        let started = Date()
        do {
            _ = try await Outcome { try await reader.read(Self.text, limit: 1 << 20) }.get(timeout: 10)
            XCTFail("a read nothing comes for fails")
        } catch let error as ClipboardError {
            XCTAssertEqual(error, .timedOut)
        }
        let took = Date().timeIntervalSince(started)
        XCTAssertTrue((0.4..<2).contains(took), "after its timeout: \(took) s")
    }

    func testACompositorThatGoesAwayEndsTheWatch() async throws {
        try copyWithWlCopy(Array("Copied before the end\n".utf8))
        _ = try await nextCopy(within: 2)
        session?.stop()
        let ended = await pumpMainLoop(timeout: 5) { !self.clipboard.isConnected }
        XCTAssertTrue(ended, "the clipboard notices the compositor is gone")
        do {
            _ = try await Outcome { try await self.clipboard.read(Self.text, limit: 1 << 20) }.get()
            XCTFail("no read without a compositor")
        } catch let error as ClipboardError {
            XCTAssertEqual(error, .unavailable("the Wayland compositor went away"))
        }
        clipboard.promise([Self.text]) { _ in [] }
        _ = await pumpMainLoop(timeout: 0.3) { false }
        XCTAssertFalse(clipboard.holdsClipboard, "no promise without a compositor")
    }

    func testACompositorThatIsNotThereIsUnavailable() throws {
        let missing = folder.appendingPathComponent("wayland-none").path
        XCTAssertThrowsError(try WaylandClipboard(display: missing)) { error in
            guard case .unavailable(let reason) = error as? ClipboardError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("cannot connect"), reason)
        }
    }

    // MARK: Helpers

    /// The next copy onCopied reports, within `seconds`.
    private func nextCopy(within seconds: Double) async throws -> ClipboardContent {
        let before = copies.count
        let reported = await pumpMainLoop(timeout: seconds) { self.copies.count > before }
        guard reported, let copy = copies.last else { throw FixtureError("no copy reported within \(seconds) s") }
        return copy
    }

    /// Copies `bytes` with wl-copy, which holds the clipboard in the foreground until another
    /// app takes it.
    private func copyWithWlCopy(_ bytes: [UInt8], type: String? = nil) throws {
        let file = folder.appendingPathComponent("copy-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        let process = wlClipboardTool("wl-copy", ["--foreground"] + (type.map { ["--type", $0] } ?? []))
        process.standardInput = try FileHandle(forReadingFrom: file)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        processes.append(process)
    }

    /// What wl-paste writes with `arguments` (without the newline it adds to text), the main
    /// loop running meanwhile for this process's side to answer.
    private func pasteWithWlPaste(_ arguments: [String]) async throws -> [UInt8] {
        let output = folder.appendingPathComponent("paste-\(UUID().uuidString)")
        let status = try await runWlPaste(arguments, output: output)
        guard status == 0 else { throw FixtureError("wl-paste \(arguments.joined(separator: " ")) ended with \(status)") }
        return Array(try Data(contentsOf: output))
    }

    private func runWlPaste(_ arguments: [String], output: URL) async throws -> Int32 {
        try Data().write(to: output)
        let process = wlClipboardTool("wl-paste", ["--no-newline"] + arguments)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        processes.append(process)
        guard await pumpMainLoop(timeout: 20, until: { !process.isRunning }) else {
            throw FixtureError("wl-paste \(arguments.joined(separator: " ")) did not end")
        }
        return process.terminationStatus
    }

    private func wlClipboardTool(_ name: String, _ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(name)")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(session?.environment ?? [:]) { $1 }
        environment["DISPLAY"] = nil
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        return process
    }

    private func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
