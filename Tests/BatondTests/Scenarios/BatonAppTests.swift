import Foundation
import ServiceFixtures
import XCTest

/// The Baton app, driven as a person would with the keyboard: two devices pair entirely from
/// the app (Pair on one, the request's dialog on the other, each typing the code the other
/// shows), then an offer is continued from the app's list. On the test's X display
/// (`BatonAppTests`, xdotool) and on a headless sway (`BatonAppWaylandTests`, wtype).
class BatonAppScenarios: XCTestCase {
    class var desktopKind: TestDesktopKind { .x11 }

    var devices: DevicePair!
    var desktop: (any TestDesktop)!

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        if let missing = Self.desktopKind.missingRequirement { throw XCTSkip(missing) }
        desktop = try Self.desktopKind.make()
        devices = try DevicePair(fixedNames: false)
        // Every app on either device shows its windows on the test's desktop.
        devices.a.environmentOverrides.merge(desktop.environment) { $1 }
        devices.b.environmentOverrides.merge(desktop.environment) { $1 }
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false { devices?.printLogs() }
        devices?.tearDown()
        desktop?.stop()
    }

    func screenshot(_ name: String) throws {
        guard let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] else { return }
        let prefix = desktop.kind == "x11" ? "" : "\(desktop.kind)-"
        try desktop.screenshot(to: "\(folder)/\(prefix)baton-app-\(name).png")
    }

    /// The app's window titled `title` (or, with `nil`, its one window not titled "Baton": a dialog).
    /// A window of `app` titled `title` (any dialog, for none), other than those `besides`.
    private func window(of app: ChildProcess, titled title: String?, besides: Set<String> = []) throws -> String {
        var found: String?
        XCTAssertTrue(waitUntil(timeout: 10) {
            found = try self.desktop.windows(pid: app.pid) { title.map($0.elementsEqual) ?? ($0 != "Baton") }
                .first { !besides.contains($0) }
            return found != nil
        }, "no window \(title ?? "(dialog)") of the app: \(app.log)")
        return try XCTUnwrap(found)
    }

    func checkTwoDevicesPairFromTheAppAndContinueAnOfferFromTheList() throws {
        let (appA, appB, windowA, windowB) = try startApps()
        // The Doctor page holds the checks only a client can make as well as batond's: the
        // test session enables no unit and no autostart entry, so that one fails.
        XCTAssertTrue(appA.log.contains("failed:") && appA.log.contains("starts with the session"), appA.log)
        try screenshot("devices-before-pairing")

        // On B, Pair (the first button of the Devices page has the focus) asks alpha.
        try desktop.focus(windowB)
        try desktop.key("Return")
        var codeShownOnB: String?
        var codeShownOnA: String?
        XCTAssertTrue(waitUntil(timeout: 10) {
            codeShownOnB = try self.devices.device(self.devices.idA, on: self.devices.b)?["pairing-code"] as? String
            codeShownOnA = try self.devices.device(self.devices.idB, on: self.devices.a)?["pairing-code"] as? String
            return codeShownOnA != nil && codeShownOnB != nil
        }, "the pairing began on both devices")
        // Each app shows a dialog with its code; the person types there the code the other shows.
        let dialogA = try window(of: appA, titled: nil)
        let dialogB = try window(of: appB, titled: nil)
        try screenshot("pairing-dialogs")
        try desktop.focus(dialogA)
        try desktop.type(try XCTUnwrap(codeShownOnB))
        try desktop.key("Return")
        try desktop.focus(dialogB)
        try desktop.type(try XCTUnwrap(codeShownOnA))
        try desktop.key("Return")
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.devices.device(self.devices.idA, on: self.devices.b)?["paired"] as? Bool == true
                && self.devices.device(self.devices.idB, on: self.devices.a)?["paired"] as? Bool == true
        }, "paired from the app on both devices")
        try screenshot("paired")

        // A's note is offered; B continues it from the app's Offers page (Alt+3).
        try devices.b.installTestAppEntry(id: "org.baton.Target")
        let target = NoteAppProcess(root: devices.b.root, name: "target")
        target.child = try devices.b.start(ServiceSession.product("BatonTestApp"),
                                           ["app", "--app-id", "org.baton.Target", "--text", "idle on beta"],
                                           name: "target", environment: ["BATON_TRACE": target.traceURL.path])
        try devices.a.installTestAppEntry(id: "org.baton.TestApp")
        let origin = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "from alpha"],
                                         name: "origin")
        XCTAssertNotNil(devices.b.waitForActivity(titled: "Note: from alpha", timeout: 15), "B lists A's note")
        XCTAssertTrue(waitUntil(timeout: 10) { appB.log.contains("showing 1 offers") }, "B's app shows it: \(appB.log)")
        // Both note windows are up: one mapped later would take the keyboard focus from B's app.
        _ = try window(of: origin, titled: "Note")
        let targetWindow = try window(of: target.child, titled: "Note")
        Thread.sleep(forTimeInterval: 0.5)
        try desktop.focus(windowB)
        try desktop.key("alt+3")
        // B's Offers page whole in the screenshot: A's window moves off the screen a moment.
        try moveOnX11(windowA, to: 1280)
        try moveOnX11(windowB, to: 0)
        Thread.sleep(forTimeInterval: 0.5)
        try screenshot("offers")
        try desktop.key("Return")
        let restored = try XCTUnwrap(target.waitForEvent("restored"), "Continue in the app continued the offer")
        XCTAssertEqual((restored["userInfo"] as? [String: Any])?["text"] as? String, "from alpha")
        XCTAssertTrue(target.child.log.contains("note: activation token") && !target.child.log.contains("note: activation token none"),
                      "the app's click reached the continuing app as an activation token: \(target.child.log)")
        if Self.desktopKind == .wayland {
            // The compositor honours the token: the continued window comes to the front.
            XCTAssertTrue(waitUntil(timeout: 5) { try self.desktop.focusedWindow() == targetWindow },
                          "the continued window has the focus (sway, by the Baton app's activation token); focused: "
                          + "\(String(describing: try? desktop.focusedWindow())), continued: \(targetWindow)")
            try screenshot("continued-focused")
        }
        // A's pages whole in the screenshots: B's window moves off the screen.
        try moveOnX11(windowB, to: 1280)
        try moveOnX11(windowA, to: 0)
        try desktop.focus(windowA)
        for (key, page) in [("alt+4", "apps"), ("alt+5", "doctor"), ("alt+1", "device")] {
            try desktop.key(key)
            Thread.sleep(forTimeInterval: 0.5)
            try screenshot(page)
        }
        // The person renames A on its This Device page (Alt+N, the name's mnemonic): B shows
        // the new name.
        try desktop.key("alt+n")
        try desktop.key("ctrl+a")
        try desktop.type("Study")
        try desktop.key("Return")
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.devices.device(self.devices.idA, on: self.devices.b)?["name"] as? String == "Study"
        }, "renamed from the app: \(appA.log)")
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.devices.b.activities().contains { $0["device"] as? String == "Study" }
        }, "B's offer from A names it by its new name")
        Thread.sleep(forTimeInterval: 0.5)
        try screenshot("device-renamed")
        // "Continuing…" gave way to "Continued" in B's app within milliseconds, during the
        // first toast's show animation: libadwaita 1.2 crashed the app there.
        XCTAssertTrue(appA.isRunning && appB.isRunning, "both apps still run: \(appA.log.suffix(2000)) \(appB.log.suffix(2000))")
    }

    /// Starts both apps on the Devices page, side by side, and waits until each lists the
    /// other device; returns them and their windows.
    private func startApps() throws -> (a: ChildProcess, b: ChildProcess, windowA: String, windowB: String) {
        // Freed memory filled with garbage: a use after free crashes the app at once, not now and then.
        let appA = try devices.a.start(ServiceSession.product("baton-app"), ["--page", "devices"], name: "app-a",
                                       environment: ["MALLOC_PERTURB_": "165"])
        let appB = try devices.b.start(ServiceSession.product("baton-app"), ["--page", "devices"], name: "app-b",
                                       environment: ["MALLOC_PERTURB_": "165"])
        let windowA = try window(of: appA, titled: "Baton")
        let windowB = try window(of: appB, titled: "Baton")
        // Side by side, as two screens would be (Xvfb has no window manager to place them).
        try moveOnX11(windowB, to: 640)
        // Each app has read its pages (the line it logs after each rebuild).
        XCTAssertTrue(waitUntil(timeout: 10) { appA.log.contains("1 other devices") && appB.log.contains("1 other devices") },
                      "the apps list the other device: \(appA.log) \(appB.log)")
        return (appA, appB, windowA, windowB)
    }

    /// Moves `window` to `x` on the X display (sway places windows itself).
    private func moveOnX11(_ window: String, to x: Int) throws {
        guard desktop.kind == "x11" else { return }
        let move = Process()
        move.executableURL = URL(fileURLWithPath: "/usr/bin/xdotool")
        move.arguments = ["windowmove", window, "\(x)", "0"]
        try move.run()
        move.waitUntilExit()
    }

    /// A wrong code typed on A is explained on both screens ("Pairing Failed", the codes
    /// didn't match), and Try Again on A starts a new pairing that the right codes complete.
    func checkAWrongCodeIsExplainedOnBothScreensAndTryAgainPairs() throws {
        let (appA, appB, _, windowB) = try startApps()
        try desktop.focus(windowB)
        try desktop.key("Return")
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.devices.device(self.devices.idB, on: self.devices.a)?["pairing-code"] as? String != nil
        }, "the pairing began")
        let dialogA = try window(of: appA, titled: nil)
        _ = try window(of: appB, titled: nil)
        try desktop.focus(dialogA)
        try desktop.type("000 000")
        try desktop.key("Return")
        XCTAssertTrue(waitUntil(timeout: 10) {
            try !self.desktop.windows(pid: appA.pid) { $0 == "Pairing Failed" }.isEmpty
                && !self.desktop.windows(pid: appB.pid) { $0 == "Pairing Failed" }.isEmpty
        }, "both apps say the pairing failed: \(appA.log) \(appB.log)")
        XCTAssertTrue(appA.log.contains("The codes didn’t match"), appA.log)
        XCTAssertTrue(appB.log.contains("the codes didn’t match, or it was cancelled there"), appB.log)
        XCTAssertEqual(try devices.device(devices.idB, on: devices.a)?["paired"] as? Bool, false)
        try screenshot("pairing-failed")

        // The person on B closes its "Pairing Failed" (Escape), as they would before pairing
        // again; then Try Again (the default answer) on A: a new pairing, which the right codes
        // complete, typed into the new dialogs (the first pairing's may still be closing).
        let failedB = try XCTUnwrap(try desktop.windows(pid: appB.pid) { $0 == "Pairing Failed" }.first)
        try desktop.focus(failedB)
        try desktop.key("Escape")
        XCTAssertTrue(waitUntil(timeout: 10) { try self.desktop.windows(pid: appB.pid) { $0 == "Pairing Failed" }.isEmpty },
                      "B's Pairing Failed closed")
        let earlierDialogs = Set(try desktop.windows(pid: appA.pid) { _ in true } + desktop.windows(pid: appB.pid) { _ in true })
        let failedA = try XCTUnwrap(try desktop.windows(pid: appA.pid) { $0 == "Pairing Failed" }.first)
        try desktop.focus(failedA)
        try desktop.key("Return")
        var codeOnA: String?
        var codeOnB: String?
        XCTAssertTrue(waitUntil(timeout: 10) {
            codeOnA = try self.devices.device(self.devices.idB, on: self.devices.a)?["pairing-code"] as? String
            codeOnB = try self.devices.device(self.devices.idA, on: self.devices.b)?["pairing-code"] as? String
            return codeOnA != nil && codeOnB != nil
        }, "Try Again began a new pairing")
        let newDialogA = try window(of: appA, titled: "Pair with “beta”?", besides: earlierDialogs)
        try desktop.focus(newDialogA)
        try desktop.type(try XCTUnwrap(codeOnB))
        try desktop.key("Return")
        let newDialogB = try window(of: appB, titled: "Pair with “alpha”?", besides: earlierDialogs)
        try desktop.focus(newDialogB)
        try desktop.type(try XCTUnwrap(codeOnA))
        try desktop.key("Return")
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.devices.device(self.devices.idB, on: self.devices.a)?["paired"] as? Bool == true
        }, "paired after trying again")
    }
}

