import BatonBus
import Foundation
import FuzzSupport

// Covers the host of a link a phone shares (`WebHost`): read from a URL's text as it comes,
// and from the host alone, percent-encoded. Errors must be `WebHostError`, quoting no unsafe
// character; a host read must be ASCII without unsafe characters, read back the same from
// its own text, and its locality must not depend on how it was written.

@main
enum WebHostHarness: FuzzHarness {
    static func test(_ input: [UInt8]) {
        let text = String(decoding: input, as: UTF8.self)
        if let url = URL(string: text) {
            check { () throws(WebHostError) in try WebHost(of: url) }
        }
        check { () throws(WebHostError) in try WebHost(percentEncoded: text) }
    }
}

/// Reads a host with `read` and checks what it gives.
private func check(_ read: () throws(WebHostError) -> WebHost) {
    do {
        let host = try read()
        Fuzz.require(host.ascii.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "a host shown with other than printable ASCII: \(host.ascii.debugDescription)")
        Fuzz.require(!host.ascii.isEmpty && host.ascii.utf8.count <= 253, "a host of \(host.ascii.utf8.count) bytes")
        let again = try? WebHost(percentEncoded: host.description)
        Fuzz.require(again == host, "a host that does not read back: \(host)")
        Fuzz.require(again?.isLocal == host.isLocal, "a host whose locality changed when read back: \(host)")
    } catch {
        Fuzz.require(!UnsafeCharacters.occur(in: error.description), "an error quoting unsafe characters: \(error.description.debugDescription)")
    }
}

extension WebHostHarness {
    /// Links as phones share them: names, internationalized ones, addresses, and hosts refused.
    static func seeds() -> [String: [UInt8]] {
        let links = [
            "name": "https://news.example.com/story/7?ref=phone", "idn": "https://b%C3%BCcher.example/x",
            "punycode": "https://xn--bcher-kva.example/", "ipv4": "http://127.0.0.1:631/admin/", "ipv6": "http://[fe80::1]:8080/",
            "mapped": "http://[::ffff:192.168.1.1]/", "bidi": "https://%E2%80%AEmoc.elgoog/", "escape": "https://evil%1B%5B31m.example/",
            "number": "http://2130706433/", "host": "EXAMPLE.org.",
        ]
        return links.mapValues { Array($0.utf8) }
    }
}
