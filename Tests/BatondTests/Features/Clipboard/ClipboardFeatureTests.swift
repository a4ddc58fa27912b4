@testable import batond
import BatonPeer
import ServiceFixtures
import XCTest

/// The clipboard's rules over an in-process link (``InProcessNetwork``) with a scripted
/// clipboard: what is announced to whom, what a fetch gets, and how a promise here ends.
@MainActor
final class ClipboardFeatureTests: InProcessNetworkTestCase {
    private var feature: ClipboardFeature { fixture.network.features.clipboard }
    private var clipboard: ScriptedClipboard!
    private let text = "text/plain;charset=utf-8"

    override func setUp() async throws {
        try await super.setUp()
        clipboard = ScriptedClipboard()
        feature.start(with: clipboard)
    }

    /// The first announcement `device` received.
    private func offer(to device: LinkedTestDevice) async throws -> PeerClipboardOffer {
        let offer = await device.first { if case .clipboardOffer(let offer) = $0 { offer } else { nil } }
        return try XCTUnwrap(offer, "an announcement arrives")
    }

    /// Checks that `device`'s fetch `request` was answered `expected`.
    private func expectAnswers(_ request: UInt32, to device: LinkedTestDevice, _ expected: [PeerClipboardAnswer],
                               file: StaticString = #filePath, line: UInt = #line) async {
        let found = await answers(to: request, from: device)
        XCTAssertEqual(found, expected, file: file, line: line)
    }

    /// Pumps the main loop until `condition` holds, failing after `timeout` seconds.
    private func expect(_ what: String, timeout: Double = 5, file: StaticString = #filePath, line: UInt = #line,
                        _ condition: () -> Bool) async {
        let held = await pumpMainLoop(timeout: timeout, until: condition)
        XCTAssertTrue(held, what, file: file, line: line)
    }

    private func answers(to request: UInt32, from device: LinkedTestDevice) async -> [PeerClipboardAnswer] {
        var found: [PeerClipboardAnswer] = []
        _ = await pumpMainLoop(timeout: 5) {
            found = device.received.compactMap { if case .clipboardData(request, let answer) = $0 { answer } else { nil } }
            if case .failed? = found.last { return true }
            if case .part(let offset, let total, let bytes)? = found.last { return Int(offset) + bytes.count == Int(total) }
            return false
        }
        return found
    }

    private func isOffer(_ message: PeerMessage) -> Bool {
        if case .clipboardOffer = message { true } else { false }
    }

    func testACopyIsAnnouncedTypesOnlyToPairedDevicesThatUnderstandIt() async throws {
        let phone = try await fixture.link()
        let old = try await fixture.link(name: "Old laptop", capabilities: [PeerCapability.renames])
        let stranger = try await fixture.link(paired: false, name: "Stranger")
        clipboard.copy([text: Array("hello".utf8), "image/png": [1, 2], "text/uri-list": Array("https://example.org/x.png\r\n".utf8),
                        "x-kde-passwordManagerHint": Array("public".utf8), "application/x-baton-files": []],
                       types: [text, "UTF8_STRING", "image/png", "text/uri-list", "x-kde-passwordManagerHint", text, "application/x-baton-files"])
        let announced = try await offer(to: phone)
        XCTAssertEqual(announced.types, [text, "image/png", "text/uri-list"], "X11 targets, hints and Baton's own types are left out; a list of links is kept")
        XCTAssertEqual(announced.lifetime, 120)
        XCTAssertTrue(PeerClipboardOffer.isToken(announced.token))
        XCTAssertEqual(clipboard.reads.map(\.type), ["text/uri-list"], "before a paste, only the list is read, to tell links from files")
        XCTAssertEqual(clipboard.reads.first?.limit, 64 << 10)
        _ = await pumpMainLoop(timeout: 0.3) { false }
        XCTAssertFalse(old.received.contains(where: isOffer), "a device without the capability is told nothing")
        XCTAssertFalse(stranger.received.contains(where: isOffer), "an unpaired device learns nothing")
    }

