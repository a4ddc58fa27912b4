import Baton
import Foundation
import FuzzSupport

// Covers the binary activity payload: `UserActivityPayload(decoding:)` and the
// `BinaryReader` under it. Any bytes either decode or throw `UserActivityError`; what decodes
// encodes again, and that encoding decodes to itself byte for byte.

@main
enum PayloadHarness: FuzzHarness {
    static func test(_ bytes: [UInt8]) {
        let input = Data(bytes)
        guard let payload = Fuzz.refused(as: UserActivityError.self, "decoding", { try UserActivityPayload(decoding: input) })
        else { return }
        let encoded = Fuzz.orFail("a decoded payload does not encode") { try payload.encoded() }
        Fuzz.orFail("an encoded payload does not decode") {
            let again = try UserActivityPayload(decoding: encoded)
            Fuzz.require(try again.encoded() == encoded, "re-encoding a re-decoded payload changed its bytes")
        }
    }
}

extension PayloadHarness {
    /// Payloads from the real encoder, and a few hand-made edge cases.
    static func seeds() -> [String: [UInt8]] {
        var seeds = payloads.compactMapValues { try? Array($0.encoded()) }
        seeds["empty"] = []
        seeds["magic-only"] = Array("BATN".utf8)
        seeds["unknown-version"] = Array("BATN".utf8) + [2, 1, 1, 0x61, 0, 1, 0]
        if let draft = seeds["mail-draft"] { seeds["truncated-draft"] = Array(draft.prefix(draft.count / 2)) }
        return seeds
    }

    /// A webpage URL of the longest length a field may have: one changed character away from
    /// one that `URL` percent-encodes past the limit.
    static let longestURL = URL(string: "https://example.org/"
        + String(repeating: "a", count: UserActivityPayload.maximumFieldLength - 20))

    static let payloads: [String: UserActivityPayload] = [
        "type-only": UserActivityPayload(activityType: "org.example.note"),
        "mail-draft": UserActivityPayload(
            activityType: "org.example.mail.compose", title: "Draft: Lunch",
            userInfo: ["to": "bob@example.org", "cc": "", "subject": "Lunch",
                       "body": "Noon at the usual place?\nAlice", "cursor": 12]),
        "every-field": UserActivityPayload(
            activityType: "org.example.browse", title: "Reading “Handoff”",
            userInfo: ["scroll": 0.25],
            webpageURL: URL(string: "https://example.org/handoff?x=1#top"),
            expirationDate: Date(timeIntervalSinceReferenceDate: 800_000_000),
            keywords: ["read", "web"], isEligibleForHandoff: false, supportsContinuationStreams: true),
        "every-value": UserActivityPayload(
            activityType: "org.example.values",
            userInfo: [
                "null": .null, "no": false, "yes": true, "negative": -123_456_789, "max": .int(.max),
                "min": .int(.min), "pi": 3.141_592_653_589_793, "text": "grüße ✓",
                "data": .data(Data([0, 1, 2, 255])), "date": .date(Date(timeIntervalSinceReferenceDate: -1)),
                "url": .url(URL(fileURLWithPath: "/tmp/a b")),
                "uuid": .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
                "list": [1, "two", [3.0]], "map": ["inner": ["deeper": .null]],
            ]),
        "longest-url": UserActivityPayload(
            activityType: "org.example.browse", webpageURL: longestURL),
        "deepest-nesting": UserActivityPayload(
            activityType: "org.example.deep",
            userInfo: ["deep": (1..<UserActivityPayload.maximumNesting).reduce(UserInfoValue.null) { inner, _ in [inner] }]),
    ]
}