extension BatonAppScenarios {
    /// A pairing request's notification on A has Enter Code (here clicked by the notification
    /// server): batond opens the installed Baton app, whose dialog takes the code B shows,
    /// and the two pair without a terminal on A. On X11 only: the apps batond starts get
    /// batond's environment, and the harness starts batond before the Wayland session.
    func checkEnterCodeOnAPairingNotificationOpensTheAppsDialog(appRunning: Bool = false) throws {
        let entry = try String(contentsOf: ExampleAppProcess.shippedResources("MailComposer")
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/BatonApp/Resources/org.baton.Baton.desktop"), encoding: .utf8)
            .replacingOccurrences(of: "@bindir@", with: ServiceSession.product("baton-app").deletingLastPathComponent().path)
        try entry.write(to: devices.a.dataHome.appendingPathComponent("applications/org.baton.Baton.desktop"),
                        atomically: true, encoding: .utf8)
        let log = devices.a.root.appendingPathComponent("clicks.jsonl")
        let server = try devices.a.start(ServiceSession.product("BatonTestApp"),
                                         ["notification-server", "--log", log.path, "--invoke", "enter-code"], name: "notifications")
        XCTAssertTrue(waitUntil { server.log.contains("notification server ready") }, server.log)
        // Already open on another page: Enter Code goes to its devices page.
        let running = try appRunning ? devices.a.start(ServiceSession.product("baton-app"), ["--page", "offers"], name: "app-a") : nil
        if let running {
            XCTAssertTrue(waitUntil(timeout: 10) { running.log.contains("showing 0 offers") }, running.log)
        }
        let request = try devices.b.baton(["pair", "alpha"])
        XCTAssertEqual(request.status, 0, request.errorOutput)
        var dialog: String?
        XCTAssertTrue(waitUntil(timeout: 15) {
            dialog = try self.desktop.windows(pid: nil) { $0 == "Pair with “beta”?" }.first
            return dialog != nil
        }, "Enter Code opened the Baton app's pairing dialog: \(devices.batondA.log.suffix(1500))")
        if let running {
            XCTAssertTrue(waitUntil(timeout: 5) { running.log.contains("showing the devices page") },
                          "the running app went to its devices page: \(running.log)")
            XCTAssertEqual(try desktop.windows(pid: running.pid) { $0 == "Pair with “beta”?" }.count, 1,
                           "the running app shows the dialog")
        }
        Thread.sleep(forTimeInterval: 0.5)
        try screenshot(appRunning ? "enter-code-app-running" : "enter-code")
        let codeOnB = try XCTUnwrap(try devices.device(devices.idA, on: devices.b)?["pairing-code"] as? String)
        let codeOnA = try XCTUnwrap(try devices.device(devices.idB, on: devices.a)?["pairing-code"] as? String)
        try desktop.focus(try XCTUnwrap(dialog))
        try desktop.type(codeOnB)
        try desktop.key("Return")
        XCTAssertEqual(try devices.b.baton(["pair", "--confirm", "alpha", codeOnA]).status, 0)
        XCTAssertTrue(waitUntil(timeout: 10) {
            try self.devices.device(self.devices.idB, on: self.devices.a)?["paired"] as? Bool == true
        }, "paired, A's code typed in the app")
    }
}

extension BatonAppScenarios {
    /// Continue in the app says at once that it is continuing, and a failure is explained
    /// where the person clicked, in plain words ("Couldn’t Continue"), not only in a window of
    /// another app that may be behind.
    func checkAFailedContinueIsExplainedInTheApp() throws {
        let app = try devices.b.start(ServiceSession.product("baton-app"), ["--page", "offers"], name: "app-b")
        let windowB = try window(of: app, titled: "Baton")
        try devices.b.installTestAppEntry(id: "org.baton.TestApp")
        _ = try devices.b.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "declining", "--decline"],
                                name: "decliner")
        let file = devices.b.root.appendingPathComponent("offer.json")
        try JSONSerialization.data(withJSONObject: ["type": "org.baton.test.note", "title": "Lunch on Friday",
                                                    "userInfo": ["text": "noon"], "teamID": "org.baton.test"]).write(to: file)
        XCTAssertEqual(try devices.b.baton(["offer", "--file", file.path, "--device", "laptop"]).status, 0)
        XCTAssertTrue(waitUntil(timeout: 10) { app.log.contains("showing 1 offers") }, app.log)
        Thread.sleep(forTimeInterval: 0.5)
        try desktop.focus(windowB)
        try desktop.key("alt+3")
        Thread.sleep(forTimeInterval: 0.3)
        try desktop.key("Return")
        XCTAssertTrue(waitUntil(timeout: 15) { try !self.desktop.windows(pid: app.pid) { $0 == "Couldn’t Continue" }.isEmpty },
                      "the app says why, where the person clicked: \(app.log)")
        XCTAssertTrue(app.log.contains("could not continue Lunch on Friday"), app.log)
        Thread.sleep(forTimeInterval: 0.3)
        try screenshot("continue-failed")
    }
}

