import Foundation
import ServiceFixtures
import XCTest

/// Two devices for the recent documents' tests with real apps that do not adopt Baton
/// (Debian's gedit and Evince, which write the desktop's recent list themselves): each device's
/// home is its own root, A's documents are in a folder B does not see (B's batond runs in a
/// mount namespace), and helpers to open documents in those apps on A and to read what each
/// device lists.
class RecentDocumentTestCase: TwoDesktopTestCase {
    override class func requirements() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gedit"), "gedit is missing (scripts/setup.sh installs it)")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/xdotool"), "xdotool is missing")
        if let missing = MountNamespaces.missingRequirement { throw XCTSkip(missing) }
    }

    override func makeDevices(displayB: String) throws -> DevicePair {
        try DevicePair(displayA: displayA?.name, displayB: displayB, hidingFromB: "only-on-alpha", homesInRoots: true)
    }

    /// The real apps started: ended with the test.
    var started: [ChildProcess] = []

    override func tearDown() {
        started.forEach { $0.stop() }
        super.tearDown()
    }

    /// The folder of A's home that B does not see.
    var folderOnlyOnA: URL {
        get throws { try XCTUnwrap(devices.privateFolderOfA) }
    }

    /// A's display: its own when it has a window manager, else the test's.
    var displayNameOfA: String {
        displayA?.name ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
    }

    func requireEvince() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/evince"), "evince is missing (scripts/setup.sh installs it)")
    }

    /// Makes the system's D-Bus service `name` (such as `org.gnome.gedit`) activatable on
    /// `session`'s bus, as it is on a desktop session's.
    func provideSystemService(_ name: String, on session: ServiceSession) throws {
        try FileManager.default.createDirectory(at: session.servicesFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: "/usr/share/dbus-1/services/\(name).service"),
                                         to: session.servicesFolder.appendingPathComponent("\(name).service"))
    }

    /// Writes a text file `name` in `folder` (made if needed).
    func writeText(_ name: String, in folder: URL, _ text: String = "Plans for Friday\nlunch at noon\n") throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Writes a one-page PDF `name` in `folder`, with no title of its own (Evince titles its
    /// window with the file's name then).
    func writePDF(_ name: String, in folder: URL) throws -> URL {
        let content = "BT /F1 24 Tf 72 700 Td (Quarterly report) Tj ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        var pdf = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(pdf.utf8.count)
            pdf += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let table = pdf.utf8.count
        pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        pdf += offsets.map { String(repeating: "0", count: 10 - String($0).count) + "\($0) 00000 n \n" }.joined()
        pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n"
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(pdf.utf8).write(to: file)
        return file
    }

    /// A's recent list, as its apps write it.
    var recentListOfA: URL { devices.a.dataHome.appendingPathComponent("recently-used.xbel") }

    /// Whether A's recent list holds `file` (an app added it).
    func recentListOfAHolds(_ file: URL) -> Bool {
        ((try? String(contentsOf: recentListOfA, encoding: .utf8)) ?? "").contains("\"\(file.absoluteString)\"")
    }

    /// Starts `program` (`/usr/bin/gedit`, `/usr/bin/evince`) on A with `arguments`, ended with
    /// the test.
    @discardableResult
    func startOnA(_ program: String, _ arguments: [String], name: String) throws -> ChildProcess {
        let child = try devices.a.start(URL(fileURLWithPath: "/usr/bin/\(program)"), arguments, name: name)
        started.append(child)
        return child
    }

    /// Opens `file` on A in `program` (gedit or evince) and waits until the app added it to A's
    /// recent list. gedit opens it in the running gedit if there is one.
    @discardableResult
    func openOnA(_ file: URL, in program: String) throws -> ChildProcess {
        let child = try startOnA(program, [file.path], name: "\(program)-\(file.lastPathComponent)")
        XCTAssertTrue(waitUntil(timeout: 20) { self.recentListOfAHolds(file) },
                      "\(program) adds \(file.lastPathComponent) to A's recent list: \(child.log)")
        return child
    }

    /// Waits until the clock is in the next second: the recent list's times are read to the
    /// second, so a document opened after this one is newer, not tied with it.
    func waitForTheNextSecond() {
        let second = Date().timeIntervalSince1970.rounded(.down)
        while Date().timeIntervalSince1970 < second + 1 { usleep(20_000) }
    }

    /// The titles B lists from A.
    func offersFromA() throws -> [String] {
        try devices.b.activities().filter { $0["device"] as? String == "alpha" }.compactMap { $0["title"] as? String }
    }

    /// The titles A lists as its own documents from the recent list.
    func recentDocumentsOfA() throws -> [String] {
        try devices.a.activities().filter { $0["source"] as? String == "recent list" }.compactMap { $0["title"] as? String }
    }

    /// Waits until B lists exactly `title` from A, and A its recent document `title`; returns
    /// the seconds it took.
    @discardableResult
    func waitForOffer(_ title: String, timeout: TimeInterval = 20, _ message: String = "") -> TimeInterval {
        let start = Date()
        XCTAssertTrue(waitUntil(timeout: timeout) { try self.offersFromA() == [title] },
                      "B lists only \(title) from A, not \(String(describing: try? offersFromA())). \(message)")
        XCTAssertTrue(waitUntil(timeout: 5) { try self.recentDocumentsOfA() == [title] },
                      "A offers \(title) from its recent list, not \(String(describing: try? recentDocumentsOfA()))")
        return Date().timeIntervalSince(start)
    }

    /// Checks, for `seconds`, that neither device ever lists `title`.
    func expectNeverListed(_ title: String, for seconds: TimeInterval, _ message: String) {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let onB = (try? offersFromA()) ?? []
            let onA = (try? devices.a.activities().compactMap { $0["title"] as? String }) ?? []
            if onB.contains(title) || onA.contains(title) {
                return XCTFail("\(title) is listed (A: \(onA), B: \(onB)): \(message)")
            }
            usleep(100_000)
        } while Date() < deadline
    }

    /// The X windows on `display` titled `name` (xdotool's search, a regular expression).
    func windows(named name: String, display: String) -> [String] {
        let search = Process()
        search.executableURL = URL(fileURLWithPath: "/usr/bin/xdotool")
        search.arguments = ["search", "--name", name]
        search.environment = ProcessInfo.processInfo.environment.merging(["DISPLAY": display]) { $1 }
        let output = Pipe()
        search.standardOutput = output
        search.standardError = FileHandle.nullDevice
        guard (try? search.run()) != nil else { return [] }
        search.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
    }

    /// The command lines of the processes running `/usr/bin/<program>`.
    func commandLines(of program: String) -> [[String]] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == "/usr/bin/\(program)",
                  let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        }
    }
}