    func testAFileListThatCannotBeReadIsNotAnnounced() async throws {
        let phone = try await fixture.link()
        clipboard.copy([text: Array("/home/ana/secret plans.odt".utf8)], types: [text, "text/uri-list"])
        let announced = try await offer(to: phone)
        XCTAssertEqual(announced.types, [text], "a list the app did not give could name local files: it is left out")
        XCTAssertEqual(clipboard.reads.map(\.type), ["text/uri-list"])
    }

    func testADeviceThatLinksLaterHearsOfTheLiveCopyForTheSecondsLeft() async throws {
        feature.lifetime = 5
        clipboard.copy([text: Array("hello".utf8)])
        _ = await pumpMainLoop(timeout: 1.2) { false }
        let laptop = try await fixture.link(name: "Late laptop")
        let announced = try await offer(to: laptop)
        XCTAssertLessThanOrEqual(announced.lifetime, 4)
        XCTAssertGreaterThanOrEqual(announced.lifetime, 1)
    }

    func testASecretCopyIsNotAnnouncedAndWithdrawsTheLastOne() async throws {
        let phone = try await fixture.link()
        clipboard.copy([text: Array("hello".utf8)])
        let announced = try await offer(to: phone)
        let start = phone.received.count
        clipboard.copy([text: Array("hunter2".utf8)], secret: true)
        let withdrawn = await phone.first(after: start) { if case .clipboardWithdraw(let token) = $0 { token } else { nil } }
        XCTAssertEqual(withdrawn, announced.token)
        XCTAssertFalse(phone.received.dropFirst(start).contains(where: isOffer), "the secret is never announced")

        phone.send(.clipboardFetch(request: 1, token: announced.token, type: text))
        await expectAnswers(1, to: phone, [.failed(.expired)])
        XCTAssertTrue(clipboard.reads.isEmpty, "the secret is never read")
    }