extension BatonAppScenarios {
    /// Continue in the app while the other device's app is slow to save: "Continuing…" stays
    /// with Cancel; Cancel (the toast's button runs `app.cancel-continue`, activated here
    /// over GApplication's D-Bus actions) ends the continuation, said as "Cancelled", with no
    /// failure dialog and nothing continued on either side.
    func checkCancelInTheAppStopsAContinue() throws {
        _ = try devices.pair()
        try devices.b.installTestAppEntry(id: "org.baton.TestApp")
        let origin = try devices.a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "slow lunch"], name: "origin")
        XCTAssertNotNil(devices.b.waitForActivity(titled: "Note: slow lunch", timeout: 15), "B lists A's note")
        let app = try devices.b.start(ServiceSession.product("baton-app"), ["--page", "offers"], name: "app-b")
        let windowB = try window(of: app, titled: "Baton")
        XCTAssertTrue(waitUntil(timeout: 10) { app.log.contains("showing 1 offers") }, app.log)
        // A's app cannot save: its batond still answers, but the payload would take 5 s.
        kill(origin.pid, SIGSTOP)
        defer { kill(origin.pid, SIGCONT) }
        Thread.sleep(forTimeInterval: 0.5)
        try desktop.focus(windowB)
        try desktop.key("alt+3")
        Thread.sleep(forTimeInterval: 0.3)
        try desktop.key("Return")
        Thread.sleep(forTimeInterval: 1)
        try screenshot("continuing")
        let cancel = try devices.b.run(URL(fileURLWithPath: "/usr/bin/gdbus"), [
            "call", "--session", "--dest", "org.baton.Baton", "--object-path", "/org/baton/Baton",
            "--method", "org.gtk.Actions.Activate", "cancel-continue", "[]", "{}",
        ])
        XCTAssertEqual(cancel.status, 0, cancel.errorOutput)
        XCTAssertTrue(waitUntil(timeout: 3) { app.log.contains("continuing Note: slow lunch was cancelled") },
                      "the app's continuation ended as cancelled, well before A's 5 s save: \(app.log)")
        Thread.sleep(forTimeInterval: 0.3)
        try screenshot("cancelled")
        XCTAssertTrue(try desktop.windows(pid: app.pid) { $0 == "Couldn’t Continue" }.isEmpty, "a cancel is not a failure")
        XCTAssertFalse(devices.batondB.log.contains("starting org.baton.TestApp"), "no app was started on B")
    }
}

