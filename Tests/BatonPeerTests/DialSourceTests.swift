@testable import BatonPeer
import XCTest

/// The address a batond that listens on one address dials from: that address, where it can
/// reach the other side, so that a static peer or a paired device sees it where it knows it.
final class DialSourceTests: XCTestCase {
    func testListeningOnOneAddressDialsFromIt() {
        XCTAssertEqual(PeerTLS.sourceAddress(dialing: "127.0.2.7:4000", from: "127.0.2.1"), "127.0.2.1")
        XCTAssertEqual(PeerTLS.sourceAddress(dialing: "192.168.1.20:4000", from: "192.168.1.5"), "192.168.1.5")
        XCTAssertEqual(PeerTLS.sourceAddress(dialing: "[fe80::2]:4000", from: "fe80::1"), "fe80::1")
    }

    func testTheSystemChoosesWhereTheAddressCannotReachTheOtherSide() {
        XCTAssertNil(PeerTLS.sourceAddress(dialing: "192.168.1.20:4000", from: "127.0.0.1"), "loopback cannot reach another host")
        XCTAssertNil(PeerTLS.sourceAddress(dialing: "127.0.0.1:4000", from: "192.168.1.5"))
        XCTAssertNil(PeerTLS.sourceAddress(dialing: "[::1]:4000", from: "127.0.0.1"), "another family")
        XCTAssertNil(PeerTLS.sourceAddress(dialing: "laptop.local:4000", from: "192.168.1.5"), "a name: resolved later")
        XCTAssertNil(PeerTLS.sourceAddress(dialing: "192.168.1.20:4000", from: "0.0.0.0"), "listening on all")
        XCTAssertNil(PeerTLS.sourceAddress(dialing: "[fe80::2]:4000", from: "::"))
        XCTAssertNil(PeerTLS.sourceAddress(dialing: "no port", from: "192.168.1.5"))
    }
}
