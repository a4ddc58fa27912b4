import Baton
import BatonBus
import BatonPeer
import Foundation
import FuzzSupport

// Covers what a link does with bytes from a peer: `FrameReader` splitting a stream fed in
// pieces, `PeerFrame` headers, and `PeerMessage(kind:body:)` reading each frame's GVariant
// `a{sv}` record (so `BusValue.deserialize(record:)`, `ActivitySummary(record:)` for offers,
// `UserActivityError(record:)` for failures, `PeerDocument(record:)` and
// `PeerDocumentWithheld(record:)` for payloads, `PeerClipboardOffer(record:)` and
// `PeerClipboardAnswer` for the clipboard's). Errors must be `PeerProtocolError`; the
// frames must not depend on how the stream was cut; every message read must survive its
// own frame.
//
// Input: one control byte (bit 7: an unpaired peer's 4 KiB limit and its kind check;
// bits 0–5: the piece size, 1 to 64), then the stream.

@main
enum PeerFrameHarness: FuzzHarness {
    static func test(_ input: [UInt8]) {
        guard let control = input.first else { return }
        let stream = Array(input.dropFirst())
        let isTrusted = control & 0x80 == 0
        let pieceSize = Int(control & 0x3F) + 1
        let limit = isTrusted ? PeerFrame.maximumBodySize : 4 * 1024

        var reader = FrameReader()
        reader.maximumBodySize = limit
        var frames: [Frame] = []
        var ending = Ending.endOfStream
        reading: for start in stride(from: 0, to: stream.count, by: pieceSize) {
            stream[start..<min(start + pieceSize, stream.count)].withUnsafeBytes { reader.append($0) }
            while true {
                if !isTrusted, let kind = reader.pendingKind, !PeerMessage.isAllowedBeforePairing(kind: kind) {
                    ending = .refusedKind
                    break reading
                }
                guard let next = Fuzz.refused(as: PeerProtocolError.self, "the frame reader", { try reader.next() }) else {
                    ending = .badFrame
                    break reading
                }
                guard let frame = next else { break }
                frames.append(Frame(kind: frame.kind, body: frame.body))
                Fuzz.require(frame.body.count <= limit, "a body of \(frame.body.count) bytes passed the limit")
                if !read(frame.kind, frame.body) {
                    ending = .badMessage
                    break reading
                }
            }
        }
        if isTrusted { checkWhole(stream, gives: frames, ending: ending) }
    }
}

private struct Frame: Equatable {
    let kind: UInt8
    let body: [UInt8]
}

/// Reads one message as a link does; whether the link would go on.
private func read(_ kind: UInt8, _ body: [UInt8]) -> Bool {
    // What a link reads (the body in place) must be what the body as an array reads.
    var dropped: [PeerProtocolError] = []
    let inPlace = try? body.withUnsafeBytes { try PeerMessage(kind: kind, bodyBytes: $0, droppedOffers: &dropped) }
    guard let message = Fuzz.refused(as: PeerProtocolError.self, "a message", { try PeerMessage(kind: kind, body: body) }) else {
        Fuzz.require(inPlace == nil, "the body read in place gave \(String(describing: inPlace)); as an array, an error")
        return false
    }
    Fuzz.require(inPlace == message, "the body read in place gave \(String(describing: inPlace)), not \(message)")
    // A part's bytes may be a list of copied files (the clipboard's files), read as one.
    if case .clipboardData(_, .part(_, _, let bytes)) = message,
       let files = Fuzz.refused(as: PeerProtocolError.self, "a list of copied files", { try PeerClipboardFiles(bytes: bytes) }) {
        Fuzz.require(files.isWithinCaps, "a list of copied files over its caps was read: \(files.files.count) files")
        Fuzz.orFail("a list of copied files does not survive its bytes") {
            Fuzz.require(try PeerClipboardFiles(bytes: files.bytes) == files, "a list of copied files changed on its way")
        }
    }
    Fuzz.require(message.isAllowedBeforePairing == PeerMessage.isAllowedBeforePairing(kind: kind),
                 "\(message) and its kind \(kind) disagree on pairing")
    let frame = message.frame
    var reader = FrameReader()
    frame.withUnsafeBytes { reader.append($0) }
    Fuzz.orFail("\(message) does not survive its own frame") {
        guard let again = try reader.next(), reader.pendingCount == 0 else {
            Fuzz.fail("\(message) does not make one whole frame")
        }
        Fuzz.require(same(try PeerMessage(kind: again.kind, body: again.body), message),
                     "\(message) changed on its way through its own frame")
    }
    return true
}

/// The same message, but for expiration dates, which go through seconds since 1970 and may
/// move by a rounding step.
private func same(_ first: PeerMessage, _ second: PeerMessage) -> Bool {
    guard case .offers(let firstOffers) = first, case .offers(let secondOffers) = second else { return first == second }
    guard firstOffers.count == secondOffers.count else { return false }
    return zip(firstOffers, secondOffers).allSatisfy { one, other in
        var one = one
        var other = other
        let dates = (one.summary.expirationDate, other.summary.expirationDate)
        one.summary.expirationDate = nil
        other.summary.expirationDate = nil
        switch dates {
        case (nil, nil): return one == other
        case (let date?, let otherDate?):
            let difference = abs(date.timeIntervalSince1970 - otherDate.timeIntervalSince1970)
            return one == other && difference <= max(1e-6, abs(date.timeIntervalSince1970) * 1e-12)
        default: return false
        }
    }
}

/// Why reading stopped.
private enum Ending {
    case endOfStream, badFrame, badMessage, refusedKind
}

