import Baton
import BatonBus
import BatonGLib

/// What a device first says on a link, before anything else.
///
/// Besides who it is, it says which protocol it speaks and what it can do: a device sends a
/// message that needs a capability only to peers that announced it. A device of protocol 1
/// (the first release) announces neither; it is read as protocol 1 with no capabilities.
public struct PeerHello: Hashable, Sendable {
    /// The sender's device id: it must be the id of the certificate it presented.
    public var deviceID: String
    public var name: String
    /// The port the sender listens on, so the receiver can dial it back later; 0 if none.
    public var port: UInt32
    /// The protocol the sender speaks (``PeerProtocol/version`` for this build).
    public var protocolVersion: UInt32
    /// What the sender can do beyond protocol 1 (``PeerCapability``); unknown ones are kept
    /// and ignored.
    public var capabilities: Set<String>

    public init(deviceID: String, name: String, port: UInt32, protocolVersion: UInt32 = PeerProtocol.version,
                capabilities: Set<String> = PeerProtocol.capabilities) {
        self.deviceID = deviceID
        self.name = name
        self.port = port
        self.protocolVersion = protocolVersion
        self.capabilities = capabilities
    }
}

/// The version and capabilities of the peer protocol this build speaks.
public enum PeerProtocol {
    /// 1: the first release. 2: the hello carries the version and capabilities, and a
    /// message of a kind the receiver does not know is skipped, not fatal.
    public static let version: UInt32 = 2
    /// What this build announces.
    public static let capabilities: Set<String> = [PeerCapability.typedPairingCodes, PeerCapability.renames,
                                                   PeerCapability.reachBack, PeerCapability.continuationStreams,
                                                   PeerCapability.clipboard]
}

/// Names of what a device can do beyond protocol 1.
public enum PeerCapability {
    /// Pairing where each device shows its own code and the person types it on the other.
    public static let typedPairingCodes = "pairing-typed-codes"
    /// ``PeerMessage/renamed(name:)``: a device tells its paired peers its new name.
    public static let renames = "device-renames"
    /// ``PeerMessage/reachBack(request:)``: a paired peer asks to be dialed, to learn
    /// whether its own address can be reached.
    public static let reachBack = "reach-back"
    /// The `stream…` messages: continuation streams relayed over the link.
    public static let continuationStreams = "continuation-streams"
    /// The `clipboard…` messages: what a device's person copied, pasted on another.
    public static let clipboard = "clipboard"
    /// The most capabilities a hello may list, and the longest name.
    public static let maximumCount = 64
    public static let maximumLength = 64
}

/// A current activity as one device offers it to its paired peers: never the userInfo.
public struct PeerOffer: Hashable, Sendable {
    /// The id the origin lists the activity under.
    public var id: String
    public var summary: ActivitySummary
    public var appID: String
    public var teamID: String

    public init(id: String, summary: ActivitySummary, appID: String, teamID: String) {
        self.id = id
        self.summary = summary
        self.appID = appID
        self.teamID = teamID
    }
}

