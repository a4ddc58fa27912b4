import Foundation
import ServiceFixtures
import XCTest

/// The person's controls over documents from the desktop's recent list, on one device with a
/// real app that does not adopt Baton (Debian's gedit, which writes the list itself): the
/// setting off withdraws the offer at once and lists nothing, on brings it back; a blocked
/// app offers nothing; `baton status`, `activities`, `apps` and `doctor` say where the offer
/// comes from; and the Baton app shows the setting and the app (screenshots with
/// `BATON_SCREENSHOTS`).
final class RecentDocumentSettingsTests: ServiceTestCase {
    private var started: [ChildProcess] = []

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gedit"), "gedit is missing (scripts/setup.sh installs it)")
        try requireDisplay()
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        session = try ServiceSession()
        // The session's root is the home folder: the documents offered are in it.
        session.environmentOverrides["HOME"] = session.root.path
        try session.startBus()
        batond = try session.startBatond()
    }

    override func tearDown() {
        started.forEach { $0.stop() }
        super.tearDown()
    }

    private let title = "notes.txt — gedit"

    private func listed() throws -> [String] {
        try activities().compactMap { $0["title"] as? String }
    }

    private func set(_ words: [String]) throws {
        let result = try session.baton(["settings"] + words)
        XCTAssertEqual(result.status, 0, result.errorOutput)
    }

    /// gedit has notes.txt open: the device offers it, from the recent list.
    private func openInGedit() throws {
        let folder = session.root.appendingPathComponent("Documents")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("notes.txt")
        try "Plans for Friday\n".write(to: file, atomically: true, encoding: .utf8)
        started.append(try session.start(URL(fileURLWithPath: "/usr/bin/gedit"), ["--new-window", file.path], name: "gedit"))
        XCTAssertNotNil(session.waitForActivity(titled: title, timeout: 20),
                        "the document gedit has open is listed: \(String(batond.log.suffix(1500)))")
    }

    func testTheSettingAndABlockWithdrawTheOfferAtOnceAndTheToolsSayWhereItCameFrom() throws {
        try openInGedit()
        let record = try XCTUnwrap(try activities().first { $0["title"] as? String == title })
        XCTAssertEqual(record["source"] as? String, "recent list")
        XCTAssertTrue(try session.baton(["activities"]).output.contains("this device, from the recent list, used in gedit"))
        let status = try session.baton(["status"]).output
        XCTAssertTrue(status.contains("offered to paired devices: \(title), a document from the recent list, used in gedit"), status)
        let doctor = try session.baton(["doctor"]).output
        XCTAssertTrue(doctor.contains("✔ recent documents: on: the recent list holds"), doctor)
        XCTAssertTrue(doctor.contains("does not say which window is active"), "no window manager here: recency is used: \(doctor)")
        let apps = try session.baton(["apps", "--json"]).json as? [[String: Any]] ?? []
        let gedit = try XCTUnwrap(apps.first { $0["source"] as? String == "recent list" }, "ListApps lists gedit: \(apps)")
        XCTAssertEqual(gedit["app-id"] as? String, "gedit")
        XCTAssertEqual(gedit["desktop-entry"] as? String, "org.gnome.gedit.desktop", "named by its desktop entry: \(gedit)")
        XCTAssertNotNil(gedit["icon"])

        // Off: withdrawn by the time the command returns; listed nowhere, offered to nobody.
        try set(["recent-documents", "off"])
        XCTAssertFalse(try listed().contains(title), "off withdraws the offer at once")
        XCTAssertTrue(try session.baton(["status"]).output.contains("offered to paired devices: nothing"))
        XCTAssertTrue(try session.baton(["settings"]).output.contains("Recent documents: off"))
        XCTAssertTrue(try session.baton(["doctor"]).output.contains("✔ recent documents: off"))
        XCTAssertTrue(try session.baton(["apps"]).output.contains("recent list"), "its apps are still listed, to block")
        try set(["recent-documents", "on"])
        XCTAssertTrue(try listed().contains(title), "on: offered again at once")

        // A blocked app offers nothing; allowed again, it does.
        try set(["app", "gedit", "block"])
        XCTAssertFalse(try listed().contains(title), "a blocked app's document is not offered")
        XCTAssertEqual((try session.baton(["settings", "--json"]).json as? [String: Any])?["blocked-apps"] as? [String], ["gedit"])
        try set(["app", "gedit", "allow"])
        XCTAssertTrue(try listed().contains(title))

        try screenshotsOfTheApp()
    }

    /// The Baton app's This Device page (the setting) and Apps page (gedit with its switch).
    private func screenshotsOfTheApp() throws {
        guard let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] else { return }
        let desktop = X11Desktop()
        let app = try session.start(ServiceSession.product("baton-app"), ["--page", "device"], name: "baton-app")
        started.append(app)
        var window: String?
        XCTAssertTrue(waitUntil(timeout: 10) {
            window = try desktop.windows(pid: app.pid) { $0 == "Baton" }.first
            return window != nil
        }, "the app's window: \(app.log)")
        XCTAssertTrue(waitUntil(timeout: 10) { app.log.contains("showing ") }, app.log)
        try desktop.focus(try XCTUnwrap(window))
        Thread.sleep(forTimeInterval: 0.5)
        try desktop.screenshot(to: "\(folder)/recent-documents-device.png")
        try desktop.key("alt+4")
        Thread.sleep(forTimeInterval: 0.5)
        try desktop.screenshot(to: "\(folder)/recent-documents-apps.png")
        try set(["recent-documents", "off"])
        Thread.sleep(forTimeInterval: 0.5)
        try desktop.screenshot(to: "\(folder)/recent-documents-apps-off.png")
        // Another device's document from its recent list, as the Offers page shows it: Continue,
        // not "No app on this computer can open this".
        let offer = try session.baton(["offer", "--device", "alpha", "--file", try activityFile([
            "type": "org.baton.recent-document", "title": "report.pdf — Document Viewer",
        ])])
        XCTAssertEqual(offer.status, 0, offer.errorOutput)
        XCTAssertTrue(waitUntil(timeout: 10) { app.log.contains("showing 1 offers") }, app.log)
        try desktop.key("alt+3")
        Thread.sleep(forTimeInterval: 0.5)
        try desktop.screenshot(to: "\(folder)/recent-documents-offers.png")
    }
}
