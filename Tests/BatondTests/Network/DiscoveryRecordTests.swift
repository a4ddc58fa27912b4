@testable import batond
import XCTest

/// The TXT record of `_baton._tcp` as batond announces it and reads another device's: names
/// cleaned and cut, keys without case, the first of a key counting, bad UTF-8 harmless.
final class DiscoveryRecordTests: XCTestCase {
    private let id = "0123456789abcdef0123456789abcdef"

    private func entries(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    func testAnAnnouncedRecordReadsBack() {
        let record = DiscoveryRecord(deviceID: id, version: "1", name: "Ada’s Laptop")
        XCTAssertEqual(record.entries, entries(["id=\(id)", "v=1", "n=Ada’s Laptop"]))
        XCTAssertEqual(DiscoveryRecord(entries: record.entries), record)
    }

    func testAnOlderBatondsRecordHasNoName() {
        let record = DiscoveryRecord(entries: entries(["id=\(id)", "v=1"]))
        XCTAssertEqual(record.deviceID, id)
        XCTAssertNil(record.name)
    }

    func testKeysAreReadWithoutCaseAndTheFirstCounts() {
        let record = DiscoveryRecord(entries: entries(["ID=\(id)", "N=First", "n=Second", "id=other", "flag"]))
        XCTAssertEqual(record.deviceID, id)
        XCTAssertEqual(record.name, "First")
    }

    func testANameIsCleanedAndCut() {
        let unsafe = DiscoveryRecord(entries: entries(["n= Evil\u{202E}\u{0007}\nname\u{200B} "]))
        XCTAssertEqual(unsafe.name, "Evil name")
        let long = DiscoveryRecord(entries: entries(["n=" + String(repeating: "é", count: 120)]))
        XCTAssertEqual(long.name, String(repeating: "é", count: DiscoveryRecord.maximumNameBytes / 2))
        let announced = DiscoveryRecord(deviceID: id, version: "1", name: String(repeating: "x", count: 300))
        XCTAssertEqual(announced.entries.last?.count, 2 + DiscoveryRecord.maximumNameBytes)
    }

    func testANameThatIsNotUTF8IsAnEmptyName() {
        let record = DiscoveryRecord(entries: [Array("id=\(id)".utf8), Array("n=".utf8) + [0xff, 0xc3, 0x28]])
        XCTAssertEqual(record.deviceID, id)
        XCTAssertEqual(record.name, "", "listed by its short id, not dialed as an older batond")
        XCTAssertNil(DiscoveryRecord(entries: [[0xff, 0x3d, 0x61]]).deviceID)
    }

    func testAnEmptyNameIsNotAnnounced() {
        XCTAssertEqual(DiscoveryRecord(deviceID: id, version: "1", name: " \u{200B}").entries, entries(["id=\(id)", "v=1"]))
    }

    func testOnlyTheFirstEntriesAreRead() {
        let many = entries((0..<DiscoveryRecord.maximumEntries).map { "k\($0)=" } + ["n=Late"])
        XCTAssertNil(DiscoveryRecord(entries: many).name)
    }
}
