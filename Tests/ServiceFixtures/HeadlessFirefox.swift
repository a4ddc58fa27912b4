import Foundation

/// Firefox ESR, headless, on a test's session, with Baton's extension and native messaging
/// host installed the way `scripts/install-service.sh` installs them: the extension carries an
/// id of the installation's own (a random `{UUID}`), the only one the shipped Firefox host
/// manifest, installed in `~/.mozilla/native-messaging-hosts/` of the `HOME` Firefox is given,
/// allows. Tabs are driven through Marionette.
///
/// The test profile loads the unsigned extension as a sideloaded one: the source tree's
/// extension, with that id, unpacked in the profile's `extensions/<id>/` folder, and a
/// `user.js` with `xpinstall.signatures.required` off (which ESR and Developer Edition honour,
/// release builds do not) and `extensions.autoDisableScopes` 0 (sideloaded extensions start
/// enabled, without asking).
public final class HeadlessFirefox {
    /// The source tree's root.
    public static let sourceRoot = HeadlessChromium.sourceRoot
    /// The id the extension's manifest ships with, which the installation replaces.
    public static let shippedExtensionID = "browser-host@baton.org"

    /// Firefox ESR's program: Debian's `firefox-esr` (installed by scripts/setup.sh), else
    /// one on `PATH`; nil when there is none. Not a release `firefox`: it refuses unsigned
    /// extensions whatever the profile says.
    public static var executable: URL? {
        let path = "/usr/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
        return path.split(separator: ":").lazy.map { URL(fileURLWithPath: String($0)).appendingPathComponent("firefox-esr") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Why Firefox tests are skipped here, or nil when they can run.
    public static var missingRequirement: String? {
        executable == nil ? "Firefox ESR is not installed (Debian package firefox-esr, which scripts/setup.sh installs): "
            + "the extension cannot be tested in Firefox" : nil
    }

    public let child: ChildProcess
    public let profile: URL
    /// The id this installation gave the extension.
    public let extensionID = "{\(UUID().uuidString.lowercased())}"
    private var marionetteClient: Marionette?
    /// The tab Marionette's commands act on; Firefox forgets it when the tab closes.
    private var context: String?

    /// Installs the extension and the host for `session` and starts Firefox with `arguments`
    /// before `urls`.
    public init(session: ServiceSession, arguments: [String] = [], urls: [String]) throws {
        guard let executable = Self.executable else { throw FixtureError(Self.missingRequirement ?? "") }
        let home = session.root.appendingPathComponent("home", isDirectory: true)
        profile = session.root.appendingPathComponent("firefox-profile", isDirectory: true)
        try Self.installHost(in: session, home: home, extensionID: extensionID)
        try Self.installExtension(in: profile, id: extensionID)
        child = try session.start(executable, ["--headless", "--no-remote", "--profile", profile.path, "--marionette"]
            + arguments + urls, name: "firefox", environment: ["HOME": home.path, "MOZ_CRASHREPORTER_DISABLE": "1"])
    }

    /// Installs the host's shipped desktop entry and Firefox's native messaging manifest, in
    /// `home`'s `.mozilla/native-messaging-hosts/` (Firefox reads `HOME`), with `@bindir@` the
    /// folder of the built products and `@gecko_id@` the extension's id.
    public static func installHost(in session: ServiceSession, home: URL, extensionID: String) throws {
        try BrowserHostInstallation.install(
            in: session, manifest: "Browser/native-messaging/firefox/org.baton.browser_host.json",
            folder: home.appendingPathComponent(".mozilla/native-messaging-hosts", isDirectory: true),
            substitutions: ["@gecko_id@": extensionID])
    }

    /// Makes `profile` a test profile with the extension, as `id`, unpacked in its
    /// `extensions/` folder, and the preferences that let Firefox load it and be driven.
    public static func installExtension(in profile: URL, id: String) throws {
        let folder = profile.appendingPathComponent("extensions/\(id)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = HeadlessChromium.extensionFolder
        let manifest = try String(contentsOf: source.appendingPathComponent("manifest.json"), encoding: .utf8)
        let shippedID = "\"id\": \"\(shippedExtensionID)\""
        guard manifest.contains(shippedID) else { throw FixtureError("the extension's manifest has no \(shippedID)") }
        try manifest.replacingOccurrences(of: shippedID, with: "\"id\": \"\(id)\"")
            .write(to: folder.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: source.appendingPathComponent("background.js"),
                                         to: folder.appendingPathComponent("background.js"))
        let preferences = [
            "xpinstall.signatures.required": "false",
            "extensions.autoDisableScopes": "0",
            "marionette.port": "0",
            "browser.shell.checkDefaultBrowser": "false",
            "browser.startup.homepage_override.mstone": "\"ignore\"",
            "datareporting.policy.dataSubmissionEnabled": "false",
            "toolkit.telemetry.reportingpolicy.firstRun": "false",
            "extensions.update.enabled": "false",
            "app.update.disabledForTesting": "true",
            "browser.sessionstore.resume_from_crash": "false",
            "network.captive-portal-service.enabled": "false",
        ]
        try preferences.sorted { $0.key < $1.key }.map { "user_pref(\"\($0.key)\", \($0.value));\n" }.joined()
            .write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
    }

    /// Marionette's session, once Firefox listens (it writes its port, chosen because
    /// `marionette.port` is 0, to the profile's `MarionetteActivePort`).
    public func marionette(timeout: TimeInterval = 40) throws -> Marionette {
        if let marionetteClient { return marionetteClient }
        let file = profile.appendingPathComponent("MarionetteActivePort")
        var port: UInt16?
        waitUntil(timeout: timeout) {
            port = (try? String(contentsOf: file, encoding: .utf8)).flatMap { UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return port != nil || !child.isRunning
        }
        guard let port else { throw FixtureError("Firefox wrote no MarionetteActivePort: \(child.log.suffix(2000))") }
        let client = try Marionette(port: port)
        marionetteClient = client
        return client
    }

    /// The handles of all tabs, window after window.
    public func tabs() throws -> [String] {
        try marionette().call("WebDriver:GetWindowHandles") as? [String] ?? []
    }

    /// Opens `url` in a new tab of the window of the tab commands act on (the first tab's
    /// when none), which becomes its active tab; returns its handle.
    @discardableResult
    public func openTab(_ url: String) throws -> String {
        try open(url, ["type": "tab"])
    }

    /// Opens `url` in a new private window, which comes to the front; returns its tab's handle.
    @discardableResult
    public func openPrivateWindow(_ url: String) throws -> String {
        try open(url, ["type": "window", "private": true])
    }

    /// Makes the tab `handle` the active one of its window, and its window the focused one.
    public func activate(_ handle: String) throws {
        try marionette().call("WebDriver:SwitchToWindow", ["handle": handle, "focus": true])
        context = handle
    }

    /// Closes the tab `handle`, without bringing it to the front first.
    public func close(_ handle: String) throws {
        try actOn(handle)
        try marionette().call("WebDriver:CloseWindow")
        context = nil
    }

    /// The handle of the tab showing `url`.
    public func tab(showing url: String) throws -> String? {
        let before = context
        defer { if let before, before != context { try? actOn(before) } }
        for handle in try tabs() {
            try actOn(handle)
            if try marionette().call("WebDriver:GetCurrentURL") as? String == url { return handle }
        }
        return nil
    }

    /// Quits Firefox as a desktop does (SIGTERM), waiting for it to exit.
    public func quit() {
        marionetteClient = nil
        child.stop()
    }

    private func open(_ url: String, _ parameters: [String: Any]) throws -> String {
        if context == nil, let first = try tabs().first { try actOn(first) }
        let opened = try marionette().call("WebDriver:NewWindow", parameters.merging(["focus": true]) { $1 }) as? [String: Any]
        guard let handle = opened?["handle"] as? String else { throw FixtureError("Marionette opened no tab: \(String(describing: opened))") }
        try activate(handle)
        do {
            try marionette().call("WebDriver:Navigate", ["url": url])
        } catch let error as FixtureError where error.description.contains("Reached error page") {
            // A page that cannot load (a name that does not resolve here) keeps its address in
            // the tab, which is what the extension publishes.
        }
        return handle
    }

    /// Makes `handle` the tab commands act on, leaving the active tab as it is.
    private func actOn(_ handle: String) throws {
        guard context != handle else { return }
        try marionette().call("WebDriver:SwitchToWindow", ["handle": handle, "focus": false])
        context = handle
    }
}
