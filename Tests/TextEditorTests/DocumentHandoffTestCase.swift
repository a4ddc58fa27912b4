import Foundation
import ServiceFixtures
import XCTest

/// Two devices where a document's folder on A is not seen by B (B's batond and the apps it
/// starts run with that folder hidden, as a second machine would not have it), TextEditor
/// installed on both, and the steps of continuing A's document on B. With
/// ``usesNetworkNamespaces`` the two batonds run in two network namespaces joined by a veth
/// pair, as two hosts.
class DocumentHandoffTestCase: TwoDesktopTestCase {
    /// More arguments for B's batond.
    class var argumentsB: [String] { [] }
    /// Whether the devices are two network namespaces rather than two processes on loopback.
    class var usesNetworkNamespaces: Bool { false }
    /// More environment for device B's processes.
    class var environmentB: [String: String] { [:] }

    override class func requirements() throws {
        try TextEditorProcess.requirements()
        if let missing = MountNamespaces.missingRequirement { throw XCTSkip(missing) }
        if usesNetworkNamespaces, let missing = NetworkNamespacePair.missingRequirement { throw XCTSkip(missing) }
    }

    override func makeDevices(displayB: String) throws -> DevicePair {
        let namespaces = Self.usesNetworkNamespaces ? try NetworkNamespacePair() : nil
        return try DevicePair(argumentsB: Self.argumentsB, displayB: displayB, hidingFromB: "only-on-alpha",
                              namespaces: namespaces, environmentB: Self.environmentB)
    }

    /// The folder only A sees.
    var folderOnlyOnA: URL { devices.privateFolderOfA! }

    /// B's documents folder, where GLib reads it (`user-dirs.dirs`).
    func makeDocumentsFolderOnB() throws -> URL {
        let documents = devices.b.root.appendingPathComponent("Documents", isDirectory: true)
        try devices.b.useDocumentsFolder(documents)
        return documents
    }

    /// Installs TextEditor on both devices and opens `file` on A with the cursor `pages` pages
    /// down. Returns both editors and the position on A.
    func openOnA(_ file: URL, pages: Int = 3) throws -> (onA: TextEditorProcess, onB: TextEditorProcess,
                                                          position: (cursor: Int, column: Int, middle: Int)) {
        let (onA, onB, _) = try openInTextEditorOnA(file, pagesDown: pages)
        XCTAssertTrue(waitUntil { (onA.lastPosition()?.cursor ?? 0) > 10 * pages })
        usleep(500_000)
        return (onA, onB, try XCTUnwrap(onA.lastPosition()))
    }

    /// Asks B to continue A's document titled `title`, without waiting for the outcome.
    func startContinuingOnB(_ title: String = "report.md") throws -> ChildProcess {
        let offer = try XCTUnwrap(devices.b.waitForActivity(titled: title, timeout: 15), "B lists A's document")
        return try devices.b.start(ServiceSession.product("baton"), ["continue", XCTUnwrap(offer["id"] as? String)],
                                   name: "continue-\(UUID().uuidString)")
    }

    /// Continues A's document on B and waits until B's editor restored it from `expected`;
    /// returns the `restored` event.
    @discardableResult
    func continueOnB(_ onB: TextEditorProcess, expecting expected: URL, timeout: TimeInterval = 15) throws -> [String: Any] {
        let before = onB.events().filter { $0.event == "restored" }.count
        let command = try startContinuingOnB(expected.lastPathComponent.hasPrefix("report") ? "report.md" : expected.lastPathComponent)
        return try restored(on: onB, after: before, expecting: expected, command: command, timeout: timeout)
    }

    /// Waits for B's editor's next `restored` event after `before` of them, from `expected`.
    func restored(on onB: TextEditorProcess, after before: Int, expecting expected: URL, command: ChildProcess,
                  timeout: TimeInterval = 15) throws -> [String: Any] {
        XCTAssertTrue(waitUntil(timeout: timeout) { onB.events().filter { $0.event == "restored" }.count > before },
                      "TextEditor on B reopened it: \(command.log)")
        XCTAssertEqual(command.waitForExit(timeout: 10), 0, command.log)
        let restored = try XCTUnwrap(onB.events().last { $0.event == "restored" })
        XCTAssertEqual(restored.userInfo?["NSUserActivityDocumentURL"] as? String, expected.absoluteString,
                       "the activity names \(expected.path)")
        onB.pid = (restored["pid"] as? Int).map(Int32.init)
        XCTAssertFalse(try onB.windows(titled: expected.lastPathComponent).isEmpty, "its window is open on B's display")
        return restored
    }

    /// Whether B's editor's own latest update shows `position` in the file `url`.
    func showsPosition(_ position: (cursor: Int, column: Int, middle: Int), of url: URL, on onB: TextEditorProcess) -> Bool {
        waitUntil {
            guard let now = onB.lastPosition(where: { ($0.userInfo?["NSUserActivityDocumentURL"] as? String) == url.absoluteString })
            else { return false }
            return now.cursor == position.cursor && now.middle == position.middle
        }
    }

    func screenshotB(_ name: String) throws {
        guard let folder = ProcessInfo.processInfo.environment["BATON_SCREENSHOTS"] else { return }
        _ = try devices.b.run(URL(fileURLWithPath: "/usr/bin/import"),
                              ["-display", displayB.name, "-window", "root", "\(folder)/\(name).png"])
    }
}

extension TwoDesktopTestCase {
    /// Installs TextEditor on both devices (B's batond starts B's editor on B's display; A's
    /// batond describes a document only for an app whose entry declares its type), and opens
    /// `file` in A's editor with the cursor `pages` pages down from the top. Returns both
    /// editors and the document's window on A.
    func openInTextEditorOnA(_ file: URL, pagesDown pages: Int) throws -> (onA: TextEditorProcess, onB: TextEditorProcess,
                                                                          window: String) {
        let onB = TextEditorProcess(root: devices.b.root.appendingPathComponent("editor-b"))
        onB.display = displayB.name
        apps.append(onB)
        try onB.install(in: devices.b)
        let onA = TextEditorProcess(root: devices.a.root.appendingPathComponent("editor-a"))
        apps.append(onA)
        try onA.install(in: devices.a)
        try onA.launch([file.path], environment: devices.a.environment)
        let window = try XCTUnwrap(onA.windows(titled: file.lastPathComponent).first)
        try onA.key("ctrl+Home", in: window)
        for _ in 0..<pages { try onA.key("Page_Down", in: window) }
        return (onA, onB, window)
    }
}