/// The stream read at once gives the frames it gave in pieces, and fails where it failed.
private func checkWhole(_ stream: [UInt8], gives frames: [Frame], ending: Ending) {
    var reader = FrameReader()
    stream.withUnsafeBytes { reader.append($0) }
    var whole: [Frame] = []
    var failed = false
    do {
        while whole.count <= frames.count, let frame = try reader.next() {
            whole.append(Frame(kind: frame.kind, body: frame.body))
        }
    } catch {
        failed = true
    }
    switch ending {
    case .endOfStream, .badFrame:
        Fuzz.require(whole == frames && failed == (ending == .badFrame),
                     "read at once, the stream gives \(whole.count) frames\(failed ? " and fails" : ""); "
                     + "in pieces, \(frames.count)\(ending == .badFrame ? " and fails" : "")")
    case .badMessage, .refusedKind:
        Fuzz.require(Array(whole.prefix(frames.count)) == frames, "the frames depend on how the stream was cut")
    }
}

extension PeerFrameHarness {
    /// Streams of real messages, each behind a control byte.
    static func seeds() -> [String: [UInt8]] {
        let summary = ActivitySummary(activityType: "org.example.mail.compose", title: "Draft: Lunch",
                                      webpageURL: URL(string: "https://mail.example.org/drafts/1"),
                                      expirationDate: Date(timeIntervalSince1970: 2_000_000_000))
        let nonce = [UInt8](repeating: 7, count: PairingNonce.size)
        let clipboardToken = "00112233445566778899aabbccddeeff"
        let copiedFiles = PeerClipboardFiles(files: [.init(name: "Beach photo.png", size: 3 << 20), .init(name: "notes.txt", size: 9)]).bytes
        let streams: [String: (control: UInt8, messages: [PeerMessage])] = [
            "hello-ping": (0x83, [.hello(PeerHello(deviceID: "0123456789abcdef0123456789abcdef", name: "laptop", port: 48_100)),
                                  .ping, .pong]),
            "pairing": (0x87, [.pairRequest(commitment: PairingNonce.commitment(to: nonce)), .pairAccept(nonce: nonce),
                               .pairReveal(nonce: nonce), .pairConfirm, .pairCancel(reason: "wrong code"), .unpair]),
            "offers": (0x3F, [.offers([PeerOffer(id: "abc123", summary: summary, appID: "org.example.MailComposer",
                                                  teamID: "org.example"),
                                        PeerOffer(id: "def456", summary: ActivitySummary(activityType: "org.example.note"),
                                                  appID: "org.example.Notes", teamID: "org.example")]),
                               .offers([])]),
            "fetch-payload": (0x05, [.fetch(request: 7, activityID: "abc123"),
                                     .payload(request: 7, bytes: Array("BATN".utf8) + [1, 1, 1, 0x61, 0, 1, 0]),
                                     .continued(activityID: "abc123")]),
            "document": (0x05, [.payload(request: 8, bytes: Array("BATN".utf8) + [1, 1, 1, 0x61, 0, 1, 0],
                                         document: PeerDocument(name: "report.md", size: 4096, sha256: Array(repeating: 0x5a, count: 32),
                                                                mimeType: "text/markdown")),
                                .streamOpen(stream: 5, activityID: PeerDocument.streamActivityID(for: "abc123"))]),
            "document-withheld": (0x07, [.payload(request: 9, bytes: Array("BATN".utf8) + [1, 1, 1, 0x61, 0, 1, 0],
                                                  withheld: .undeclaredType("text/plain")),
                                         .payload(request: 10, bytes: [1], withheld: .tooLarge)]),
            "failures": (0x10, [.failure(request: 7, .userInfoTooLarge(size: 100_000, limit: 65_536)),
                                .failure(request: 8, .remoteApplicationTimedOut("slow")), .failure(request: 9, .cancelled)]),
            "unpaired-offers": (0x80, [.offers([])]),
            "streams": (0x0B, [.streamOpen(stream: 3, activityID: "abc123"), .streamOpened(stream: 3),
                               .streamData(stream: 3, bytes: Array("attachments, please".utf8)),
                               .streamCredit(stream: 3, count: 19), .streamEnd(stream: 3),
                               .streamClose(stream: 3, reason: "")]),
            "rename-reach": (0x09, [.renamed(name: "Study laptop"), .reachBack(request: 4),
                                    .reachBackResult(request: 4, problem: "")]),
            "clipboard": (0x0A, [.clipboardOffer(PeerClipboardOffer(token: clipboardToken, items: [
                                    .init(type: "text/plain;charset=utf-8", size: 5), .init(type: "image/png")], lifetime: 120)),
                                 .clipboardFetch(request: 5, token: clipboardToken, type: "text/plain;charset=utf-8", offset: 1 << 20),
                                 .clipboardData(request: 5, .part(offset: 0, total: 5, bytes: Array("hello".utf8))),
                                 .clipboardData(request: 6, .failed(.expired)),
                                 .clipboardWithdraw(token: clipboardToken)]),
            "clipboard-files": (0x0C, [.clipboardData(request: 7, .part(offset: 0, total: UInt32(copiedFiles.count), bytes: copiedFiles))]),
        ]
        var seeds: [String: [UInt8]] = [:]
        for (name, stream) in streams {
            seeds[name] = [stream.control] + stream.messages.flatMap(\.frame)
        }
        seeds["http"] = [0x0F] + Array("GET / HTTP/1.1\r\n\r\n".utf8)
        seeds["version-2"] = [0x00] + PeerFrame.magic + [2, 11, 0, 0, 0, 0]
        seeds["oversized"] = [0x80] + PeerFrame.magic + [1, 1, 0, 0, 0x10, 1]
        return seeds
    }
}
