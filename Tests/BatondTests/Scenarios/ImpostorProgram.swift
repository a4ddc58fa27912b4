import Foundation
import ServiceFixtures

/// A copy of the built BatonTestApp at another path: the same app, but not the program that
/// a desktop entry naming the built BatonTestApp names, as an impostor's would be.
enum ImpostorProgram {
    /// The copy in `root` (made on first use).
    static func copy(in root: URL) throws -> URL {
        let url = root.appendingPathComponent("impostor/BatonTestApp")
        guard !FileManager.default.fileExists(atPath: url.path) else { return url }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ServiceSession.product("BatonTestApp"), to: url)
        return url
    }

    /// Starts a note app from the copy on `session` as `appID`; returns once its activity is
    /// listed there.
    static func startNoteApp(_ name: String, on session: ServiceSession, text: String,
                             appID: String) throws -> NoteAppProcess {
        let app = NoteAppProcess(root: session.root, name: name)
        app.child = try session.start(copy(in: session.root), ["app", "--text", text, "--app-id", appID], name: name,
                                      environment: ["BATON_TRACE": app.traceURL.path])
        guard session.waitForActivity(titled: "Note: \(text)") != nil else {
            throw FixtureError("\(name) never registered its activity: \(app.child.log)")
        }
        return app
    }
}
