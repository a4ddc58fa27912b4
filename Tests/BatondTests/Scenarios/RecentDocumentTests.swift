import Foundation
import ServiceFixtures
import XCTest

/// A document opened on A in a real app that does not adopt Baton (Debian's gedit), in a
/// folder B does not see: A's batond reads the desktop's recent list and offers it; B lists
/// it, and continuing it opens a byte-identical copy in gedit on B's display.
final class RecentDocumentTests: TwoDesktopTestCase {
    override class func requirements() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gedit"), "gedit is missing (scripts/setup.sh installs it)")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/xdotool"), "xdotool is missing")
        if let missing = MountNamespaces.missingRequirement { throw XCTSkip(missing) }
    }

    override func makeDevices(displayB: String) throws -> DevicePair {
        try DevicePair(displayB: displayB, hidingFromB: "only-on-alpha", homesInRoots: true)
    }

    private var started: [ChildProcess] = []

    override func tearDown() {
        started.forEach { $0.stop() }
        super.tearDown()
    }

    private func windows(named name: String, display: String) -> [String] {
        let search = Process()
        search.executableURL = URL(fileURLWithPath: "/usr/bin/xdotool")
        search.arguments = ["search", "--name", name]
        search.environment = ["DISPLAY": display]
        let output = Pipe()
        search.standardOutput = output
        search.standardError = FileHandle.nullDevice
        guard (try? search.run()) != nil else { return [] }
        search.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
    }

    func testADocumentOpenInGeditOnAContinuesInGeditOnB() throws {
        try devices.pair()
        // gedit is D-Bus activatable: B's bus knows its service, as a desktop session's does.
        try FileManager.default.createDirectory(at: devices.b.servicesFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: "/usr/share/dbus-1/services/org.gnome.gedit.service"),
                                         to: devices.b.servicesFolder.appendingPathComponent("org.gnome.gedit.service"))
        let folder = try XCTUnwrap(devices.privateFolderOfA)
        let file = folder.appendingPathComponent("notes.txt")
        try "Plans for Friday\nlunch at noon\n".write(to: file, atomically: true, encoding: .utf8)
        let gedit = try devices.a.start(URL(fileURLWithPath: "/usr/bin/gedit"), ["--new-window", file.path], name: "gedit-a")
        started.append(gedit)

        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: "notes.txt — gedit", timeout: 20),
                                  "B lists the document gedit has open on A: \(String(describing: try? devices.a.activities()))")
        XCTAssertEqual(offer["app-id"] as? String, "gedit")
        let listedOnA = try devices.a.activities().first { $0["title"] as? String == "notes.txt — gedit" }
        XCTAssertEqual(listedOnA?["source"] as? String, "recent list", "A says where its offer came from")

        let result = try devices.b.baton(["continue", XCTUnwrap(offer["id"] as? String)])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        let copy = devices.b.root.appendingPathComponent("Documents/Continued from alpha/notes.txt")
        XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: file), "B holds a byte-identical copy")
        XCTAssertTrue(waitUntil(timeout: 20) { !self.windows(named: "notes.txt", display: self.displayB.name).isEmpty },
                      "gedit shows the copy on B's display: \(String(devices.batondB.log.suffix(1500)))")
        XCTAssertTrue(devices.batondB.log.contains("opened a document continued from alpha in org.gnome.gedit.desktop"),
                      String(devices.batondB.log.suffix(1500)))
    }
}
