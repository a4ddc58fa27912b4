import Baton
import BatonBus
import BatonGLib
@testable import batond
import BatonPeer
import Foundation
import Logging
import ServiceFixtures
import XCTest

/// What the origin's batond describes and sends of an activity's document: only a readable
/// regular file of a type the app's entry declares for the activity's type, of an app
/// verified for that type, and only to the device it was described to.
@MainActor
final class SharedDocumentsTests: XCTestCase {
    private let editing = "org.example.texteditor.editing"
    private var folder: URL!
    /// The test's XDG variables, as they were before.
    private var saved: [String: String?] = [:]
    private let documents = SharedDocuments(logger: Logger(label: "test"))

    override func setUp() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shared-documents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("applications"), withIntermediateDirectories: true)
        // The entries are read from here, and no Syncthing is found in its folders.
        for (variable, value) in ["XDG_DATA_HOME": folder.path, "XDG_STATE_HOME": folder.appendingPathComponent("state").path,
                                  "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path] {
            saved[variable] = ProcessInfo.processInfo.environment[variable]
            setenv(variable, value, 1)
        }
    }

    override func tearDown() async throws {
        for (variable, value) in saved {
            if let value { setenv(variable, value, 1) } else { unsetenv(variable) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// TextEditor's entry, declaring `documentTypes` (X-Baton-DocumentTypes) or none.
    private func installEntry(documentTypes: String?) throws {
        var entry = """
            [Desktop Entry]
            Type=Application
            Name=Text Editor
            Exec=/bin/true %F
            X-Baton-TeamID=org.example
            X-Baton-ActivityTypes=\(editing);

            """
        if let documentTypes { entry += "X-Baton-DocumentTypes=\(documentTypes)\n" }
        try entry.write(to: folder.appendingPathComponent("applications/org.example.TextEditor.desktop"), atomically: true, encoding: .utf8)
    }

    private func app(verified: Bool = true) throws -> RegisteredApp {
        let registry = AppRegistry()
        let identity: AppIdentity = verified
            ? .verified(evidence: "/x/org.example.TextEditor.desktop", declaring: DeclaredClaims(teamID: "org.example", activityTypes: editing))
            : .unverified("no desktop entry")
        try registry.register(busName: ":1.7", appID: "org.example.TextEditor", teamID: "org.example", activityTypes: [editing],
                              pid: getpid(), identity: identity)
        return try XCTUnwrap(registry.apps[":1.7"])
    }

    private func payload(naming url: URL) throws -> [UInt8] {
        try UserActivityPayload(activityType: editing, userInfo: [UserActivity.documentURLKey: .url(url)]).encodedBytes()
    }

    private func markdownFile(_ text: String = "# Report\n\nThe figures.\n") throws -> URL {
        let file = folder.appendingPathComponent("report.md")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func testADeclaredDocumentIsDescribedAndSentOnlyToItsDevice() async throws {
        try installEntry(documentTypes: "text/markdown:\(editing);text/plain:\(editing);")
        let file = try markdownFile()
        let described = await documents.describe(try payload(naming: file), of: try app(), activityID: "a1", to: "device-b")
        let document = try XCTUnwrap(described?.document)
        XCTAssertEqual(document.name, "report.md")
        XCTAssertEqual(document.size, UInt64(try Data(contentsOf: file).count))
        XCTAssertEqual(document.mimeType, "text/markdown")
        XCTAssertEqual(document.sha256, try PeerDocument.describe(fileAt: file.path, mimeType: "text/markdown").sha256)
        XCTAssertNil(document.syncthing, "no Syncthing runs here")

        let end = try documents.stream(of: "a1", to: "device-b", name: "beta")
        let stream = SocketContinuationStream(taking: try XCTUnwrap(end.take()))
        defer { stream.close() }
        // The GLib loop runs while the file is written into the socket and read back.
        let received = try await Outcome { () async throws -> [UInt8] in
            var received: [UInt8] = []
            while true {
                let bytes = try await stream.read(maximumCount: 1 << 16)
                if bytes.isEmpty { return received }
                received += bytes
            }
        }.get()
        XCTAssertEqual(Data(received), try Data(contentsOf: file), "the stream carries the file byte for byte")

        XCTAssertThrowsError(try documents.stream(of: "a1", to: "device-c", name: "gamma"), "not described to that device")
        XCTAssertThrowsError(try documents.stream(of: "a2", to: "device-b", name: "beta"), "nor for another activity")
        XCTAssertThrowsError(try documents.stream(of: "a1", to: "device-b", name: "beta"), "a description serves one stream")
    }

    /// A file a device's continuation opened is never sent back to it through a link swapped
    /// in above it (a synced folder turned into a link to `~/.aws`, say), and one opened in
    /// place not until it changes here.
    func testAFileADeviceOpenedIsNotSentBackThroughALinkNorUnchanged() async throws {
        try installEntry(documentTypes: "text/plain:\(editing);")
        let continued = ContinuedDocuments()
        let documents = SharedDocuments(logger: Logger(label: "test"), continuedDocuments: continued)
        let synced = folder.appendingPathComponent("Sync/d", isDirectory: true)
        try FileManager.default.createDirectory(at: synced, withIntermediateDirectories: true)
        let file = synced.appendingPathComponent("notes.txt")
        try "the device's own notes\n".write(to: file, atomically: true, encoding: .utf8)
        continued.remember(fileAt: file.path, namedBy: "device-d", inPlace: false)
        let app = try app()
        var described = await documents.describe(try payload(naming: file), of: app, activityID: "a1", to: "device-d")
        XCTAssertNotNil(described?.document, "a copy it sent may go back to it as it is")

        // The folder becomes a link to a folder of secrets: the same path, another file.
        let secrets = folder.appendingPathComponent("aws", isDirectory: true)
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        try "aws_secret_access_key = never\n".write(to: secrets.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: synced)
        try FileManager.default.createSymbolicLink(at: synced, withDestinationURL: secrets)
        described = await documents.describe(try payload(naming: file), of: app, activityID: "a2", to: "device-d")
        XCTAssertEqual(described?.withheld, .openedByThisDevice, "not through the link swapped in")
        described = await documents.describe(try payload(naming: file), of: app, activityID: "a3", to: "device-e")
        XCTAssertNotNil(described?.document, "another device is not concerned: the person opened what is there")

        // Opened in place: not sent back to the device that named it until it changes here.
        let own = try markdownFile()
        try FileManager.default.moveItem(at: own, to: folder.appendingPathComponent("own.txt"))
        let inPlace = folder.appendingPathComponent("own.txt")
        continued.remember(fileAt: inPlace.path, namedBy: "device-d", inPlace: true)
        described = await documents.describe(try payload(naming: inPlace), of: app, activityID: "a4", to: "device-d")
        XCTAssertEqual(described?.withheld, .openedByThisDevice, "unchanged since that device's continuation opened it")
        try "the person's edit\n".write(to: inPlace, atomically: true, encoding: .utf8)
        described = await documents.describe(try payload(naming: inPlace), of: app, activityID: "a5", to: "device-d")
        XCTAssertNotNil(described?.document, "changed here: the person's work goes where the person continues it")
    }

    /// The file is read as the app sees it: a process whose root is elsewhere (a sandbox)
    /// cannot name a file of the host's.
    func testTheFileIsReadAsTheAppSeesIt() async throws {
        try installEntry(documentTypes: "text/markdown:\(editing);")
        let file = try markdownFile()
        let registry = AppRegistry()
        try registry.register(busName: ":1.8", appID: "org.example.TextEditor", teamID: "org.example", activityTypes: [editing],
                              pid: 999_999_999, identity: .verified(evidence: "/x/org.example.TextEditor.desktop",
                                                                    declaring: DeclaredClaims(teamID: "org.example", activityTypes: editing)))
        let gone = try XCTUnwrap(registry.apps[":1.8"])
        var described = await documents.describe(try payload(naming: file), of: gone, activityID: "a1", to: "device-b")
        XCTAssertEqual(described?.withheld, .unreadable, "no process, no view of the file: nothing is described")

        // An app in a mount namespace of its own where the folder is empty, as a sandbox
        // that was not given it: its activity naming the host's file gets nothing sent.
        let sandboxed = Process()
        sandboxed.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        sandboxed.arguments = ["--mount", "--propagation", "private", "/bin/sh", "-c",
                               "mount -t tmpfs sandbox \"$1\" && exec sleep 60", "sh", folder.path]
        try sandboxed.run()
        defer { sandboxed.terminate() }
        let root = "/proc/\(sandboxed.processIdentifier)/root\(folder.path)"
        guard waitForSandbox(root) else {
            if let missing = MountNamespaces.missingRequirement { throw XCTSkip(missing) }
            return XCTFail("the sandbox's mount namespace did not come up within 2 s")
        }
        try registry.register(busName: ":1.9", appID: "org.example.TextEditor", teamID: "org.example", activityTypes: [editing],
                              pid: sandboxed.processIdentifier,
                              identity: .verified(evidence: "flatpak org.example.TextEditor",
                                                  declaring: DeclaredClaims(teamID: "org.example", activityTypes: editing)))
        described = await documents.describe(try payload(naming: file), of: try XCTUnwrap(registry.apps[":1.9"]),
                                             activityID: "a1", to: "device-b")
        XCTAssertEqual(described?.withheld, .unreadable, "the sandboxed app cannot have the host's file sent")
    }

    /// Waits until `root` (a folder as a namespaced process sees it) is empty; false if it
    /// never is (the namespace could not be made).
    private func waitForSandbox(_ root: String) -> Bool {
        for _ in 0..<100 {
            if let names = try? FileManager.default.contentsOfDirectory(atPath: root), names.isEmpty { return true }
            usleep(20_000)
        }
        return false
    }

    func testAReadmeIsAKindOfPlainText() async throws {
        try installEntry(documentTypes: "text/plain:\(editing);")
        let file = folder.appendingPathComponent("README")
        try "Read me.\n".write(to: file, atomically: true, encoding: .utf8)
        let described = await documents.describe(try payload(naming: file), of: try app(), activityID: "a1", to: "device-b")
        XCTAssertNotNil(described?.document, "GIO types README as text/x-readme, a kind of text/plain")
    }

    func testNothingIsDescribedThatTheAppDoesNotDeclareOrCannotBe() async throws {
        let file = try markdownFile()
        try installEntry(documentTypes: nil)
        var described = await documents.describe(try payload(naming: file), of: try app(), activityID: "a1", to: "device-b")
        XCTAssertEqual(described?.withheld, .undeclaredType("text/markdown"), "an entry without X-Baton-DocumentTypes sends no document")

        try installEntry(documentTypes: "text/plain:\(editing);")
        let png = folder.appendingPathComponent("key.png")
        try Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + Array(repeating: 0, count: 64)).write(to: png)
        described = await documents.describe(try payload(naming: png), of: try app(), activityID: "a1", to: "device-b")
        XCTAssertEqual(described?.withheld, .undeclaredType("image/png"), "an image is not the plain text the app declares")

        try installEntry(documentTypes: "text/markdown:\(editing);")
        described = await documents.describe(try payload(naming: file), of: try app(verified: false), activityID: "a1", to: "device-b")
        XCTAssertEqual(described?.withheld, .notVerified, "an app that is not verified for the type sends no document")

        let fifo = folder.appendingPathComponent("pipe.md")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        described = await documents.describe(try payload(naming: fifo), of: try app(), activityID: "a1", to: "device-b")
        XCTAssertEqual(described?.withheld, .unreadable, "a FIFO is not a document (and is never opened)")
        described = await documents.describe(try payload(naming: folder), of: try app(), activityID: "a1", to: "device-b")
        XCTAssertEqual(described?.withheld, .unreadable, "nor a folder")
        described = await documents.describe(try payload(naming: folder.appendingPathComponent("gone.md")), of: try app(),
                                             activityID: "a1", to: "device-b")
        XCTAssertEqual(described?.withheld, .unreadable, "nor a file that is not there")
        XCTAssertThrowsError(try documents.stream(of: "a1", to: "device-b", name: "beta"), "nothing was described")
    }
}
