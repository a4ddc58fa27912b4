import Baton
@testable import BatonBus
import BatonGLib
import Foundation
import ServiceFixtures
import XCTest

/// An activity error says what went wrong once, even when it crossed the bus without its
/// record (from gdbus, or an app not built on BatonGtk): the message is then all there is,
/// and reading it back must not wrap the error's words around the words they already hold.
@MainActor
final class ActivityErrorMessageTests: XCTestCase {
    private static let errors: [UserActivityError] = [
        .handoffFailed("no peer"), .connectionUnavailable("bluetooth off"), .remoteApplicationTimedOut("5 s"),
        .invalidWebpageURL("ftp://example.org/x"), .invalidUserInfo("userInfo[\"draft\"] is nested deeper than 32 levels"),
        .malformedPayload("truncated"), .invalidActivity("the title is 5006 bytes, over the limit of 4096 bytes"),
        .cancelled,
    ]

    /// How many times `part` occurs in `text`.
    private func occurrences(of part: String, in text: String) -> Int {
        text.components(separatedBy: part).count - 1
    }

    func testAnErrorSentWithoutItsRecordReadsBackAsSent() async throws {
        let bus = try PrivateBus()
        defer { bus.tearDown() }
        let (server, client) = (bus.server, bus.client)
        let registration = try server.export(path: "/org/baton/Test", interface: "org.baton.Test", introspectionXML: """
            <node><interface name="org.baton.Test"><method name="Fail"><arg direction="in" type="u"/></method></interface></node>
            """) { call in
            let index = Int(call.arguments.at(0)?.integer ?? 0)
            // No record: the error's name and its description as the message, all gdbus sends.
            call.fail(with: Self.errors[min(max(index, 0), Self.errors.count - 1)])
        }
        defer { server.unexport(registration) }
        for (index, sent) in Self.errors.enumerated() {
            do {
                _ = try await Outcome {
                    try await client.call(server.uniqueName, path: "/org/baton/Test", interface: "org.baton.Test",
                                          method: "Fail", arguments: [.uint32(UInt32(index))], timeout: 5)
                }.get()
                XCTFail("the call succeeded")
            } catch let error as BusError {
                XCTAssertEqual(error.details, [:], "sent without a record")
                let read = ServiceError.userActivityError(from: error)
                XCTAssertEqual(read, sent, "read back from \"\(error.message)\"")
                let said = ServiceError.activity(read).description
                XCTAssertEqual(said, ServiceError.activity(sent).description)
                XCTAssertEqual(occurrences(of: "(error \(sent.code))", in: said), 1, said)
            }
        }
    }

    /// The message of a record-less error read back once more (a second hop) is still the
    /// error's own; a message in other words is the reason whole.
    func testTheReasonInAMessageIsFoundAfterAnyNumberOfHops() async throws {
        let sent = UserActivityError.invalidActivity("the title is 5006 bytes, over the limit of 4096 bytes")
        let once = ServiceError.activity(sent).description
        let twice = "the activity cannot be encoded: \(once) (error 4643)"
        for message in [once, twice, sent.description] {
            XCTAssertEqual(ServiceError.reason(inMessage: message, code: 4643), "the title is 5006 bytes, over the limit of 4096 bytes",
                           message)
        }
        XCTAssertEqual(ServiceError.reason(inMessage: "disk full", code: 4643), "disk full")
        XCTAssertEqual(ServiceError.reason(inMessage: "handoff failed: gone (error 4608)", code: 4608), "gone")
        let url = UserActivityError.invalidWebpageURL("ftp://example.org/x")
        XCTAssertEqual(ServiceError.reason(inMessage: ServiceError.activity(url).description, code: 4640),
                       "ftp://example.org/x")
    }

    /// End to end: an app that answers batond's `Save` with an error and no record (as one not
    /// built on BatonGtk may), and `baton inspect` says the error once.
    func testBatonInspectSaysAnAppsErrorOnce() async throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        let session = try ServiceSession()
        defer { session.tearDown() }
        try session.startBus()
        let batond = try session.startBatond()
        let app = try BusConnection.bus(at: session.busAddress)
        let refusal = UserActivityError.invalidActivity("the title is 5006 bytes, over the limit of 4096 bytes")
        let registration = try app.export(path: BatonService.applicationPath, interface: BatonService.applicationInterface,
                                          introspectionXML: BatonService.applicationIntrospectionXML) { call in
            call.fail(with: refusal)
        }
        defer { app.unexport(registration) }
        let type = "org.example.plain.note"
        _ = try await Outcome {
            try await app.call(BatonService.busName, path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                               method: "Register", arguments: [.string("org.example.Plain"), .string("org.example"),
                                                               .strings([type])], timeout: 10)
        }.get()
        _ = try await Outcome {
            try await app.call(BatonService.busName, path: BatonService.daemonPath, interface: BatonService.daemonInterface,
                               method: "PublishCurrent",
                               arguments: [.string("note-1"), .dictionary(ActivitySummary(activityType: type, title: "Plain").record)],
                               timeout: 10)
        }.get()

        // baton runs while this test's main loop answers batond's Save.
        let baton = Process()
        baton.executableURL = ServiceSession.product("baton")
        baton.arguments = ["inspect"]
        baton.environment = session.environment
        let errors = Pipe()
        baton.standardError = errors
        baton.standardOutput = FileHandle.nullDevice
        try baton.run()
        let exited = await pumpMainLoop(timeout: 30) { !baton.isRunning }
        if !exited { baton.terminate() }
        XCTAssertTrue(exited, "baton inspect did not finish")
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(baton.terminationStatus, 1, message)
        XCTAssertTrue(message.hasPrefix("baton: "), message)
        XCTAssertTrue(message.contains("the title is 5006 bytes, over the limit of 4096 bytes"), message)
        XCTAssertEqual(occurrences(of: "cannot be encoded", in: message), 1, "said once: \(message)")
        XCTAssertEqual(occurrences(of: "(error 4643)", in: message), 1, "numbered once: \(message)")
        XCTAssertTrue(batond.isRunning, "batond exited: \(batond.log)")
    }
}
