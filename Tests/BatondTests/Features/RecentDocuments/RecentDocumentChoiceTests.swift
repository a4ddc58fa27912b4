import XCTest

@testable import batond

/// Which recent document is offered: the active window's app's on X11, else the most recent of
/// a running app within 10 minutes.
final class RecentDocumentChoiceTests: XCTestCase {
    private let now = 1_800_000_000.0
    private func entry(_ name: String, _ exec: String, minutesAgo: Double) -> RecentList.Entry {
        RecentList.Entry(path: "/home/p/\(name)", mimeType: nil, appName: exec, exec: "'\(exec) %u'", usedAt: now - minutesAgo * 60)
    }

    private var entries: [RecentList.Entry] {
        [entry("notes.txt", "gedit", minutesAgo: 1), entry("report.pdf", "evince", minutesAgo: 3),
         entry("old.pdf", "evince", minutesAgo: 30)]
    }

    func testTheActiveWindowsAppDecides() {
        let evince = ActiveWindow(pid: 42, applicationID: nil, classNames: [])
        let chosen = RecentDocumentChoice.choose(from: entries, activeWindow: evince, running: ["gedit", "evince"],
                                                 programOfProcess: { $0 == 42 ? "evince" : nil }, now: now)
        XCTAssertEqual(chosen?.path, "/home/p/report.pdf", "Evince is in front: its newest document, not gedit's newer one")
        let byID = ActiveWindow(pid: nil, applicationID: "org.gnome.gedit", classNames: [])
        XCTAssertEqual(RecentDocumentChoice.choose(from: entries, activeWindow: byID, running: [], programOfProcess: { _ in nil },
                                                   now: now)?.path, "/home/p/notes.txt")
        let byClass = ActiveWindow(pid: nil, applicationID: nil, classNames: ["evince", "Evince"])
        XCTAssertEqual(RecentDocumentChoice.choose(from: entries, activeWindow: byClass, running: [], programOfProcess: { _ in nil },
                                                   now: now)?.path, "/home/p/report.pdf")
        let terminal = ActiveWindow(pid: 7, applicationID: "org.gnome.Terminal", classNames: ["gnome-terminal"])
        XCTAssertNil(RecentDocumentChoice.choose(from: entries, activeWindow: terminal, running: ["gedit", "evince"],
                                                 programOfProcess: { _ in "gnome-terminal" }, now: now),
                     "another app in front: nothing is offered")
    }

    func testWithoutAnActiveWindowTheNewestOfARunningAppWithinTenMinutes() {
        let choose = { (running: Set<String>) in
            RecentDocumentChoice.choose(from: self.entries, activeWindow: nil, running: running, programOfProcess: { _ in nil },
                                        now: self.now)?.path
        }
        XCTAssertEqual(choose(["gedit", "evince"]), "/home/p/notes.txt")
        XCTAssertEqual(choose(["evince"]), "/home/p/report.pdf", "gedit quit: Evince's")
        XCTAssertNil(choose(["firefox-esr"]), "none of their apps runs")
        XCTAssertNil(RecentDocumentChoice.choose(from: [entry("old.pdf", "evince", minutesAgo: 30)], activeWindow: nil,
                                                 running: ["evince"], programOfProcess: { _ in nil }, now: now),
                     "used 30 minutes ago: not offered where the active window is unknown")
    }

    func testAWaylandSessionsXDisplayIsNotWatched() {
        XCTAssertEqual(ActiveWindowWatcher.displayToWatch(in: ["DISPLAY": ":0"]), ":0")
        XCTAssertNil(ActiveWindowWatcher.displayToWatch(in: ["DISPLAY": ""]))
        XCTAssertNil(ActiveWindowWatcher.displayToWatch(in: [:]))
        // Xwayland sees only X clients: a Wayland app in use would never be offered.
        XCTAssertNil(ActiveWindowWatcher.displayToWatch(in: ["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"]))
        XCTAssertNil(ActiveWindowWatcher.displayToWatch(in: ["DISPLAY": ":0", "XDG_SESSION_TYPE": "wayland"]))
        XCTAssertEqual(ActiveWindowWatcher.displayToWatch(in: ["DISPLAY": ":0", "WAYLAND_DISPLAY": "", "XDG_SESSION_TYPE": "x11"]), ":0")
    }

    func testRunningProgramsIncludesThisProcess() {
        let names = RunningPrograms.names()
        let me = RunningPrograms.program(of: getpid())
        XCTAssertNotNil(me)
        XCTAssertTrue(names.contains(me ?? ""), "\(String(describing: me)) among \(names.count) names")
    }
}
