import BatonGLib
import CGLib
import Glibc
import XCTest

/// The owned descriptor type: closed with its last reference, unless taken.
final class BusFileDescriptorTests: XCTestCase {
    private func isOpen(_ descriptor: Int32) -> Bool {
        fcntl(descriptor, F_GETFD) != -1
    }

    func testTheLastReferenceClosesIt() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertNotEqual(g_unix_open_pipe(&ends, FD_CLOEXEC, nil), 0)
        defer { close(ends[1]) }
        var owner: BusFileDescriptor? = BusFileDescriptor(taking: ends[0])
        var value: BusValue? = .array(elementType: "h", [.fileDescriptor(try XCTUnwrap(owner))])
        owner = nil
        XCTAssertTrue(isOpen(ends[0]), "the value still holds it")
        XCTAssertEqual(value?.array?.first?.fileDescriptor?.descriptor, ends[0])
        value = nil
        XCTAssertFalse(isOpen(ends[0]))
    }

    func testTakingHandsItOver() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertNotEqual(g_unix_open_pipe(&ends, FD_CLOEXEC, nil), 0)
        defer { close(ends[1]) }
        var owner: BusFileDescriptor? = BusFileDescriptor(taking: ends[0])
        let taken = try XCTUnwrap(owner?.take())
        XCTAssertEqual(taken, ends[0])
        XCTAssertNil(owner?.take(), "only once")
        XCTAssertNil(owner?.descriptor)
        XCTAssertEqual(owner?.isOpen, false)
        owner?.close()
        owner = nil
        XCTAssertTrue(isOpen(taken))
        close(taken)
    }

    func testClosingEarlyAndDuplicating() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertNotEqual(g_unix_open_pipe(&ends, FD_CLOEXEC, nil), 0)
        defer { close(ends[1]) }
        let original = BusFileDescriptor(taking: ends[0])
        let copy = try BusFileDescriptor(duplicating: ends[0])
        XCTAssertNotEqual(copy.descriptor, ends[0])
        XCTAssertNotEqual(copy, original, "equal only to itself")
        XCTAssertEqual(original, original)
        XCTAssertEqual(Set([original, original, copy]).count, 2)
        original.close()
        original.close()
        XCTAssertFalse(isOpen(ends[0]))
        XCTAssertEqual(original.description, "closed file descriptor")
        let duplicate = try XCTUnwrap(copy.descriptor)
        XCTAssertTrue(isOpen(duplicate))
        XCTAssertNotEqual(fcntl(duplicate, F_GETFD) & FD_CLOEXEC, 0, "not inherited by children")
        XCTAssertThrowsError(try BusFileDescriptor(duplicating: -1))
    }
}
