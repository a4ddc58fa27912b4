import Foundation

/// Chromium, headless, on a test's session, with Baton's extension loaded from the source
/// tree and the native messaging host installed as `scripts/install-service.sh` installs it:
/// the shipped manifest template in `$XDG_CONFIG_HOME/chromium/NativeMessagingHosts/`, which
/// is the profile folder (`--user-data-dir`), and the shipped desktop entry. Tabs are driven
/// through the DevTools HTTP endpoints.
public final class HeadlessChromium {
    /// The source tree's root.
    public static let sourceRoot = SourceTree.root
    /// The extension's folder.
    public static let extensionFolder = sourceRoot.appendingPathComponent("Browser/extension", isDirectory: true)

    /// Chromium's program: Debian's (`chromium`, installed by scripts/setup.sh), else one on
    /// `PATH`; nil when there is none.
    public static var executable: URL? {
        let fileManager = FileManager.default
        if fileManager.isExecutableFile(atPath: "/usr/lib/chromium/chromium") {
            return URL(fileURLWithPath: "/usr/lib/chromium/chromium")
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for folder in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser", "google-chrome"] {
                let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
                if fileManager.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }

    /// What a test says when Chromium is missing: the tests fail, rather than skip, so that a
    /// machine without it does not pass them unnoticed.
    public static let missingMessage = "Chromium is not installed (Debian package chromium, which scripts/setup.sh installs): "
        + "the browser extension cannot be tested"

    public let child: ChildProcess
    public let profile: URL

    /// Installs the host for `session` and starts Chromium with `arguments` before `urls`.
    public init(session: ServiceSession, arguments: [String] = [], urls: [String]) throws {
        guard let executable = Self.executable else { throw FixtureError(Self.missingMessage) }
        try Self.installHost(in: session)
        profile = session.root.appendingPathComponent("config/chromium", isDirectory: true)
        let home = session.root.appendingPathComponent("home", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        child = try session.start(executable, [
            "--headless=new", "--no-sandbox", "--user-data-dir=\(profile.path)",
            "--load-extension=\(Self.extensionFolder.path)", "--disable-features=DisableLoadExtensionCommandLineSwitch",
            "--no-first-run", "--no-default-browser-check", "--remote-debugging-port=0", "--disable-gpu",
            "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--password-store=basic",
        ] + arguments + urls, name: "chromium", environment: ["HOME": home.path])
    }

    /// Installs the host's shipped desktop entry and Chromium's native messaging manifest,
    /// with `@bindir@` the folder of the built products.
    public static func installHost(in session: ServiceSession) throws {
        try BrowserHostInstallation.install(
            in: session, manifest: "Browser/native-messaging/chromium/org.baton.browser_host.json",
            folder: session.root.appendingPathComponent("config/chromium/NativeMessagingHosts", isDirectory: true))
    }

    /// The DevTools port, once Chromium wrote it.
    public func devToolsPort(timeout: TimeInterval = 20) throws -> UInt16 {
        let file = profile.appendingPathComponent("DevToolsActivePort")
        var port: UInt16?
        waitUntil(timeout: timeout) {
            port = (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n").first.flatMap { UInt16($0) }
            return port != nil || !child.isRunning
        }
        guard let port else { throw FixtureError("Chromium wrote no DevToolsActivePort: \(child.log.suffix(2000))") }
        return port
    }

    /// Opens `url` in a new tab (in a new normal window when only a private one is open), which
    /// becomes the active tab; returns its target id.
    @discardableResult
    public func openTab(_ url: String) throws -> String {
        let answer = try LoopbackHTTP.request("PUT", port: try devToolsPort(), path: "/json/new?\(url)")
        guard answer.status == 200,
              let target = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
              let id = target["id"] as? String else {
            throw FixtureError("DevTools did not open \(url): \(answer.status) \(answer.body)")
        }
        return id
    }

    /// Makes the tab `target` the active one of its window.
    public func activate(_ target: String) throws {
        let answer = try LoopbackHTTP.request("GET", port: try devToolsPort(), path: "/json/activate/\(target)")
        guard answer.status == 200 else { throw FixtureError("DevTools did not activate \(target): \(answer.body)") }
    }

    /// Closes the tab `target`.
    public func close(_ target: String) throws {
        let answer = try LoopbackHTTP.request("GET", port: try devToolsPort(), path: "/json/close/\(target)")
        guard answer.status == 200 else { throw FixtureError("DevTools did not close \(target): \(answer.body)") }
    }

    /// The target id of the page tab showing `url`.
    public func tab(showing url: String) throws -> String? {
        let answer = try LoopbackHTTP.request("GET", port: try devToolsPort(), path: "/json/list")
        let targets = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [[String: Any]] ?? []
        return targets.first { $0["type"] as? String == "page" && $0["url"] as? String == url }?["id"] as? String
    }

    /// Quits Chromium as a desktop does (SIGTERM), waiting for it to exit.
    public func quit() {
        child.stop()
    }
}
