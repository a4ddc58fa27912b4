import Foundation

/// A real browser a test drives, with Baton's extension and native messaging host installed:
/// ``HeadlessChromium`` or ``HeadlessFirefox``. Tabs are named by the browser's own handles.
public protocol TestBrowser: AnyObject {
    /// The browser's process.
    var child: ChildProcess { get }
    /// Opens `url` in a new tab, which becomes the active one; returns its handle.
    @discardableResult func openTab(_ url: String) throws -> String
    /// Makes the tab `handle` the active one of its window.
    func activate(_ handle: String) throws
    /// Closes the tab `handle`.
    func close(_ handle: String) throws
    /// The handle of the tab showing `url`.
    func tab(showing url: String) throws -> String?
    /// Quits the browser as a desktop does (SIGTERM), waiting for it to exit.
    func quit()
}

extension HeadlessChromium: TestBrowser {}
extension HeadlessFirefox: TestBrowser {}

/// Which real browser a test runs: the same scenarios run in each.
public enum TestBrowserKind: String, Sendable {
    case chromium, firefox

    /// Why the browser cannot run here, or nil.
    public var missingRequirement: String? {
        switch self {
        case .chromium: HeadlessChromium.executable == nil ? HeadlessChromium.missingMessage : nil
        case .firefox: HeadlessFirefox.missingRequirement
        }
    }

    /// Whether a machine without it fails the tests rather than skipping them: Chromium, which
    /// the extension was first written for, must be there.
    public var mustBeInstalled: Bool { self == .chromium }

    /// How long the first page may take to be published: Firefox starts more slowly.
    public var firstPageTimeout: TimeInterval { self == .firefox ? 45 : 20 }

    /// The arguments that open the browser's first window as a private one.
    public var privateWindowArguments: [String] { self == .firefox ? ["--private-window"] : ["--incognito"] }

    /// Starts the browser on `session` with `arguments` before `urls`.
    public func start(session: ServiceSession, arguments: [String] = [], urls: [String]) throws -> any TestBrowser {
        switch self {
        case .chromium: try HeadlessChromium(session: session, arguments: arguments, urls: urls)
        case .firefox: try HeadlessFirefox(session: session, arguments: arguments, urls: urls)
        }
    }
}

/// The browser host installed as `scripts/install-service.sh` installs it, for a test's session.
enum BrowserHostInstallation {
    /// Installs the host's shipped desktop entry and the browser's native messaging manifest
    /// `manifest` (a path in the source tree) in `folder`, with `@bindir@` the folder of the
    /// built products and each of `substitutions`' keys replaced by its value.
    static func install(in session: ServiceSession, manifest: String, folder: URL,
                        substitutions: [String: String] = [:]) throws {
        let source = SourceTree.root
        let bindir = ServiceSession.productsFolder.path
        let entry = try String(contentsOf: source.appendingPathComponent(
            "Sources/BatonBrowserHost/Resources/org.baton.BrowserHost.desktop"), encoding: .utf8)
        try entry.replacingOccurrences(of: "@bindir@", with: bindir)
            .write(to: session.dataHome.appendingPathComponent("applications/org.baton.BrowserHost.desktop"),
                   atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var text = try String(contentsOf: source.appendingPathComponent(manifest), encoding: .utf8)
        for (key, value) in substitutions.merging(["@bindir@": bindir], uniquingKeysWith: { $1 }) {
            text = text.replacingOccurrences(of: key, with: value)
        }
        try text.write(to: folder.appendingPathComponent("org.baton.browser_host.json"), atomically: true, encoding: .utf8)
    }
}
