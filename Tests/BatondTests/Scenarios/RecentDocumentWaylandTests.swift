import CX11
import Foundation
import ServiceFixtures
import XCTest

/// batond in a Wayland session (a headless sway), where no window says it is active: it offers
/// the most recent entry of a running app used within 10 minutes. Debian's gedit, on Wayland,
/// opens a file and batond offers it; an entry older than 10 minutes is not offered. The X
/// display batond is also given (as Xwayland would be) says no window is active, as it does
/// while a Wayland app has the focus: batond does not take that to mean no app is in use.
final class RecentDocumentWaylandTests: ServiceTestCase {
    private var desktop: WaylandSession?
    private var gedit: ChildProcess?
    private var xDisplay: OpaquePointer?
    private var home: URL { session.root.appendingPathComponent("home") }

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gedit"), "gedit is missing (scripts/setup.sh installs it)")
        if let missing = WaylandSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no X display to stand for Xwayland: run under xvfb-run")
        try super.setUpWithError()
    }

    override func prepare(_ session: ServiceSession) throws {
        let desktop = try WaylandSession()
        self.desktop = desktop
        try FileManager.default.createDirectory(at: session.root.appendingPathComponent("home/Docs"), withIntermediateDirectories: true)
        session.environmentOverrides.merge(desktop.environment) { $1 }
        session.environmentOverrides["HOME"] = session.root.appendingPathComponent("home").path
        session.environmentOverrides["XDG_SESSION_TYPE"] = "wayland"
        // The test's X display stands for Xwayland, and says no X window is active.
        let name = ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
        session.environmentOverrides["DISPLAY"] = name
        try sayNoXWindowIsActive(on: name)
    }

    override func tearDown() {
        gedit?.stop()
        if let xDisplay {
            XDeleteProperty(xDisplay, XDefaultRootWindow(xDisplay), XInternAtom(xDisplay, "_NET_ACTIVE_WINDOW", 0))
            XCloseDisplay(xDisplay)
        }
        super.tearDown()
        desktop?.stop()
    }

    /// Sets the root window's `_NET_ACTIVE_WINDOW` to none, as an EWMH window manager does
    /// when no X window has the focus.
    private func sayNoXWindowIsActive(on name: String) throws {
        let display = try XCTUnwrap(XOpenDisplay(name), "cannot open the X display \(name)")
        xDisplay = display
        var none: UInt = 0
        withUnsafeBytes(of: &none) { bytes in
            _ = XChangeProperty(display, XDefaultRootWindow(display), XInternAtom(display, "_NET_ACTIVE_WINDOW", 0),
                                Atom(XA_WINDOW), 32, PropModeReplace, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), 1)
        }
        XSync(display, 0)
    }

    private func offered() throws -> [String] {
        try activities().filter { $0["source"] as? String == "recent list" }.compactMap { $0["title"] as? String }
    }

    func testGeditOnWaylandIsOfferedByRecencyAndAnOldEntryIsNot() throws {
        let desktop = try XCTUnwrap(desktop)
        let file = home.appendingPathComponent("Docs/notes.txt")
        try "Plans for Friday\n".write(to: file, atomically: true, encoding: .utf8)
        gedit = try session.start(URL(fileURLWithPath: "/usr/bin/gedit"), ["--new-window", file.path], name: "gedit")
        XCTAssertTrue(waitUntil(timeout: 20) { try !desktop.windows(pid: nil) { $0.contains("notes.txt") }.isEmpty },
                      "gedit shows its window on sway: \(gedit?.log.suffix(1500) ?? "")")
        XCTAssertTrue(waitUntil(timeout: 20) { try self.offered().contains("notes.txt — gedit") },
                      "batond offers the file gedit opened, by recency: \((try? offered()) ?? []) \(batond.log.suffix(1500))")

        // The list written by hand: gedit's entry last used 11 minutes ago.
        let old = home.appendingPathComponent("Docs/old.txt")
        try "Last month\n".write(to: old, atomically: true, encoding: .utf8)
        let list = RecentListXML.list([RecentListXML.bookmark(old.path, app: "gedit", exec: "&apos;gedit %u&apos;",
                                                              at: Date().addingTimeInterval(-11 * 60))])
        try RecentListXML.replace(list, at: session.dataHome.appendingPathComponent("recently-used.xbel"))
        XCTAssertTrue(waitUntil(timeout: 10) { try self.offered().isEmpty },
                      "an entry of a running app older than 10 minutes is not offered: \((try? offered()) ?? [])")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try offered(), [])
        XCTAssertTrue(gedit?.isRunning == true, "gedit still runs")
    }

    func testGNOMETextEditorsOwnListIsRead() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gnome-text-editor")
                          && !((try? FileManager.default.destinationOfSymbolicLink(atPath: "/usr/bin/gnome-text-editor")) ?? "")
                            .contains("alternatives"),
                          "GNOME Text Editor is missing (scripts/setup.sh installs it)")
        let desktop = try XCTUnwrap(desktop)
        let file = home.appendingPathComponent("Docs/plan.md")
        try "# Plans for Friday\n".write(to: file, atomically: true, encoding: .utf8)
        gedit = try session.start(URL(fileURLWithPath: "/usr/bin/gnome-text-editor"), ["--standalone", file.path],
                                  name: "gnome-text-editor")
        XCTAssertTrue(waitUntil(timeout: 20) { try !desktop.windows(pid: nil) { $0.contains("plan.md") }.isEmpty },
                      "GNOME Text Editor shows its window on sway: \(gedit?.log.suffix(1500) ?? "")")
        XCTAssertTrue(waitUntil(timeout: 20) { try self.offered().contains("plan.md — gnome-text-editor") },
                      "batond offers the file from GNOME Text Editor's own list: \((try? offered()) ?? []) \(batond.log.suffix(1500))")
        XCTAssertFalse(FileManager.default.fileExists(atPath: session.dataHome.appendingPathComponent("recently-used.xbel").path),
                       "GNOME Text Editor 43 keeps its files out of GTK's shared list")
    }
}