/// The messages of Baton's peer protocol, one per frame.
///
/// A frame's kind says which message it holds; its body is an `a{sv}` record in GVariant's
/// serialized form, with the same fields as the D-Bus API's records. Before pairing, only
/// `hello`, the pairing messages and keepalives are accepted.
public enum PeerMessage: Hashable, Sendable {
    case hello(PeerHello)
    /// The sender asks to pair, committing to its pairing nonce: `commitment` is
    /// ``PairingNonce/commitment(to:)`` of it, revealed only after the receiver's nonce.
    case pairRequest(commitment: [UInt8])
    /// The receiver of a `pairRequest` agrees to pair and sends its own nonce.
    case pairAccept(nonce: [UInt8])
    /// The requester reveals the nonce it committed to; both sides now know the code.
    case pairReveal(nonce: [UInt8])
    /// The sender's user confirmed the verification code.
    case pairConfirm
    /// The sender gave up pairing (wrong code, timeout, or the user declined).
    case pairCancel(reason: String)
    /// The sender forgot the receiver.
    case unpair
    /// The sender's offers now: each replaces all earlier ones, so a missing offer is withdrawn.
    case offers([PeerOffer])
    /// A request for the payload of an offered activity.
    case fetch(request: UInt32, activityID: String)
    /// The encoded activity a `fetch` asked for, with the file it names when the origin
    /// describes one, or why the origin withholds the file it names (a peer of an earlier
    /// build sends neither, and ignores both).
    case payload(request: UInt32, bytes: [UInt8], document: PeerDocument? = nil, withheld: PeerDocumentWithheld? = nil)
    /// Why a `fetch` failed.
    case failure(request: UInt32, UserActivityError)
    /// The receiver's offer `activityID` was continued on the sender.
    case continued(activityID: String)
    /// The sender's person renamed it: the name other devices show from now on.
    case renamed(name: String)
    /// The sender asks the receiver to dial it now, at the address the receiver knows for
    /// it, and to answer with ``reachBackResult(request:problem:)``.
    case reachBack(request: UInt32)
    /// Whether the receiver of a `reachBack` reached the sender: `problem` is empty when it
    /// did, and says why not otherwise.
    case reachBackResult(request: UInt32, problem: String)
    /// The sender's app continues the receiver's offer `activityID` and opens a continuation
    /// stream to the app it came from, numbered `stream` (odd from the device with the lower
    /// id, even from the other).
    case streamOpen(stream: UInt32, activityID: String)
    /// The origin app took the stream: bytes may flow.
    case streamOpened(stream: UInt32)
    /// Bytes of the stream, at most the credit the receiver granted.
    case streamData(stream: UInt32, bytes: [UInt8])
    /// The sender wrote `count` bytes of the stream to its app: the receiver may send that
    /// many more.
    case streamCredit(stream: UInt32, count: UInt32)
    /// The sender's app closed its write half: no more data comes.
    case streamEnd(stream: UInt32)
    /// The stream is over, both ways: `reason` says why when it failed (empty otherwise).
    case streamClose(stream: UInt32, reason: String)
    /// The sender's person copied something: the types it can be pasted as, never the
    /// content; it replaces the sender's earlier announcement.
    case clipboardOffer(PeerClipboardOffer)
    /// The sender's announcement `token` is void: its clipboard changed to something it does
    /// not announce, or the announcement expired.
    case clipboardWithdraw(token: String)
    /// A paste on the sender: the receiver's announced copy `token` as `type`, from byte
    /// `offset` on (0 first; then where the last window of the answer ended).
    case clipboardFetch(request: UInt32, token: String, type: String, offset: UInt32 = 0)
    /// The answer to a `clipboardFetch`: the parts of one window of the content
    /// (``PeerClipboardOffer/maximumWindow`` bytes from the fetch's offset), or why not.
    case clipboardData(request: UInt32, PeerClipboardAnswer)
    case ping
    case pong
    /// A message of a kind this build does not know, from a newer peer: skipped.
    case unknown(kind: UInt8)

    /// The most offers one device sends at once.
    public static let maximumOffers = 64
    /// The most bytes one `streamData` message carries.
    public static let maximumStreamChunk = 240 << 10

    /// The kind of a message, as its frame's first byte gives it: the key a receiver routes by.
    public enum Kind: UInt8, CaseIterable, Sendable {
        case hello = 1, pairRequest, pairConfirm, pairCancel, unpair, offers, fetch, payload, failure, continued,
             ping, pong, pairAccept, pairReveal, renamed, reachBack, reachBackResult,
             streamOpen, streamOpened, streamData, streamCredit, streamEnd, streamClose,
             clipboardOffer, clipboardWithdraw, clipboardFetch, clipboardData

        /// The kinds a peer that is not paired may send: hello, pairing and keepalives. A new
        /// kind is not, unless added here.
        public static let allowedBeforePairing: Set<Kind> = [.hello, .pairRequest, .pairAccept, .pairReveal,
                                                             .pairConfirm, .pairCancel, .unpair, .ping, .pong]

        /// Whether a peer that is not paired may send a message of this kind.
        public var isAllowedBeforePairing: Bool { Self.allowedBeforePairing.contains(self) }
    }

