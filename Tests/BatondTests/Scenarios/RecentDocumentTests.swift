import Foundation
import ServiceFixtures
import XCTest

/// A document opened on A in a real app that does not adopt Baton (Debian's gedit, Debian's
/// Evince), in a folder B does not see: A's batond reads the desktop's recent list and offers
/// it; B lists it, and continuing it opens a byte-identical copy in the same app on B's display.
final class RecentDocumentTests: RecentDocumentTestCase {
    /// Continues A's offer `title` on B; checks B's copy of `file` is byte-identical and
    /// returns it.
    private func continueOnB(_ file: URL, title: String, appID: String, activationToken: String? = nil) throws -> URL {
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: title, timeout: 20),
                                  "B lists the document open on A: \(String(describing: try? devices.a.activities()))")
        XCTAssertEqual(offer["app-id"] as? String, appID)
        let listedOnA = try devices.a.activities().first { $0["title"] as? String == title }
        XCTAssertEqual(listedOnA?["source"] as? String, "recent list", "A says where its offer came from")

        // The desktop's token for the key press that ran `baton continue`, as a terminal has it.
        devices.b.environmentOverrides["XDG_ACTIVATION_TOKEN"] = activationToken
        defer { devices.b.environmentOverrides["XDG_ACTIVATION_TOKEN"] = nil }
        let result = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let copy = devices.b.root.appendingPathComponent("Documents/Continued from alpha/\(file.lastPathComponent)")
        XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: file), "B holds a byte-identical copy")
        return copy
    }

    func testADocumentOpenInGeditOnAContinuesInGeditOnB() throws {
        try devices.pair()
        // gedit is D-Bus activatable: B's bus knows its service, as a desktop session's does.
        try provideSystemService("org.gnome.gedit", on: devices.b)
        let file = try writeText("notes.txt", in: folderOnlyOnA)
        try startOnA("gedit", ["--new-window", file.path], name: "gedit-a")

        _ = try continueOnB(file, title: "notes.txt — gedit", appID: "gedit", activationToken: "token-gedit-7")
        XCTAssertTrue(waitUntil(timeout: 20) { !self.windows(named: "notes.txt", display: self.displayB.name).isEmpty },
                      "gedit shows the copy on B's display: \(String(devices.batondB.log.suffix(1500)))")
        // Started by D-Bus activation, gedit got the token in the activation's platform data:
        // GTK sets it as the startup id of its windows' leader, as X11 startup notification asks.
        let window = try XCTUnwrap(windows(named: "notes.txt", display: displayB.name).first)
        let leader = try XCTUnwrap(xprop(window, "WM_CLIENT_LEADER", display: displayB.name)?.split(separator: " ").last,
                                   "gedit's window names its leader")
        XCTAssertEqual(xprop(String(leader), "_NET_STARTUP_ID", display: displayB.name), "\"token-gedit-7\"",
                       "gedit was activated with the token of the key press on B")
        XCTAssertTrue(devices.batondB.log.contains("opened a document continued from alpha in org.gnome.gedit.desktop"),
                      String(devices.batondB.log.suffix(1500)))
    }

    /// Evince 43 lists what it opens as `name="Document Viewer" exec="'evince %u'"`; Debian's
    /// entry for it is not D-Bus activatable, so B's batond starts `evince` with the copy.
    func testAPDFOpenInEvinceOnAContinuesInEvinceOnB() throws {
        try requireEvince()
        try devices.pair()
        // Evince registers each document it opens with its daemon, as on a desktop session.
        try provideSystemService("org.gnome.evince.Daemon", on: devices.a)
        try provideSystemService("org.gnome.evince.Daemon", on: devices.b)
        let file = try writePDF("report.pdf", in: folderOnlyOnA)
        try startOnA("evince", [file.path], name: "evince-a")

        let copy = try continueOnB(file, title: "report.pdf — Document Viewer", appID: "evince")
        XCTAssertTrue(waitUntil(timeout: 20) { self.windows(named: "^report\\.pdf$", display: self.displayB.name).count == 1 },
                      "Evince shows the copy on B's display: \(String(devices.batondB.log.suffix(1500)))")
        XCTAssertEqual(windows(named: "^report\\.pdf$", display: displayNameOfA).count, 1, "and still on A's")
        let onB = commandLines(of: "evince").filter { arguments in
            arguments.dropFirst().contains { $0 == copy.path || $0 == copy.absoluteString }
        }
        XCTAssertEqual(onB.count, 1, "an evince runs with B's copy: \(commandLines(of: "evince"))")
        XCTAssertTrue(devices.batondB.log.contains("opened a document continued from alpha in org.gnome.Evince.desktop"),
                      String(devices.batondB.log.suffix(1500)))
    }

    /// The value `xprop` prints for `property` of X window `window`, or nil when it is not set.
    private func xprop(_ window: String, _ property: String, display: String) -> String? {
        let run = Process()
        run.executableURL = URL(fileURLWithPath: "/usr/bin/xprop")
        run.arguments = ["-id", window, property]
        run.environment = ["DISPLAY": display]
        let output = Pipe()
        run.standardOutput = output
        run.standardError = FileHandle.nullDevice
        guard (try? run.run()) != nil else { return nil }
        run.waitUntilExit()
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // "NAME(TYPE) = value", "NAME(WINDOW): window id # 0x200001", or "NAME:  not found."
        guard !line.contains("not found"), let start = line.range(of: " = ") ?? line.range(of: ": ") else { return nil }
        return line[start.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
