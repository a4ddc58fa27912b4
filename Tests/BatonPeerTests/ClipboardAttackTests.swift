import BatonBus
import BatonGLib
import BatonPeer
import Foundation
import ServiceFixtures
import XCTest

/// A paired device that attacks the clipboard of a real batond, which watches an Xvfb of
/// its own: a flood of announcements, a list of types no device sends, fetches by unknown,
/// expired and wrong tokens, and answers out of order. Each is refused or bounded; batond
/// keeps answering, and `xclip` on its display pastes nothing it should not.
@MainActor
final class ClipboardAttackTests: BatondPeerTestCase {
    private var display: VirtualDisplay!
    private var processes: [Process] = []
    private var folder: URL!
    private var peer: TestPeer!
    private static let text = "text/plain;charset=utf-8"

    override func setUp() async throws {
        try await super.setUp()
        if let missing = Xclip.missingRequirement { throw XCTSkip(missing) }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("clipboard-attack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        display = try VirtualDisplay()
        session.environmentOverrides["DISPLAY"] = display.name
        session.environmentOverrides["HOME"] = session.root.path
        try startBatond(["--clipboard-lifetime", "3"])
        peer = try await connect(name: "mallory")
        try await peer.pair(with: session)
    }

    override func tearDown() async throws {
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try await super.tearDown()
        display?.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func testTenThousandAnnouncementsAMinuteAreBounded() async throws {
        let pid = try XCTUnwrap(batondPID)
        let cpuBefore = try Self.cpuSeconds(of: pid)
        let started = Date()
        for _ in 0..<10_000 {
            peer.link.send(.clipboardOffer(PeerClipboardOffer(token: PeerClipboardOffer.makeToken(),
                                                             items: [.init(type: Self.text)], lifetime: 120)))
        }
        let drained = await pumpMainLoop(timeout: 30) { self.log.contains("more than 30 copies a minute") }
        XCTAssertTrue(drained, "batond says it drops the rest")
        let answering = Date()
        XCTAssertNoThrow(try status(), "batond keeps answering")
        let statusTook = Date().timeIntervalSince(answering)
        _ = await pumpMainLoop(timeout: 2) { false }
        let took = Date().timeIntervalSince(started)
        let cpu = try Self.cpuSeconds(of: pid) - cpuBefore
        let taken = log.components(separatedBy: "mallory announced a copy").count - 1
        print("ClipboardAttackTests: 10 000 announcements: \(taken) taken, `baton status` answered in \(Int(statusTook * 1000)) ms, \(String(format: "%.2f", cpu)) s of batond's CPU in \(String(format: "%.1f", took)) s")
        XCTAssertLessThanOrEqual(taken, 30, "at most 30 a minute become this device's clipboard")
        XCTAssertGreaterThan(taken, 0)
        XCTAssertEqual(log.components(separatedBy: "more than 30 copies a minute").count - 1, 1, "said once, not 9 970 times")
        XCTAssertLessThan(cpu, 5, "the flood costs batond little")
        XCTAssertLessThan(statusTook, 2)
        XCTAssertFalse(peer.isClosed, "a paired device is bounded, not cut off")
    }

    func testAListOfTypesNoDeviceSendsClosesTheLinkAndTakesNothing() async throws {
        let types: [[String: BusValue]] = (0..<1_000).map { ["type": .string("text/x-\($0)")] }
        let record: [String: BusValue] = ["token": .string(PeerClipboardOffer.makeToken()), "lifetime": .uint32(60), "types": .dictionaries(types)]
        peer.link.send(frame: PeerFrame.encode(kind: PeerMessage.Kind.clipboardOffer.rawValue, body: BusValue.serialize(record: record)))
        let closed = await pumpMainLoop(timeout: 5) { self.peer.isClosed }
        XCTAssertTrue(closed, "a message no device sends ends the link")
        let line = try status()
        XCTAssertFalse(line.contains("ready to paste"), "and becomes no promise: \(line)")
        XCTAssertTrue(log.contains("\"types\" must be a list of 1 to 16 records"), "batond says why")
    }

    func testFetchesByUnknownExpiredOrWrongTokensAndTypesAreRefused() async throws {
        let start = peer.received.count
        processes.append(try Xclip.copy(Array("the real copy".utf8), on: display.name, in: folder))
        let offer = await peer.first(after: start) { if case .clipboardOffer(let offer) = $0 { offer } else { nil } }
        let token = try XCTUnwrap(offer?.token, "batond announces its copy")
        XCTAssertEqual(offer?.types, [Self.text])

        let unknown = await fetch(token: PeerClipboardOffer.makeToken(), type: Self.text, request: 1)
        XCTAssertEqual(unknown, [.failed(.expired)], "an unknown token gets nothing")
        let otherType = await fetch(token: token, type: "image/png", request: 2)
        XCTAssertEqual(otherType, [.failed(.typeNotOffered)])
        let real = await fetch(token: token, type: Self.text, request: 3)
        XCTAssertEqual(real, PeerClipboardAnswer.parts(of: Array("the real copy".utf8)), "the right token and type get the copy (so the refusals can fail)")

        _ = await pumpMainLoop(timeout: 3.5) { false }
        let expired = await fetch(token: token, type: Self.text, request: 4)
        XCTAssertEqual(expired, [.failed(.expired)], "after its lifetime, the token gets nothing")
        XCTAssertFalse(log.contains("the real copy"), "nothing of the content is logged")
    }

    func testCopiedFilesGiveNothingPastTheirEndsOrBeyondTheList() async throws {
        let file = session.root.appendingPathComponent("notes.txt")
        try Data("Buy bread".utf8).write(to: file)
        let start = peer.received.count
        processes.append(try Xclip.copy(Array((file.absoluteString + "\r\n").utf8), type: "text/uri-list", on: display.name, in: folder))
        let offer = await peer.first(after: start) { if case .clipboardOffer(let offer) = $0 { offer } else { nil } }
        let token = try XCTUnwrap(offer?.token, "batond announces the copied file")
        XCTAssertEqual(offer?.types, [PeerClipboardFiles.announcedType], "as files, never as its path")

        let list = await fetch(token: token, type: PeerClipboardFiles.announcedType, request: 1)
        guard case .part(_, _, let bytes)? = list.first, list.count == 1 else { return XCTFail("the list: \(list)") }
        XCTAssertEqual(try PeerClipboardFiles(bytes: bytes).files, [.init(name: "notes.txt", size: 9)])
        let whole = await fetch(token: token, type: PeerClipboardFiles.fileType(0), request: 2)
        XCTAssertEqual(whole, [.part(offset: 0, total: 9, bytes: Array("Buy bread".utf8))], "the file (so the refusals below can fail)")

        let pastList = await fetch(token: token, type: PeerClipboardFiles.announcedType, request: 3, offset: UInt32(bytes.count))
        XCTAssertEqual(pastList, [.failed(.unreadable)], "nothing past the list's end, and an answer, not silence")
        let pastFile = await fetch(token: token, type: PeerClipboardFiles.fileType(0), request: 4, offset: 9)
        XCTAssertEqual(pastFile, [.failed(.unreadable)], "nothing past the file's end")
        let beyond = await fetch(token: token, type: PeerClipboardFiles.fileType(1), request: 5)
        XCTAssertEqual(beyond, [.failed(.typeNotOffered)], "no file beyond the list")
        XCTAssertFalse(log.contains("notes.txt"), "no log names the file")
    }

    func testAnswersOutOfOrderLeaveThePasteEmpty() async throws {
        let token = PeerClipboardOffer.makeToken()
        peer.link.send(.clipboardOffer(PeerClipboardOffer(token: token, items: [.init(type: Self.text)], lifetime: 60)))
        let promised = await pumpMainLoop(timeout: 5) { (try? self.status())?.contains("ready to paste") == true }
        XCTAssertTrue(promised)

        let start = peer.received.count
        let (paste, output) = try Xclip.startPaste(on: display.name, in: folder)
        processes.append(paste)
        let asked = await peer.first(after: start) { if case .clipboardFetch(let request, let token, let type, _) = $0 { (request, token, type) } else { nil } }
        let fetch = try XCTUnwrap(asked, "xclip's paste makes batond fetch")
        XCTAssertEqual(fetch.1, token)
        // Every fetch (xclip asks again as STRING when UTF8_STRING fails) is answered out of order.
        var answered: Set<UInt32> = []
        let ended = await pumpMainLoop(timeout: 10) {
            for case .clipboardFetch(let request, _, _, _) in self.peer.received.dropFirst(start) where answered.insert(request).inserted {
                self.peer.link.send(.clipboardData(request: request, .part(offset: 100, total: 200, bytes: Array(repeating: 65, count: 100))))
            }
            return !paste.isRunning
        }
        XCTAssertTrue(ended, "the paste ends")
        XCTAssertTrue((try Data(contentsOf: output)).isEmpty, "and gets nothing of a copy sent out of order")
        XCTAssertTrue(log.contains("out of order"))
        XCTAssertNoThrow(try status(), "batond keeps answering")
    }

    // MARK: Helpers

    private var batondPID: Int32? { batond?.pid }
    private var log: String { batond?.log ?? "" }

    private func status() throws -> String {
        try DevicePair.status(of: session)["clipboard"] as? String ?? ""
    }

    /// The answers to the test device's fetch `request` of `token` as `type`, until the last.
    private func fetch(token: String, type: String, request: UInt32, offset: UInt32 = 0) async -> [PeerClipboardAnswer] {
        let start = peer.received.count
        peer.link.send(.clipboardFetch(request: request, token: token, type: type, offset: offset))
        var found: [PeerClipboardAnswer] = []
        _ = await pumpMainLoop(timeout: 5) {
            found = self.peer.received.dropFirst(start).compactMap { if case .clipboardData(request, let answer) = $0 { answer } else { nil } }
            if case .failed? = found.last { return true }
            if case .part(let offset, let total, let bytes)? = found.last { return Int(offset) + bytes.count == Int(total) }
            return false
        }
        return found
    }

    /// The CPU seconds (user and system) process `pid` has used.
    private static func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try XCTUnwrap(stat.lastIndex(of: ")")))...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