    /// The message's kind; `nil` for ``unknown(kind:)``.
    public var kind: Kind? {
        switch self {
        case .unknown: nil
        case .hello: .hello
        case .pairRequest: .pairRequest
        case .pairAccept: .pairAccept
        case .pairReveal: .pairReveal
        case .pairConfirm: .pairConfirm
        case .pairCancel: .pairCancel
        case .unpair: .unpair
        case .offers: .offers
        case .fetch: .fetch
        case .payload: .payload
        case .failure: .failure
        case .continued: .continued
        case .renamed: .renamed
        case .reachBack: .reachBack
        case .reachBackResult: .reachBackResult
        case .streamOpen: .streamOpen
        case .streamOpened: .streamOpened
        case .streamData: .streamData
        case .streamCredit: .streamCredit
        case .streamEnd: .streamEnd
        case .streamClose: .streamClose
        case .clipboardOffer: .clipboardOffer
        case .clipboardWithdraw: .clipboardWithdraw
        case .clipboardFetch: .clipboardFetch
        case .clipboardData: .clipboardData
        case .ping: .ping
        case .pong: .pong
        }
    }

    /// Whether a peer that is not paired may send it: a message of an unknown kind may not.
    public var isAllowedBeforePairing: Bool { kind?.isAllowedBeforePairing ?? false }

    /// Whether a peer that is not paired may send a frame of this kind; an unknown kind may
    /// not (only a paired peer's newer messages are skipped).
    public static func isAllowedBeforePairing(kind rawKind: UInt8) -> Bool {
        Kind(rawValue: rawKind)?.isAllowedBeforePairing ?? false
    }

    /// The message as one frame.
    public var frame: [UInt8] {
        if case .streamData(let stream, let bytes) = self {
            return PeerFrame.encode(kind: Kind.streamData.rawValue, bodyPrefix: Self.streamNumber(stream), body: bytes)
        }
        return PeerFrame.encode(kind: kind?.rawValue ?? unknownKind, body: BusValue.serialize(record: record))
    }