    func testADeviceTheClipboardIsNotSharedWithIsToldNothingAndRefused() async throws {
        let phone = try await fixture.link()
        let laptop = try await fixture.link(name: "Laptop")
        fixture.delegate.clipboardRefused = [laptop.deviceID]
        clipboard.copy([text: Array("hello".utf8)])
        let announced = try await offer(to: phone)
        XCTAssertFalse(laptop.received.contains(where: isOffer))
        laptop.send(.clipboardFetch(request: 3, token: announced.token, type: text))
        await expectAnswers(3, to: laptop, [.failed(.refused)])
        XCTAssertTrue(clipboard.reads.isEmpty)

        laptop.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: [.init(type: text)], lifetime: 60)))
        _ = await pumpMainLoop(timeout: 0.3) { false }
        XCTAssertTrue(clipboard.promises.isEmpty, "its copies are not taken either")

        let start = phone.received.count
        fixture.delegate.clipboardRefused = [laptop.deviceID, phone.deviceID]
        feature.policyChanged()
        let withdrawn = await phone.first(after: start) { if case .clipboardWithdraw(let token) = $0 { token } else { nil } }
        XCTAssertEqual(withdrawn, announced.token, "turned off, the live copy is withdrawn")
    }

    func testAPasteReadsTheClipboardThenAndGetsItInParts() async throws {
        let phone = try await fixture.link()
        let image = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        clipboard.copy(["image/png": image, text: Array("caption".utf8)])
        let announced = try await offer(to: phone)
        phone.send(.clipboardFetch(request: 9, token: announced.token, type: "image/png"))
        let parts = await answers(to: 9, from: phone)
        XCTAssertEqual(parts.count, 2)
        XCTAssertEqual(parts.flatMap { answer -> [UInt8] in if case .part(_, _, let bytes) = answer { bytes } else { [] } }, image)
        XCTAssertEqual(clipboard.reads.map(\.type), ["image/png"])
        XCTAssertEqual(clipboard.reads.first?.limit, PeerClipboardOffer.maximumDataSize)
    }

    func testALargeCopyIsServedWindowByWindowFromOneRead() async throws {
        let phone = try await fixture.link()
        let laptop = try await fixture.link(name: "Laptop")
        let image = (0..<(5 << 20) / 2).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        clipboard.copy(["image/png": image])
        let announced = try await offer(to: phone)
        var joined: [UInt8] = []
        var request: UInt32 = 20
        while joined.count < image.count {
            let start = phone.received.count
            phone.send(.clipboardFetch(request: request, token: announced.token, type: "image/png", offset: UInt32(joined.count)))
            let windowStart = UInt32(joined.count)
            var parts: [PeerClipboardAnswer] = []
            _ = await pumpMainLoop(timeout: 5) {
                parts = phone.received.dropFirst(start).compactMap { if case .clipboardData(request, let answer) = $0 { answer } else { nil } }
                return parts.last?.endsWindow(from: windowStart) == true
            }
            XCTAssertLessThanOrEqual(parts.count, 6, "one window a fetch")
            for case .part(_, _, let bytes) in parts { joined += bytes }
            request += 1
            if parts.isEmpty { break }
        }
        XCTAssertTrue(joined == image, "the windows join into the copy (\(joined.count) of \(image.count) bytes)")
        XCTAssertEqual(request, 23, "three windows")
        XCTAssertEqual(clipboard.reads.count, 1, "read once, for the first")

        let laptopsToken = try await offer(to: laptop).token
        laptop.send(.clipboardFetch(request: 1, token: laptopsToken, type: "image/png", offset: 1 << 20))
        await expectAnswers(1, to: laptop, [.failed(.unreadable)])
    }

    func testALargePromiseIsFetchedWindowByWindow() async throws {
        let phone = try await fixture.link()
        let token = PeerClipboardOffer.makeToken()
        phone.send(.clipboardOffer(PeerClipboardOffer(token: token, items: [.init(type: "image/png")], lifetime: 60)))
        await expect("the announcement is promised") { self.clipboard.holdsPromise }
        let image = (0..<(5 << 20) / 2).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let paste = Outcome { try await self.clipboard.paste("image/png") }
        var offsets: [UInt32] = []
        var answered = 0
        let done = await pumpMainLoop(timeout: 10) {
            for case .clipboardFetch(let request, _, _, let offset) in phone.received.dropFirst(answered) {
                offsets.append(offset)
                for part in PeerClipboardAnswer.parts(of: image, from: Int(offset)) { phone.send(.clipboardData(request: request, part)) }
            }
            answered = phone.received.count
            return offsets.count == 3 && self.feature.summary.contains("pasting") == false
        }
        XCTAssertTrue(done)
        XCTAssertEqual(offsets, [0, 1 << 20, 2 << 20], "each fetch asks from where the last window ended")
        let pasted = try await paste.get()
        XCTAssertTrue(pasted == image, "the paste gets the whole copy")
    }

    func testUnknownTokensOtherTypesAndContentOverTheCapAreRefused() async throws {
        let phone = try await fixture.link()
        clipboard.copy([text: Array("hello".utf8), "image/png": Array(repeating: 1, count: PeerClipboardOffer.maximumDataSize + 1)])
        let announced = try await offer(to: phone)
        phone.send(.clipboardFetch(request: 1, token: PeerClipboardOffer.makeToken(), type: text))
        phone.send(.clipboardFetch(request: 2, token: announced.token, type: "text/html"))
        phone.send(.clipboardFetch(request: 3, token: announced.token, type: "image/png"))
        await expectAnswers(1, to: phone, [.failed(.expired)])
        await expectAnswers(2, to: phone, [.failed(.typeNotOffered)])
        await expectAnswers(3, to: phone, [.failed(.tooLarge)])
        XCTAssertFalse(phone.isClosed, "a refused fetch is no protocol error")
    }

    func testAnAnnouncementExpiresAndIsWithdrawn() async throws {
        feature.lifetime = 1
        let phone = try await fixture.link()
        clipboard.copy([text: Array("hello".utf8)])
        let announced = try await offer(to: phone)
        XCTAssertEqual(announced.lifetime, 1)
        let withdrawn = await phone.first(timeout: 3) { if case .clipboardWithdraw(let token) = $0 { token } else { nil } }
        XCTAssertEqual(withdrawn, announced.token)
        phone.send(.clipboardFetch(request: 4, token: announced.token, type: text))
        await expectAnswers(4, to: phone, [.failed(.expired)])
    }

    func testAnAnnouncementBecomesAPromiseFetchedOnlyOnPaste() async throws {
        let phone = try await fixture.link()
        let token = PeerClipboardOffer.makeToken()
        phone.send(.clipboardOffer(PeerClipboardOffer(token: token, items: [.init(type: text), .init(type: "image/png")], lifetime: 60)))
        await expect("the announcement is promised") { self.clipboard.promises.count == 1 }
        XCTAssertEqual(clipboard.promises.first, [text, "image/png"])
        XCTAssertFalse(phone.received.contains { if case .clipboardFetch = $0 { true } else { false } }, "nothing is fetched before a paste")

        let image = (0..<250_000).map { UInt8(truncatingIfNeeded: $0) }
        let paste = Outcome { try await self.clipboard.paste("image/png") }
        let fetch = await phone.first { if case .clipboardFetch(let request, let token, let type, _) = $0 { (request, token, type) } else { nil } }
        let asked = try XCTUnwrap(fetch)
        XCTAssertEqual(asked.1, token)
        XCTAssertEqual(asked.2, "image/png")
        for part in PeerClipboardAnswer.parts(of: image) { phone.send(.clipboardData(request: asked.0, part)) }
        let pasted = try await paste.get()
        XCTAssertEqual(pasted, image)
        XCTAssertFalse(feature.holdsState(for: phone.deviceID))

        let refused = Outcome { try await self.clipboard.paste(self.text) }
        let second = await phone.first { if case .clipboardFetch(let request, _, let type, _) = $0, type == self.text { request } else { nil } }
        phone.send(.clipboardData(request: try XCTUnwrap(second), .failed(.unreadable)))
        do {
            _ = try await refused.get()
            XCTFail("a refused paste is empty")
        } catch let error as ClipboardError {
            guard case .unavailable = error else { return XCTFail("\(error)") }
        }
    }

    func testAWithdrawalTheDevicesUnlinkOrALocalCopyEndsThePromise() async throws {
        let phone = try await fixture.link()
        let first = PeerClipboardOffer.makeToken()
        phone.send(.clipboardOffer(PeerClipboardOffer(token: first, items: [.init(type: text)], lifetime: 60)))
        await expect("the announcement is promised") { self.clipboard.holdsPromise }
        phone.send(.clipboardWithdraw(token: PeerClipboardOffer.makeToken()))
        _ = await pumpMainLoop(timeout: 0.3) { false }
        XCTAssertTrue(clipboard.holdsPromise, "another token withdraws nothing")
        phone.send(.clipboardWithdraw(token: first))
        await expect("the withdrawal ends the promise") { self.clipboard.withdrawals == 1 }

        phone.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: [.init(type: text)], lifetime: 60)))
        await expect("the announcement is promised") { self.clipboard.holdsPromise }
        let pasteAfterCopy = feature.promise.map { promise in { try await self.feature.fetch(self.text, token: promise.token, from: promise.deviceID) } }
        clipboard.copy([text: Array("mine".utf8)])
        XCTAssertNil(feature.promise, "the local copy wins")
        do {
            _ = try await XCTUnwrap(pasteAfterCopy)()
            XCTFail("the old promise is not fetched")
        } catch let error as ClipboardError {
            XCTAssertEqual(error, .changed)
        }

        let laptop = try await fixture.link(name: "Laptop")
        laptop.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: [.init(type: text)], lifetime: 60)))
        await expect("the announcement is promised") { self.clipboard.holdsPromise }
        laptop.link.close("gone")
        await expect("its device's link closing ends the promise") { self.clipboard.withdrawals == 2 }
    }

    func testNoCopyGoesBackToTheDeviceItCameFrom() async throws {
        let phone = try await fixture.link()
        phone.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: [.init(type: text)], lifetime: 60)))
        await expect("the announcement is promised") { self.clipboard.holdsPromise }
        clipboard.copy([text: Array("theirs".utf8)], promise: true)
        _ = await pumpMainLoop(timeout: 0.3) { false }
        XCTAssertFalse(phone.received.contains(where: isOffer), "another device's promise on this display is not announced")
        XCTAssertNil(feature.promise, "it replaced this device's")

        phone.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: [.init(type: text)], lifetime: 60)))
        await expect("the next announcement is promised") { self.clipboard.holdsPromise }
        let paste = Outcome { try await self.clipboard.paste(self.text) }
        let fetch = await phone.first { if case .clipboardFetch(let request, _, _, _) = $0 { request } else { nil } }
        for part in PeerClipboardAnswer.parts(of: Array("theirs".utf8)) { phone.send(.clipboardData(request: try XCTUnwrap(fetch), part)) }
        _ = try await paste.get()
        clipboard.copy([text: Array("theirs".utf8)])
        _ = await pumpMainLoop(timeout: 0.3) { false }
        XCTAssertFalse(phone.received.contains(where: isOffer), "what was just pasted, copied again at once (a clipboard manager), is not announced back")
        XCTAssertNil(feature.promise)

        _ = await pumpMainLoop(timeout: ClipboardFeature.repeatedPasteWindow + 0.1) { false }
        clipboard.copy([text: Array("mine".utf8)])
        _ = try await offer(to: phone)
    }

    func testAnotherDevicesCopyEndsThisDevicesOffer() async throws {
        let phone = try await fixture.link()
        let laptop = try await fixture.link(name: "Laptop")
        clipboard.copy([text: Array("mine".utf8)])
        let mine = try await offer(to: laptop)
        phone.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: [.init(type: text)], lifetime: 60)))
        await expect("the phone's copy is promised") { self.clipboard.holdsPromise }
        let withdrawn = await laptop.first { if case .clipboardWithdraw(let token) = $0 { token } else { nil } }
        XCTAssertEqual(withdrawn, mine.token, "this device's copy is no longer on its clipboard, so no longer offered")
        laptop.send(.clipboardFetch(request: 1, token: mine.token, type: text))
        await expectAnswers(1, to: laptop, [.failed(.expired)])
        XCTAssertTrue(clipboard.reads.isEmpty, "the phone's copy is never read for the laptop as this device's")
    }

    func testAPromiseExpiresAfterTheShorterLifetime() async throws {
        feature.lifetime = 1
        let phone = try await fixture.link()
        phone.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: [.init(type: text)], lifetime: 120)))
        await expect("the announcement is promised") { self.clipboard.holdsPromise }
        await expect("the promise expires", timeout: 3) { self.clipboard.withdrawals == 1 }
        XCTAssertFalse(clipboard.holdsPromise, "never left pointing at a copy that cannot be fetched")
    }

    func testAFloodOfAnnouncementsIsBounded() async throws {
        let phone = try await fixture.link()
        for _ in 0..<200 {
            phone.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(), items: [.init(type: text)], lifetime: 60)))
        }
        await expect("the first announcements are promised") { self.clipboard.promises.count == ClipboardFeature.maximumOffersPerMinute }
        _ = await pumpMainLoop(timeout: 0.5) { false }
        XCTAssertEqual(clipboard.promises.count, ClipboardFeature.maximumOffersPerMinute)
        XCTAssertFalse(phone.isClosed)
    }
}
