import BatonBus
import Foundation
import XCTest

/// The host of a link from outside as it is shown: percent-decoded, then a valid name in
/// ASCII (punycode for an internationalized one) or an IP address, else refused; and whether
/// it is on this computer or its network.
final class WebHostTests: XCTestCase {
    private func host(_ link: String) throws -> WebHost {
        try WebHost(of: try XCTUnwrap(URL(string: link), link))
    }

    func testNamesAreShownInASCII() throws {
        let cases = [
            ("https://example.org/", "example.org"), ("https://NEWS.Example.COM./x", "news.example.com"),
            ("https://b%C3%BCcher.example/", "xn--bcher-kva.example"), ("https://bücher.example/", "xn--bcher-kva.example"),
            ("https://%D0%B0pple.com/", "xn--pple-43d.com"), ("https://xn--bcher-kva.example/", "xn--bcher-kva.example"),
            ("https://a-b.c0.example/", "a-b.c0.example"), ("http://127.0.0.1:631/", "127.0.0.1"), ("http://[::1]/", "[::1]"),
            ("http://[2001:DB8:0:0::1]/", "[2001:db8::1]"),
        ]
        for (link, shown) in cases {
            XCTAssertEqual("\(try host(link))", shown, link)
        }
    }

    func testHostsThatAreNotValidNamesAreRefused() throws {
        let cases = [
            ("https://%E2%80%AEmoc.elgoog/", "holds control or bidirectional characters"),
            ("https://evil%1B%5B31m.example/", "holds control or bidirectional characters"),
            ("https://a%C2%9Bb.example/", "holds control or bidirectional characters"),
            ("https://a%E2%80%A8b.example/", "holds control or bidirectional characters"),
            ("https://a%E2%81%A6b.example/", "holds control or bidirectional characters"),
            ("https://%FF%FE.example/", "does not decode to UTF-8"),
            ("https://exa_mple.com/", "is not a valid name"), ("https://a%20b.com/", "is not a valid name"),
            ("https://-a.com/", "is not a valid name"), ("https://a..b/", "is not a valid name"),
            ("https://\(String(repeating: "a", count: 64)).com/", "is not a valid name"),
            ("https://xn--zz.com/", "is not a valid name"), ("https://xn--mocelgoog-lm2e.com/", "is not a valid name"),
            ("http://2130706433/", "ends in a number"), ("http://0x7f.1/", "ends in a number"), ("http://1.2.3.04/", "ends in a number"),
            ("http://[fe80::1%25eth0]/", "is not an IPv6 address"),
        ]
        for (link, reason) in cases {
            XCTAssertThrowsError(try host(link), link) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(link): \(error)")
                XCTAssertFalse("\(error)".unicodeScalars.contains { $0.properties.generalCategory == .control || $0.value == 0x202E },
                               "\(link): the message quotes the host safely")
            }
        }
        XCTAssertThrowsError(try WebHost(percentEncoded: String(repeating: "a.", count: 600)))
    }

    func testLocalAddressesAndNames() throws {
        let local = ["127.0.0.1", "127.8.9.10", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.1", "169.254.1.1",
                     "100.64.0.1", "100.127.255.255", "[::1]", "[::]", "[fc00::1]", "[fdff::1]", "[fe80::1]", "[febf::1]",
                     "[::ffff:10.0.0.1]", "localhost", "LOCALHOST.", "api.localhost", "printer.local", "router", "nas.home.arpa"]
        for name in local {
            XCTAssertTrue(try host("http://\(name)/").isLocal, name)
        }
        let remote = ["8.8.8.8", "172.15.0.1", "172.32.0.1", "100.63.0.1", "100.128.0.1", "192.169.0.1", "[2001:db8::1]",
                      "[fbff::1]", "[::ffff:8.8.8.8]", "example.org", "localhost.example.org", "local.example"]
        for name in remote {
            XCTAssertFalse(try host("http://\(name)/").isLocal, name)
        }
    }
}
