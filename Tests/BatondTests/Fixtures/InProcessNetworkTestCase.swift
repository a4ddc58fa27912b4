@testable import batond
import XCTest

/// The base of the in-process tests of the network and its features: a fresh
/// ``InProcessNetwork`` for each test (``makeFixture()``), closed after it.
@MainActor
class InProcessNetworkTestCase: XCTestCase {
    var fixture: InProcessNetwork!

    /// The network under test; a subclass gives it other timeouts.
    func makeFixture() throws -> InProcessNetwork {
        try InProcessNetwork()
    }

    override func setUp() async throws {
        fixture = try makeFixture()
    }

    override func tearDown() async throws {
        await fixture.close()
        fixture = nil
    }
}