/// On the test's X display (xvfb-run), driven with xdotool.
final class BatonAppTests: BatonAppScenarios {
    func testCancelInTheAppStopsAContinue() throws {
        try checkCancelInTheAppStopsAContinue()
    }

    func testAFailedContinueIsExplainedInTheApp() throws {
        try checkAFailedContinueIsExplainedInTheApp()
    }

    func testEnterCodeOnAPairingNotificationOpensTheAppsDialog() throws {
        try checkEnterCodeOnAPairingNotificationOpensTheAppsDialog()
    }

    func testEnterCodeWithTheAppOpenOnAnotherPageGoesToItsDevicesPage() throws {
        try checkEnterCodeOnAPairingNotificationOpensTheAppsDialog(appRunning: true)
    }

    func testTwoDevicesPairFromTheAppAndContinueAnOfferFromTheList() throws {
        try checkTwoDevicesPairFromTheAppAndContinueAnOfferFromTheList()
    }

    func testAWrongCodeIsExplainedOnBothScreensAndTryAgainPairs() throws {
        try checkAWrongCodeIsExplainedOnBothScreensAndTryAgainPairs()
    }
}

/// On a headless sway, driven with wtype and sway's IPC.
final class BatonAppWaylandTests: BatonAppScenarios {
    override class var desktopKind: TestDesktopKind { .wayland }

    func testTwoDevicesPairFromTheAppAndContinueAnOfferFromTheList() throws {
        try checkTwoDevicesPairFromTheAppAndContinueAnOfferFromTheList()
    }

    func testAWrongCodeIsExplainedOnBothScreensAndTryAgainPairs() throws {
        try checkAWrongCodeIsExplainedOnBothScreensAndTryAgainPairs()
    }
}
