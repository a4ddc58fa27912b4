import Baton
@testable import BatonBus
import BatonGLib
import CGLib
import Foundation
import ServiceFixtures
import XCTest

/// Baton's one error table: every error has one number and one name, GIO knows the names,
/// and an error's record crosses a real bus whole, while a GDBus caller still reads the
/// message of an error sent without one.
@MainActor
final class BatonErrorTableTests: XCTestCase {
    private static let everyActivityError: [UserActivityError] = [
        .cancelled, .handoffFailed("h"), .connectionUnavailable("c"), .remoteApplicationTimedOut("r"),
        .userInfoTooLarge(size: 70_000, limit: 65_536), .invalidWebpageURL("w"), .invalidUserInfo("i"),
        .malformedPayload("m"), .invalidActivity("a"),
    ]

    func testEveryErrorHasOneRowAndItsRecordReadsBack() async {
        XCTAssertEqual(Set(BatonErrorTable.rows.map(\.code)).count, BatonErrorTable.rows.count)
        XCTAssertEqual(Set(BatonErrorTable.rows.map(\.name)).count, BatonErrorTable.rows.count)
        for error in Self.everyActivityError {
            let name = BatonErrorTable.name(of: error.code)
            XCTAssertNotNil(name, "\(error) has no row")
            XCTAssertEqual(ServiceError.activity(error).busName, name)
            XCTAssertEqual(name.flatMap(BatonErrorTable.code(named:)), error.code)
            XCTAssertEqual(UserActivityError(record: error.record), error, "the record of \(error)")
        }
        let serviceErrors: [ServiceError] = [.unknownActivity("x"), .notRegistered, .noClaimant(activityType: "t", teamID: nil),
                                             .unknownDevice("d"), .pairing("p"), .identityMismatch("i")]
        for error in serviceErrors {
            XCTAssertEqual(error.code.flatMap(BatonErrorTable.name(of:)), error.busName, "\(error)")
        }
    }

    /// Every error of the table reads back from its number and from its name as the same
    /// error, and gives the same number again: the numbers and names of the public contract
    /// are written once, in the table, and every other spelling derives from it.
    func testEveryErrorRoundTripsThroughItsCodeAndName() async {
        let serviceErrors: [ServiceError] = [.unknownActivity("x"), .notRegistered, .noClaimant(activityType: "t", teamID: nil),
                                             .unknownDevice("d"), .pairing("p"), .identityMismatch("i")]
        let everyError = Self.everyActivityError.map(ServiceError.activity) + serviceErrors
        XCTAssertEqual(Set(everyError.compactMap(\.kind)), Set(BatonErrorKind.allCases), "an error of the table has no case")
        for error in everyError {
            guard let kind = error.kind, let code = error.code else { return XCTFail("\(error) has no number") }
            XCTAssertEqual(BatonErrorKind(code: code), kind, "code → case of \(error)")
            XCTAssertEqual(BatonErrorKind(code: code)?.code, code, "code → case → code of \(error)")
            XCTAssertEqual(BatonErrorKind(named: error.busName), kind, "name → case of \(error)")
            XCTAssertEqual(BatonErrorTable.code(named: error.busName), code, "name → code of \(error)")
            if case .activity(let activityError) = error {
                XCTAssertEqual(UserActivityError(code: code, reason: activityError.reason).kind, kind, "init(code:) of \(error)")
            }
        }
        // The numbers and names are the public contract's: they never change.
        XCTAssertEqual(BatonErrorTable.rows.map(\.code), [1, 2, 3, 4, 5, 6, 3072, 4608, 4609, 4610, 4611, 4640, 4641, 4642, 4643])
        XCTAssertEqual(BatonErrorTable.rows.map(\.name), [
            "UnknownActivity", "NotRegistered", "NoClaimant", "UnknownDevice", "Pairing", "IdentityMismatch", "Cancelled",
            "HandoffFailed", "ConnectionUnavailable", "RemoteApplicationTimedOut", "UserInfoTooLarge", "InvalidWebpageURL",
            "InvalidUserInfo", "MalformedPayload", "InvalidActivity",
        ].map { "org.baton.Error." + $0 })
        XCTAssertEqual(Self.everyActivityError.map(\.code), [3072, 4608, 4609, 4610, 4611, 4640, 4641, 4642, 4643])
        XCTAssertEqual(UserActivityError(code: 1, reason: "r"), .handoffFailed("r"), "a service error's number is no activity error")
        XCTAssertEqual(UserActivityError(code: 9999, reason: "r"), .handoffFailed("r"))
    }

    func testGIOMapsEveryNameToTheDomainAndNumber() async {
        _ = BatonErrorTable.domain
        for row in BatonErrorTable.rows {
            guard let error = g_dbus_error_new_for_dbus_error(row.name, "text") else {
                return XCTFail("no GError for \(row.name)")
            }
            defer { g_error_free(error) }
            XCTAssertEqual(error.pointee.domain, BatonErrorTable.domain, row.name)
            XCTAssertEqual(error.pointee.code, row.code, row.name)
            guard let name = g_dbus_error_encode_gerror(error) else { return XCTFail("no name for \(row.code)") }
            XCTAssertEqual(String(cString: name), row.name)
            g_free(name)
        }
    }

    func testARecordCrossesTheBusAndAPlainErrorKeepsItsMessageForGDBus() async throws {
        let bus = try PrivateBus()
        defer { bus.tearDown() }
        let (server, client) = (bus.server, bus.client)
        let tooLarge = UserActivityError.userInfoTooLarge(size: 70_123, limit: 65_536)
        let registration = try server.export(path: "/org/baton/Test", interface: "org.baton.Test", introspectionXML: """
            <node><interface name="org.baton.Test"><method name="Save"><arg direction="in" type="b"/></method></interface></node>
            """) { call in
            call.fail(with: tooLarge, sendingRecord: call.arguments.at(0)?.bool ?? false)
        }
        defer { server.unexport(registration) }
        for sendingRecord in [true, false] {
            do {
                _ = try await Outcome {
                    try await client.call(server.uniqueName, path: "/org/baton/Test", interface: "org.baton.Test",
                                          method: "Save", arguments: [.bool(sendingRecord)], timeout: 5)
                }.get()
                XCTFail("the call succeeded")
            } catch let error as BusError {
                XCTAssertEqual(error.remoteName, "org.baton.Error.UserInfoTooLarge")
                XCTAssertTrue(error.message.contains("70123 bytes"), error.message)
                let read = ServiceError.userActivityError(from: error)
                // With the record the numbers come whole; without it only the number of the error.
                XCTAssertEqual(read, sendingRecord ? tooLarge : .userInfoTooLarge(size: 0, limit: 65_536), "\(error)")
            }
        }
        // What a GDBus caller (gdbus, any other language) reads of the error without a record.
        let gdbus = Process()
        gdbus.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        gdbus.arguments = ["call", "--address", bus.session.busAddress, "--dest", server.uniqueName, "--object-path",
                           "/org/baton/Test", "--method", "org.baton.Test.Save", "false"]
        let errors = Pipe()
        gdbus.standardError = errors
        gdbus.standardOutput = FileHandle.nullDevice
        try gdbus.run()
        while gdbus.isRunning { _ = await pumpMainLoop(timeout: 0.05) { false } }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains("org.baton.Error.UserInfoTooLarge") && text.contains("70123 bytes"), text)
    }
}
