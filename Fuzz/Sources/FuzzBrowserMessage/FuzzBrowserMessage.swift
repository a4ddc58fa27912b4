import Baton
import BatonBus
import Foundation
import FuzzSupport

// Covers what a browser extension writes to baton-browser-host: the native messaging stream
// (`NativeMessageFramer`: 32-bit lengths and frames, oversized ones skipped) and each message
// (`BrowserMessage.decode`: JSON with `page` and `active`), then the page activity made of a
// good one (`PageActivity`). `baton-browser-host` is an executable target, so the three files
// are compiled into this harness through symbolic links. The input is read twice: as one
// message, and as a stream cut into chunks whose sizes come from the input. A bad message
// must be a `BrowserMessageError`; a page must be one batond accepts (its summary read back
// by `ActivitySummary(record:)` unchanged) and whose payload decodes to itself.

@main
enum BrowserMessageHarness: FuzzHarness {
    static func test(_ bytes: [UInt8]) {
        check(bytes)
        var framer = NativeMessageFramer()
        var start = 0
        var chunk = 1 + Int(bytes.first ?? 0) % 13
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            for event in framer.append(bytes[start..<end]) {
                switch event {
                case .message(let message):
                    Fuzz.require(message.count <= BrowserMessage.maximumSize, "a frame of \(message.count) bytes passed")
                    check(message)
                case .oversized(let length):
                    Fuzz.require(length > BrowserMessage.maximumSize, "a frame of \(length) bytes was called oversized")
                }
            }
            start = end
            chunk = chunk * 2 + 1
        }
    }
}

/// Decodes one message and checks what a page becomes.
private func check(_ bytes: [UInt8]) {
    guard let message = Fuzz.refused(as: BrowserMessageError.self, "decoding", { try BrowserMessage.decode(bytes) }),
          case .page(let url, let title) = message else { return }
    Fuzz.require(ActivityLimits.webpageURL(fromText: url.absoluteString) == url, "a page URL batond refuses: \(url)")
    let page = PageActivity(url: url, title: title, following: nil)
    Fuzz.require(page.summary.webpageURL == url, "the page lost its URL")
    let read = Fuzz.orFail("batond refuses the summary of a page") { try ActivitySummary(record: page.summary.record) }
    Fuzz.require(read == page.summary, "the summary reads back as another: \(read) against \(page.summary)")
    Fuzz.orFail("the payload of a page does not encode and decode") {
        let payload = page.payload
        Fuzz.require(try UserActivityPayload(decoding: try payload.encodedBytes()) == payload,
                     "the payload decodes to another")
    }
}

extension BrowserMessageHarness {
    /// Messages as the extension sends them, broken ones, and whole streams of frames.
    static func seeds() -> [String: [UInt8]] {
        let messages: [String: String] = [
            "page.json": #"{"page": {"url": "https://example.org/a?b=1#c", "title": "Example: A"}}"#,
            "page-untitled.json": #"{"page": {"url": "http://127.0.0.1:8080/"}}"#,
            "page-unsafe-title.json": "{\"page\": {\"url\": \"https://example.org/\", \"title\": \"Evil\\u202Etxt.exe\\u0007\\r\\nnext\"}}",
            "none.json": #"{"page": null}"#,
            "none-active.json": #"{"page": null, "active": true}"#,
            "javascript.json": #"{"page": {"url": "javascript:alert(1)", "title": "x"}}"#,
            "wrong-types.json": #"{"page": {"url": 1, "title": []}, "active": "yes"}"#,
            "not-object.json": "[\"page\"]",
        ]
        var seeds = messages.mapValues { Array($0.utf8) }
        let frames = ["page.json", "none-active.json", "javascript.json"].compactMap { seeds[$0] }
        seeds["stream.bin"] = frames.flatMap { NativeMessageFramer.header(forLength: $0.count) + $0 }
        seeds["stream-oversized.bin"] = NativeMessageFramer.header(forLength: BrowserMessage.maximumSize + 1)
            + [UInt8](repeating: 0x20, count: 64) + frames[0]
        return seeds
    }
}