    /// A `streamData` body is the stream number (4 bytes, big-endian), then the bytes as they
    /// are. The one body that is not a record: streams carry bulk data, which a record would
    /// copy twice more.
    private static func streamNumber(_ stream: UInt32) -> [UInt8] {
        [UInt8(stream >> 24), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
    }

    private var unknownKind: UInt8 {
        if case .unknown(let kind) = self { kind } else { 0 }
    }

    /// The first of `offers` that one `offers` message can carry: at most ``maximumOffers``,
    /// and no more than fit in ``PeerFrame/maximumBodySize``, so that a peer never refuses
    /// the list (and with it the link) for its size.
    public static func offersFitting(_ offers: [PeerOffer]) -> [PeerOffer] {
        var fitting = Array(offers.prefix(maximumOffers))
        while !fitting.isEmpty, PeerMessage.offers(fitting).frame.count - PeerFrame.headerSize > PeerFrame.maximumBodySize {
            fitting.removeLast(max(1, fitting.count / 8))
        }
        return fitting
    }

    private var record: [String: BusValue] {
        switch self {
        case .hello(let hello):
            return ["id": .string(hello.deviceID), "name": .string(hello.name), "port": .uint32(hello.port),
                    "protocol": .uint32(hello.protocolVersion), "capabilities": .strings(hello.capabilities.sorted())]
        case .pairConfirm, .unpair, .ping, .pong, .unknown:
            return [:]
        case .pairRequest(let commitment):
            return ["commitment": .bytes(commitment)]
        case .pairAccept(let nonce), .pairReveal(let nonce):
            return ["nonce": .bytes(nonce)]
        case .pairCancel(let reason):
            return ["reason": .string(reason)]
        case .offers(let offers):
            return ["offers": .dictionaries(offers.map { offer in
                var record = offer.summary.record
                record["id"] = .string(offer.id)
                record["app-id"] = .string(offer.appID)
                record["team-id"] = .string(offer.teamID)
                return record
            })]
        case .fetch(let request, let activityID):
            return ["request": .uint32(request), "id": .string(activityID)]
        case .payload(let request, let bytes, let document, let withheld):
            var record: [String: BusValue] = ["request": .uint32(request), "payload": .bytes(bytes)]
            if let document { record["document"] = .dictionary(document.record) }
            if let withheld { record["document-withheld"] = .dictionary(withheld.record) }
            return record
        case .failure(let request, let error):
            return ["request": .uint32(request), "error": .dictionary(error.record)]
        case .continued(let activityID):
            return ["id": .string(activityID)]
        case .renamed(let name):
            return ["name": .string(name)]
        case .reachBack(let request):
            return ["request": .uint32(request)]
        case .reachBackResult(let request, let problem):
            return ["request": .uint32(request), "problem": .string(problem)]
        case .streamOpen(let stream, let activityID):
            return ["stream": .uint32(stream), "id": .string(activityID)]
        case .streamOpened(let stream), .streamEnd(let stream):
            return ["stream": .uint32(stream)]
        case .streamData:
            return [:]   // not a record: see streamNumber
        case .streamCredit(let stream, let count):
            return ["stream": .uint32(stream), "count": .uint32(count)]
        case .streamClose(let stream, let reason):
            return ["stream": .uint32(stream), "reason": .string(reason)]
        case .clipboardOffer(let offer):
            return offer.record
        case .clipboardWithdraw(let token):
            return ["token": .string(token)]
        case .clipboardFetch(let request, let token, let type, let offset):
            return ["request": .uint32(request), "token": .string(token), "type": .string(type), "offset": .uint32(offset)]
        case .clipboardData(let request, let answer):
            return answer.fields.merging(["request": .uint32(request)]) { _, request in request }
        }
    }

    /// Reads a frame's message, checking every field. An `offers` message keeps its valid
    /// offers and leaves out the others (``readOffers(_:)``).
    ///
    /// - Throws: ``PeerProtocolError`` for an unknown kind or a missing or bad field.
    public init(kind rawKind: UInt8, body: [UInt8]) throws {
        var droppedOffers: [PeerProtocolError] = []
        try self.init(kind: rawKind, body: body, droppedOffers: &droppedOffers)
    }

    /// Reads a frame's message from its body in place, as ``init(kind:body:droppedOffers:)``
    /// does: a `streamData` message's bytes are copied once, straight out of `body`.
    public init(kind rawKind: UInt8, bodyBytes body: UnsafeRawBufferPointer,
                droppedOffers: inout [PeerProtocolError]) throws {
        if rawKind == Kind.streamData.rawValue {
            self = try Self.streamData(body)
        } else {
            try self.init(kind: rawKind, body: Array(body), droppedOffers: &droppedOffers)
        }
    }

    /// A `streamData` message from its body: the stream number, then 1 to
    /// ``maximumStreamChunk`` bytes.
    private static func streamData(_ body: UnsafeRawBufferPointer) throws -> PeerMessage {
        guard body.count > 4, body.count - 4 <= maximumStreamChunk else {
            throw PeerProtocolError("streamData message: a stream number and 1 to \(maximumStreamChunk) bytes")
        }
        let stream = UInt32(body[0]) << 24 | UInt32(body[1]) << 16 | UInt32(body[2]) << 8 | UInt32(body[3])
        return .streamData(stream: stream, bytes: Array(UnsafeRawBufferPointer(rebasing: body[4...])))
    }

    /// Reads a frame's message as ``init(kind:body:)`` does, adding to `droppedOffers` why
    /// each offer left out of an `offers` message was invalid, so the receiver can count them.
    ///
    /// A kind this build does not know reads as ``unknown(kind:)``, its body unread.
    ///
    /// - Throws: ``PeerProtocolError`` for a missing or bad field.
    public init(kind rawKind: UInt8, body: [UInt8], droppedOffers: inout [PeerProtocolError]) throws {
        guard let kind = Kind(rawValue: rawKind) else {
            self = .unknown(kind: rawKind)
            return
        }
        if kind == .streamData {
            self = try body.withUnsafeBytes(Self.streamData)
            return
        }
        let record: [String: BusValue]
        do {
            record = try BusValue.deserialize(record: body)
        } catch {
            throw PeerProtocolError("\(kind) message: \(error)")
        }
        let fields = Fields(kind: "\(kind)", record: record)
        switch kind {
        case .hello:
            self = .hello(PeerHello(deviceID: try fields.identifier("id"), name: try fields.text("name", limit: 255),
                                    port: try fields.uint32("port"),
                                    protocolVersion: try fields.optionalUInt32("protocol") ?? 1,
                                    capabilities: try fields.capabilities("capabilities")))
        case .pairRequest: self = .pairRequest(commitment: try fields.nonce("commitment"))
        case .pairAccept: self = .pairAccept(nonce: try fields.nonce("nonce"))
        case .pairReveal: self = .pairReveal(nonce: try fields.nonce("nonce"))
        case .pairConfirm: self = .pairConfirm
        case .pairCancel: self = .pairCancel(reason: try fields.text("reason", limit: 1024))
        case .unpair: self = .unpair
        case .offers:
            guard let records = record["offers"]?.dictionaries, records.count <= Self.maximumOffers else {
                throw PeerProtocolError("offers message: \"offers\" must be a list of at most \(Self.maximumOffers)")
            }
            let read = Self.readOffers(records)
            droppedOffers += read.dropped
            self = .offers(read.offers)
        case .fetch:
            self = .fetch(request: try fields.uint32("request"), activityID: try fields.identifier("id"))
        case .payload:
            guard let bytes = record["payload"]?.bytes else {
                throw PeerProtocolError("payload message: no \"payload\" bytes")
            }
            let document = try record["document"].map { value in
                guard let described = value.dictionary else {
                    throw PeerProtocolError("payload message: \"document\" must be a record")
                }
                return try PeerDocument(record: described)
            }
            let withheld = try record["document-withheld"].map { value in
                guard let reason = value.dictionary else {
                    throw PeerProtocolError("payload message: \"document-withheld\" must be a record")
                }
                return try PeerDocumentWithheld(record: reason)
            }
            self = .payload(request: try fields.uint32("request"), bytes: bytes, document: document, withheld: withheld)
        case .failure:
            guard let error = record["error"]?.dictionary, error["code"]?.integer != nil else {
                throw PeerProtocolError("failure message: no \"error\" record with a code")
            }
            self = .failure(request: try fields.uint32("request"), UserActivityError(record: error))
        case .continued: self = .continued(activityID: try fields.identifier("id"))
        case .renamed:
            let name = try fields.text("name", limit: 255)
            guard !name.isEmpty else { throw PeerProtocolError("renamed message: \"name\" must not be empty") }
            self = .renamed(name: name)
        case .reachBack: self = .reachBack(request: try fields.uint32("request"))
        case .reachBackResult:
            self = .reachBackResult(request: try fields.uint32("request"), problem: try fields.text("problem", limit: 1024))
        case .streamOpen: self = .streamOpen(stream: try fields.uint32("stream"), activityID: try fields.identifier("id"))
        case .streamOpened: self = .streamOpened(stream: try fields.uint32("stream"))
        case .streamData:
            throw PeerProtocolError("streamData message: read before the records")
        case .streamCredit: self = .streamCredit(stream: try fields.uint32("stream"), count: try fields.uint32("count"))
        case .streamEnd: self = .streamEnd(stream: try fields.uint32("stream"))
        case .streamClose:
            self = .streamClose(stream: try fields.uint32("stream"), reason: try fields.text("reason", limit: 1024))
        case .clipboardOffer: self = .clipboardOffer(try PeerClipboardOffer(record: record))
        case .clipboardWithdraw: self = .clipboardWithdraw(token: try fields.token("token"))
        case .clipboardFetch:
            let type = try fields.text("type", limit: PeerClipboardOffer.maximumTypeLength)
            guard PeerClipboardOffer.isType(type) else {
                throw PeerProtocolError("clipboardFetch message: \"type\" must be TYPE/SUBTYPE with optional ;NAME=VALUE parameters")
            }
            let offset = try fields.optionalUInt32("offset") ?? 0
            guard offset < PeerClipboardOffer.maximumDataSize else {
                throw PeerProtocolError("clipboardFetch message: \"offset\" must be within a content of at most \(PeerClipboardOffer.maximumDataSize) bytes")
            }
            self = .clipboardFetch(request: try fields.uint32("request"), token: try fields.token("token"), type: type, offset: offset)
        case .clipboardData:
            self = .clipboardData(request: try fields.uint32("request"), try PeerClipboardAnswer(record: record))
        case .ping: self = .ping
        case .pong: self = .pong
        }
    }

    /// Reads the offers of an `offers` message one by one: an invalid offer (a title with a
    /// character refused since, a bad id) is left out and said why, and the others are kept,
    /// so one bad offer from a peer (of an earlier version, say) does not end the link.
    public static func readOffers(_ records: [[String: BusValue]]) -> (offers: [PeerOffer], dropped: [PeerProtocolError]) {
        var offers: [PeerOffer] = []
        var dropped: [PeerProtocolError] = []
        for record in records {
            do {
                offers.append(try readOffer(record))
            } catch let error as PeerProtocolError {
                dropped.append(error)
            } catch {
                dropped.append(PeerProtocolError("offer: \(error)"))
            }
        }
        return (offers, dropped)
    }

    /// One offer of an `offers` message, every field checked.
    private static func readOffer(_ record: [String: BusValue]) throws -> PeerOffer {
        let fields = Fields(kind: "offer", record: record)
        let summary: ActivitySummary
        do {
            summary = try ActivitySummary(record: record)
        } catch {
            throw PeerProtocolError("offer: \(error)")
        }
        return PeerOffer(id: try fields.identifier("id"), summary: summary, appID: try fields.text("app-id", limit: 255),
                         teamID: try fields.text("team-id", limit: 255))
    }

    /// Reads a message's fields, naming the message and field in each error.
    private struct Fields {
        let kind: String
        let record: [String: BusValue]

        /// Text of at most `limit` bytes without ``UnsafeCharacters``: a device name, an app
        /// or team id, a reason.
        func text(_ key: String, limit: Int) throws -> String {
            guard let value = record[key]?.string, value.utf8.count <= limit else {
                throw PeerProtocolError("\(kind) message: \"\(key)\" must be text of at most \(limit) bytes")
            }
            guard !UnsafeCharacters.occur(in: value) else {
                throw PeerProtocolError("\(kind) message: \"\(key)\" must not hold control characters, "
                                        + "bidirectional controls or line separators")
            }
            return value
        }

        func identifier(_ key: String) throws -> String {
            let value = try text(key, limit: 64)
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw PeerProtocolError("\(kind) message: \"\(key)\" must be 1 to 64 letters, digits or dashes")
            }
            return value
        }

        /// A pairing nonce or commitment: exactly ``PairingNonce/size`` bytes.
        func nonce(_ key: String) throws -> [UInt8] {
            guard let value = record[key]?.bytes, value.count == PairingNonce.size else {
                throw PeerProtocolError("\(kind) message: \"\(key)\" must be \(PairingNonce.size) bytes")
            }
            return value
        }

        /// A clipboard announcement's token (``PeerClipboardOffer/isToken(_:)``).
        func token(_ key: String) throws -> String {
            guard let value = record[key]?.string, PeerClipboardOffer.isToken(value) else {
                throw PeerProtocolError("\(kind) message: \"\(key)\" must be \(PeerClipboardOffer.tokenLength) lowercase hex digits")
            }
            return value
        }

        func uint32(_ key: String) throws -> UInt32 {
            guard case .uint32(let value)? = record[key] else {
                throw PeerProtocolError("\(kind) message: \"\(key)\" must be a uint32")
            }
            return value
        }

        /// A uint32 that a protocol 1 peer leaves out.
        func optionalUInt32(_ key: String) throws -> UInt32? {
            guard record[key] != nil else { return nil }
            return try uint32(key)
        }

        /// A list of capability names (empty when left out, as protocol 1 peers do).
        func capabilities(_ key: String) throws -> Set<String> {
            guard let value = record[key] else { return [] }
            guard let names = value.strings, names.count <= PeerCapability.maximumCount,
                  names.allSatisfy({ !$0.isEmpty && $0.utf8.count <= PeerCapability.maximumLength
                                     && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } })
            else {
                throw PeerProtocolError("\(kind) message: \"\(key)\" must be at most \(PeerCapability.maximumCount) "
                                        + "names of letters, digits and dashes")
            }
            return Set(names)
        }
    }
}
