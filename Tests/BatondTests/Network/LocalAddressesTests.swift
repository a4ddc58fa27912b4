@testable import batond
import XCTest

/// Which local addresses count as this device's, for a link's local address after a network change.
final class LocalAddressesTests: XCTestCase {
    func testAnAddressIsPresentWhenAnInterfaceHasIt() {
        let addresses: Set<String> = ["10.0.0.2", "fe80::1"]
        XCTAssertTrue(LocalAddresses.contains("10.0.0.2", in: addresses))
        XCTAssertTrue(LocalAddresses.contains("::ffff:10.0.0.2", in: addresses), "as a dual-stack socket shows it")
        XCTAssertTrue(LocalAddresses.contains("FE80::1", in: addresses))
        XCTAssertFalse(LocalAddresses.contains("10.0.0.3", in: addresses), "an address given up")
        XCTAssertTrue(LocalAddresses.contains("127.0.2.7", in: addresses), "all of 127.0.0.0/8 is this device's")
        XCTAssertTrue(LocalAddresses.contains("", in: addresses), "not known: not closed")
        XCTAssertTrue(LocalAddresses.current()?.contains("127.0.0.1") == true, "the system lists its loopback address")
    }
}
