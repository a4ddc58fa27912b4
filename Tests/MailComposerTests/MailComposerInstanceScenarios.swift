import Foundation
import ServiceFixtures
import XCTest

/// MailComposer as the session's one instance: a second launch and a `mailto:` link open
/// their message in the running app, a link that cannot be read opens nothing and says why,
/// and the bus starts the app (its D-Bus service file) when batond continues a draft.
extension MailComposerHandoffScenarios {
    /// Runs `MailComposer ARGUMENTS` as a second launch on the session's bus and desktop;
    /// returns its exit status (nil if it did not exit within 10 s).
    private func secondLaunch(_ arguments: [String], name: String) throws -> Int32? {
        let second = MailComposerProcess(root: session.root.appendingPathComponent(name))
        second.desktop = desktop
        try FileManager.default.createDirectory(at: second.root, withIntermediateDirectories: true)
        try second.launch(arguments, environment: session.environment, standalone: false)
        defer { second.terminate() }
        let status = second.waitForExit()
        XCTAssertEqual(status, 0, second.log)
        return status
    }

    func checkASecondLaunchAndAMailtoLinkOpenInTheRunningInstance() throws {
        let first = try launch([], standalone: false)
        XCTAssertFalse(try first.windows(titled: "Mail Composer").isEmpty, "the main window is shown")

        _ = try secondLaunch(["--to", "bob@example.org", "--subject", "From a second launch"], name: "second")
        XCTAssertFalse(try first.windows(titled: "From a second launch").isEmpty,
                       "the running instance opened the second launch's message")
        XCTAssertTrue(waitUntil { try currentTitle() == "Draft: From a second launch" })

        let link = "mailto:dave@example.org?cc=erin@example.org&subject=Lunch%20at%20noon&body=See%20you%0D%0Athere"
        _ = try secondLaunch([link], name: "link")
        XCTAssertFalse(try first.windows(titled: "Lunch at noon").isEmpty, "the link opened in the running instance")
        XCTAssertTrue(waitUntil { try inspectedDraft()?["subject"] as? String == "Lunch at noon" },
                      "the compose window is current: \(String(describing: try? inspectedDraft()))")
        let draft = try XCTUnwrap(inspectedDraft())
        XCTAssertEqual(draft["to"] as? String, "dave@example.org")
        XCTAssertEqual(draft["cc"] as? String, "erin@example.org")
        XCTAssertEqual(draft["body"] as? String, "See you\nthere")
        XCTAssertEqual(draft["cursor"] as? Int, "See you\nthere".count)
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        XCTAssertEqual(apps.filter { $0["running"] as? Bool == true }.count, 1, "one instance: \(apps)")
        try screenshot("mailto-in-running-instance")
    }

    func checkALinkThatCannotBeReadOpensNothingAndSaysWhy() throws {
        let first = try launch([], standalone: false)
        XCTAssertFalse(try first.windows(titled: "Mail Composer").isEmpty)
        _ = try secondLaunch(["mailto:eve@example.org?subject=%ZZbroken"], name: "broken")
        XCTAssertTrue(waitUntil { first.log.contains("could not open a link: its subject is not correctly percent-encoded") },
                      first.log)
        XCTAssertTrue(try first.windows(timeout: 0.5) { $0.contains("broken") }.isEmpty, "nothing opened")

        // A line break in the subject would start a header line of its own in the sent message.
        _ = try secondLaunch(["mailto:eve@example.org?subject=Hi%0D%0ABcc:%20mallory@example.org"], name: "injection")
        XCTAssertTrue(waitUntil { (try inspectedDraft()?["subject"] as? String)?.hasPrefix("Hi") == true })
        XCTAssertEqual(try inspectedDraft()?["subject"] as? String, "Hi  Bcc: mallory@example.org")
        try screenshot("link-that-cannot-be-read")
    }

    func checkTheBusStartsMailComposerToContinueADraft() throws {
        let started = MailComposerProcess(root: session.root.appendingPathComponent("activated"))
        started.desktop = desktop
        try FileManager.default.createDirectory(at: started.root, withIntermediateDirectories: true)
        // The shipped desktop entry (DBusActivatable) with the program's path, as the installer
        // writes it, and a service file like the shipped one, with the test's folders.
        try String(contentsOf: started.shippedDesktopEntry, encoding: .utf8)
            .replacingOccurrences(of: "Exec=MailComposer", with: "Exec=\(MailComposerProcess.executable.path)")
            .write(to: session.dataHome.appendingPathComponent("applications/org.example.MailComposer.desktop"),
                   atomically: true, encoding: .utf8)
        let service = try String(contentsOf: started.shippedServiceFile, encoding: .utf8)
            .replacingOccurrences(of: "Exec=@bindir@/MailComposer", with: """
                Exec=/usr/bin/env BATON_TRACE=\(started.traceURL.path) \(MailComposerProcess.executable.path) \
                --state-dir \(started.stateDirectory.path) --data-dir \(started.dataDirectory.path) --save-interval 0
                """)
        XCTAssertTrue(service.contains("--gapplication-service"), service)
        try service.write(to: session.servicesFolder.appendingPathComponent("org.example.MailComposer.service"),
                          atomically: true, encoding: .utf8)

        let file = session.root.appendingPathComponent("draft.json")
        try JSONSerialization.data(withJSONObject: [
            "type": "org.example.mail.compose", "title": "Draft: Started by the bus", "teamID": "org.example",
            "userInfo": ["to": "frank@example.org", "subject": "Started by the bus", "body": "Hello"],
        ]).write(to: file)
        let result = try session.baton(["continue", "--file", file.path])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertNotNil(started.waitForEvent { $0.event == "restored" })
        XCTAssertEqual(started.events().first?.event, "will-continue",
                       "started for the continuation, the app opened no window of its own first: \(started.events().map(\.event))")
        let apps = try XCTUnwrap(session.baton(["apps", "--json"]).json as? [[String: Any]])
        let pid = try XCTUnwrap(apps.first { $0["running"] as? Bool == true }?["pid"] as? Int)
        started.pid = Int32(pid)
        defer { kill(Int32(pid), SIGTERM) }
        XCTAssertFalse(try started.windows(titled: "Started by the bus").isEmpty, "the draft's window is shown")
        XCTAssertTrue(batond.log.contains("activated org.example.MailComposer to continue org.example.mail.compose"),
                      "batond started it through D-Bus activation")
        try screenshot("started-by-the-bus")
    }
}
