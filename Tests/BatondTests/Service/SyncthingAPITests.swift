@testable import batond
import XCTest

/// What batond reads of Syncthing's configuration and answers: only a plain HTTP GUI on a
/// loopback address is used, so the API key never leaves the machine.
final class SyncthingAPITests: XCTestCase {
    private func config(address: String, tls: Bool = false, key: String = "k3y") -> String {
        """
        <configuration version="36">
            <device id="X"><address>dynamic</address></device>
            <gui enabled="true" tls="\(tls)" debugging="false">
                <address>\(address)</address>
                <apikey>\(key)</apikey>
            </gui>
        </configuration>
        """
    }

    func testTheLoopbackGUIIsUsed() {
        let api = SyncthingConfig(config(address: "127.0.0.1:8384")).api
        XCTAssertEqual(api?.host, "127.0.0.1")
        XCTAssertEqual(api?.port, 8384)
        XCTAssertEqual(api?.apiKey, "k3y")
        XCTAssertEqual(SyncthingConfig(config(address: "localhost:9000")).api?.host, "127.0.0.1")
    }

    func testAnyOtherGUIIsNot() {
        XCTAssertNil(SyncthingConfig(config(address: "0.0.0.0:8384")).api, "an address other devices may reach")
        XCTAssertNil(SyncthingConfig(config(address: "192.168.1.4:8384")).api)
        XCTAssertNil(SyncthingConfig(config(address: "127.0.0.1:8384", tls: true)).api, "HTTPS is not read")
        XCTAssertNil(SyncthingConfig(config(address: "127.0.0.1:8384", key: "")).api, "no key")
        XCTAssertNil(SyncthingConfig(config(address: "127.0.0.1")).api, "no port")
        XCTAssertNil(SyncthingConfig("<configuration/>").api)
        XCTAssertNil(SyncthingConfig("not xml at all <gui").api)
    }

    func testAnswersAreReadOnlyWhenTheyAreOK() throws {
        let ok = Array("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n[1]".utf8)
        XCTAssertEqual(try SyncthingAPI.body(of: ok, path: "/x"), Array("[1]".utf8))
        XCTAssertThrowsError(try SyncthingAPI.body(of: Array("HTTP/1.0 403 Forbidden\r\n\r\nno".utf8), path: "/x")) {
            XCTAssertTrue("\($0)".contains("refused the API key"), "\($0)")
        }
        XCTAssertThrowsError(try SyncthingAPI.body(of: Array("HTTP/1.0 500 Oops\r\n\r\n".utf8), path: "/x"))
        XCTAssertThrowsError(try SyncthingAPI.body(of: Array("garbage".utf8), path: "/x"))
        XCTAssertThrowsError(try SyncthingAPI.body(of: Array("SMTP 200\r\n\r\n".utf8), path: "/x"))
    }
}
