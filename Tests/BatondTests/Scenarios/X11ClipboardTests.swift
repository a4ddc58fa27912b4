import Foundation
import ServiceFixtures
import XCTest

import CX11

@testable import batond

/// batond's X11 clipboard against Debian's real `xclip`, on an X server of the test's own:
/// copies are noticed with their types, read (large ones in `INCR` chunks) within a limit,
/// promises are answered only when an app pastes, and a withdrawn promise gives the earlier
/// copy back.
@MainActor
final class X11ClipboardTests: XCTestCase {
    private static let text = X11ClipboardTargets.utf8Text
    private var display: VirtualDisplay?
    private var clipboard: X11Clipboard!
    private var others: [X11Clipboard] = []
    private var copies: [ClipboardContent] = []
    private var processes: [Process] = []
    private var folder: URL!

    override func setUp() async throws {
        if let missing = Xclip.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb"), "Xvfb is missing")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("x11-clipboard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let display = try VirtualDisplay()
        self.display = display
        clipboard = try X11Clipboard(display: display.name)
        clipboard.onCopied = { [weak self] in self?.copies.append($0) }
    }

    override func tearDown() async throws {
        clipboard?.stop()
        for other in others { other.stop() }
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        display?.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    func testACopiedTextIsNoticedAndRead() async throws {
        let bytes = Array("Copied on alpha — ünïcode, ✓\n".utf8)
        let started = Date()
        try copyWithXclip(bytes)
        let copy = try await nextCopy(within: 1)
        let noticed = Date().timeIntervalSince(started)
        XCTAssertEqual(copy, ClipboardContent(types: [Self.text], isSecret: false))
        let read = try await Outcome { try await self.clipboard.read(Self.text, limit: 1 << 20) }.get()
        XCTAssertEqual(read, bytes)
        print("X11ClipboardTests: a copy noticed after \(Int(noticed * 1000)) ms (xclip's start included)")
    }

    func testALargeImageIsReadInChunksByteForByteWithinItsLimit() async throws {
        let image = randomBytes(3 << 20)
        try copyWithXclip(image, type: "image/png")
        let copy = try await nextCopy(within: 2)
        XCTAssertEqual(copy.types, ["image/png"])
        let started = Date()
        let read = try await Outcome { try await self.clipboard.read("image/png", limit: 4 << 20) }.get(timeout: 30)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(read.count, image.count)
        XCTAssertTrue(read == image, "the image arrives byte for byte")
        print("X11ClipboardTests: 3 MiB read from xclip (INCR) in \(Int(took * 1000)) ms")

        let tooLarge = Outcome { try await self.clipboard.read("image/png", limit: 1 << 20) }
        do {
            _ = try await tooLarge.get(timeout: 30)
            XCTFail("a read over its limit fails")
        } catch let error as ClipboardError {
            XCTAssertEqual(error, .tooLarge(limit: 1 << 20))
        }
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

        let targets = String(decoding: try await pasteWithXclip(target: "TARGETS"), as: UTF8.self).split(separator: "\n")
        XCTAssertTrue(targets.contains("text/plain;charset=utf-8") && targets.contains("image/png") && targets.contains("UTF8_STRING"),
                      "TARGETS: \(targets)")
        XCTAssertEqual(calls, [], "nothing is fetched before a paste")

        let pasted = try await pasteWithXclip()
        XCTAssertEqual(pasted, text)
        XCTAssertEqual(calls, [Self.text])

        let started = Date()
        let pastedImage = try await pasteWithXclip(target: "image/png")
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(pastedImage.count, image.count)
        XCTAssertTrue(pastedImage == image, "the image is pasted byte for byte")
        XCTAssertEqual(calls, [Self.text, "image/png"])
        let again = try await pasteWithXclip(target: "image/png")
        XCTAssertEqual(again.count, image.count, "pasted again")
        XCTAssertEqual(calls, [Self.text, "image/png"], "a second paste of the promise is not fetched again")
        XCTAssertEqual(copies, [], "this device's own promise is not reported as a copy")
        print("X11ClipboardTests: 3 MiB pasted into xclip (INCR) in \(Int(took * 1000)) ms, xclip's start included")
    }

    func testAWithdrawnPromiseGivesTheEarlierCopyBack() async throws {
        let earlier = Array("Copied here before the promise\n".utf8)
        try copyWithXclip(earlier)
        _ = try await nextCopy(within: 1)
        clipboard.promise([Self.text]) { _ in Array("Promised\n".utf8) }
        let held = await pumpMainLoop(timeout: 5) { self.clipboard.holdsClipboard }
        XCTAssertTrue(held, "the promise takes the clipboard")
        let promised = try await pasteWithXclip()
        XCTAssertEqual(promised, Array("Promised\n".utf8))

        clipboard.withdraw()
        let given = try await pasteWithXclip()
        XCTAssertEqual(given, earlier, "the earlier copy is back")
        let givenAsText = try await pasteWithXclip(target: "UTF8_STRING")
        XCTAssertEqual(givenAsText, earlier)

        try copyWithXclip(Array("A new copy\n".utf8))
        _ = try await nextCopy(within: 1)
        XCTAssertFalse(clipboard.holdsClipboard, "a new copy replaces what was given back")
    }

    func testAWithdrawnPromiseOverNothingLeavesTheClipboardEmpty() async throws {
        clipboard.promise([Self.text]) { _ in Array("Promised\n".utf8) }
        let held = await pumpMainLoop(timeout: 5) { self.clipboard.holdsClipboard }
        XCTAssertTrue(held, "the promise takes the clipboard")
        clipboard.withdraw()
        XCTAssertFalse(clipboard.holdsClipboard)
        do {
            _ = try await pasteWithXclip()
            XCTFail("nothing to paste")
        } catch {}
    }

    func testASecretHintedCopyIsMarkedSecret() async throws {
        let manager = try X11Clipboard(display: display?.name)
        manager.marksPromises = false
        others.append(manager)
        manager.promise([Self.text, "x-kde-passwordManagerHint"]) { type in
            Array((type == "x-kde-passwordManagerHint" ? "secret" : "hunter2").utf8)
        }
        let secret = try await nextCopy(within: 2)
        XCTAssertEqual(secret, ClipboardContent(types: [Self.text], isSecret: true))

        manager.promise([Self.text, "x-kde-passwordManagerHint"]) { type in
            Array((type == "x-kde-passwordManagerHint" ? "public" : "hello").utf8)
        }
        let hintedPublic = try await nextCopy(within: 2)
        XCTAssertEqual(hintedPublic, ClipboardContent(types: [Self.text], isSecret: false), "a hint that says other than secret")

        manager.promise([Self.text, "application/x-nspasteboard-concealed-type"]) { _ in Array("hunter2".utf8) }
        let concealed = try await nextCopy(within: 2)
        XCTAssertEqual(concealed, ClipboardContent(types: [Self.text], isSecret: true))
    }

    func testAnotherBatondsPromiseIsKnownAsOne() async throws {
        let other = try X11Clipboard(display: display?.name)
        others.append(other)
        other.promise([Self.text]) { _ in Array("from the other device".utf8) }
        let copy = try await nextCopy(within: 2)
        XCTAssertEqual(copy, ClipboardContent(types: [Self.text], isSecret: false, isPromise: true), "the marker is no type of the copy's")
        let pasted = try await pasteWithXclip()
        XCTAssertEqual(String(decoding: pasted, as: UTF8.self), "from the other device", "apps paste it as any copy")
    }

    func testARequestorThatGoesAwayMidTransferHoldsNoOtherPasteUp() async throws {
        let image = randomBytes(3 << 20)
        var calls = 0
        clipboard.promise(["image/png"]) { _ in
            calls += 1
            return image
        }
        let held = await pumpMainLoop(timeout: 5) { self.clipboard.holdsClipboard }
        XCTAssertTrue(held, "the promise takes the clipboard")
        // Another client asks for the image, and goes away once told it comes in chunks.
        let quitter = try X11SelectionConnection(display: display?.name)
        let display = try XCTUnwrap(quitter.usableDisplay)
        XConvertSelection(display, quitter.clipboard, quitter.atom("image/png"), quitter.atom("QUITTER"), quitter.window,
                          Time(CurrentTime))
        quitter.flush()
        let told = try await Outcome { await quitter.next(timeout: 5) { $0.type == SelectionNotify } }.get()
        XCTAssertEqual(told?.xselection.property, quitter.atom("QUITTER"))
        XCTAssertEqual(clipboard.pastesUnderway, 1)
        quitter.close()
        let ended = await pumpMainLoop(timeout: 1) { self.clipboard.pastesUnderway == 0 }
        XCTAssertTrue(ended, "the transfer ends when its requestor goes away, before its timeout")

        let pasted = try await pasteWithXclip(target: "image/png")
        XCTAssertTrue(pasted == image, "the next paste arrives whole")
        XCTAssertEqual(calls, 1)
    }

    func testAReadOverItsLimitLeavesTheOwnerFreeForTheNext() async throws {
        let image = randomBytes(3 << 20)
        try copyWithXclip(image, type: "image/png")
        _ = try await nextCopy(within: 2)
        for limit in [1 << 20, 3 << 20 - 1] {
            let started = Date()
            do {
                _ = try await Outcome { try await self.clipboard.read("image/png", limit: limit) }.get(timeout: 20)
                XCTFail("a read over its limit fails")
            } catch let error as ClipboardError {
                XCTAssertEqual(error, .tooLarge(limit: limit))
            }
            let whole = try await Outcome { try await self.clipboard.read("image/png", limit: 4 << 20) }.get(timeout: 20)
            XCTAssertTrue(whole == image, "xclip answers the next read, whole")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, "without waiting for xclip to give up")
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

    /// Copies `bytes` with xclip, which holds the clipboard until another app takes it.
    private func copyWithXclip(_ bytes: [UInt8], type: String? = nil) throws {
        processes.append(try Xclip.copy(bytes, type: type, on: display?.name ?? "", in: folder))
    }

    /// What xclip pastes from the clipboard as `target` (its default: `UTF8_STRING`), the
    /// main loop running meanwhile for this process's side to answer.
    private func pasteWithXclip(target: String? = nil) async throws -> [UInt8] {
        let (process, output) = try Xclip.startPaste(target, on: display?.name ?? "", in: folder)
        processes.append(process)
        let ended = await pumpMainLoop(timeout: 20) { !process.isRunning }
        return try Xclip.pasted(by: process, into: output, waiting: ended)
    }

    private func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
