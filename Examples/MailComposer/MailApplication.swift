import Baton
import BatonGtk
import CAdwaita
import CGtk
import ExampleSupport
import Foundation
import Logging

/// The mail app: one main window, any number of compose windows, Handoff for both activity
/// types, and windows that come back after a relaunch.
///
/// A libadwaita app (`AdwApplication`, which follows the system's light or dark style) that
/// BatonGtk wraps. One instance per session: a second launch, or a `mailto:` link from the
/// desktop, opens its message in the running one (GApplication's `open`), and the bus starts
/// it through its D-Bus service file when the desktop or batond asks for it.
@MainActor
final class MailApplication: BatonApplication, ApplicationDelegate {
    static let applicationID = "org.example.MailComposer"
    /// Shown in the About window.
    static let version = "0.1.0"
    /// Where the sample inbox, Info.plist and icons are.
    static let resources = AppResources(target: "MailComposer", environmentVariable: "MAILCOMPOSER_RESOURCES")
    /// The shortcuts the app sets, as its windows' shortcuts window lists them.
    static let shortcuts: [ShortcutsWindow.Group] = [
        .init("Messages", [("New message", "<Control>n"), ("Reply", "<Control>r"),
                           ("Attach files", "<Control><Shift>a"), ("Send", "<Control>Return")]),
        .init("General", [("Main menu", "F10"), ("Keyboard shortcuts", "<Control>question"),
                          ("Close window", "<Control>w"), ("Quit", "<Control>q")]),
    ]

    private let options: MailComposerOptions
    private let store: MailStore
    private let logger = Logger(label: "mailcomposer")
    private var mainWindow: MessageListWindow?
    private var restoration: StateRestoration?
    private var hasShownStartupWindows = false

    init(options: MailComposerOptions) {
        self.options = options
        store = MailStore(directory: options.dataDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? MailStore.defaultDirectory(applicationID: Self.applicationID))
        super.init(wrapping: Self.exampleApplication(id: Self.applicationID, standalone: options.instance.standalone))
        delegate = self
        onStartup = { [weak self] in self?.startUp() }
        onActivate = { [weak self] in self?.activate() }
        onOpen = { [weak self] links in self?.open(links) }
        restoration = enableStateRestoration(
            directory: options.instance.stateDirectoryURL, interval: options.instance.saveInterval)
        do {
            enableHandoff(declaredIn: try Self.resources.bundleInfo(), logger: logger)
        } catch {
            logger.warning("Handoff is off: \(error)")
            setupError = AppSetupError(appName: "Mail Composer", cannot: "hand drafts and messages to your other devices",
                                       because: error)
        }
    }

    /// Why Handoff could not start (the app's own files are missing or damaged): the main
    /// window says so.
    private var setupError: AppSetupError?

    private func startUp() {
        Self.resources.addIconsToTheme()
        gtk_window_set_default_icon_name(Self.applicationID)
        addAction("compose", accelerators: ["<Control>n"]) { [weak self] in self?.openCompose() }
        addAction("about") { [weak self] in self?.showAbout() }
        addAction("quit", accelerators: ["<Control>q"]) { [weak self] in self?.quit() }
        setAccelerators(["<Control>question"], for: "win.show-help-overlay")
        setAccelerators(["<Control>Return", "<Control>KP_Enter"], for: "win.send")
        setAccelerators(["<Control>w"], for: "win.close")
        setAccelerators(["<Control><Shift>a"], for: "win.attach")
        setAccelerators(["<Control>r"], for: "win.reply")
    }

    private func activate() {
        showStartupWindows()
        liveMainWindow?.present()
    }

    /// Opens a compose window for each `mailto:` link (from the command line, a second
    /// launch, the desktop); a link that cannot be read opens nothing and says why. Files
    /// (`--attach`, or opened with the app from the desktop) are attached to the last
    /// message opened with them, or to a new one. A `mailto:` link itself never attaches
    /// anything: a web page must not be able to attach a person's files.
    private func open(_ links: [String]) {
        showStartupWindows()
        let files = links.compactMap { link in link.hasPrefix("file:") ? URL(string: link) : nil }.filter(\.isFileURL)
        var last: ComposeWindow?
        for link in links where !link.hasPrefix("file:") {
            do {
                let mailto = try MailtoLink(uri: link)
                let compose = openCompose()
                compose.fill(with: DraftState(draftID: compose.draftID, to: mailto.to, cc: mailto.cc,
                                              subject: mailto.subject, body: mailto.body,
                                              cursor: mailto.body.unicodeScalars.count))
                last = compose
            } catch {
                logger.warning("could not open a link: \(error)")
                liveMainWindow?.banner.showError("Could not open a link: \(error).")
            }
        }
        if !files.isEmpty { (last ?? openCompose()).attach(files) }
    }

    private func showAbout() {
        AboutWindow.present(for: gtkApplication, name: "Mail Composer", icon: Self.applicationID, version: Self.version,
                            comments: "Write and read mail. Drafts continue on your other devices through Baton, and your windows come back after a restart.")
    }

    /// Shows the main window and the windows of the last session, once per process: from the
    /// launch's `activate`, or, when batond started the app to continue an activity (and so
    /// BatonApplication skips that `activate`), from `willContinue`, so the continued draft
    /// opens beside them, not instead of them.
    private func showStartupWindows() {
        ensureMainWindow()
        guard !hasShownStartupWindows else { return }
        hasShownStartupWindows = true
        let restored = restoration?.restore() ?? 0
        if restored > 0 { logger.info("restored \(restored) window(s)") }
    }

    /// The main window, unless GTK has destroyed it.
    private var liveMainWindow: MessageListWindow? {
        mainWindow?.gtkWindow != nil ? mainWindow : nil
    }

    /// The main window, created and shown if there is none.
    @discardableResult
    private func ensureMainWindow() -> MessageListWindow {
        if let liveMainWindow { return liveMainWindow }
        let window = MessageListWindow(application: self)
        do {
            try store.prepare(sampleInbox: Self.resources.url("inbox.mbox"))
            window.load(try store.inbox())
        } catch {
            window.banner.showError("Could not open the mailbox in \(store.directory.path): \(error.localizedDescription)")
        }
        if let setupError { window.banner.showError(setupError.description) }
        mainWindow = window
        window.present()
        return window
    }

    @discardableResult
    func openCompose(draftID: UUID = UUID()) -> ComposeWindow {
        let window = ComposeWindow(application: self, draftID: draftID, store: AttachmentStore(dataDirectory: store.directory),
                                   onContinuedElsewhere: { [weak self] news, device in
                                       // The subject stays out of the log.
                                       self?.logger.info("a draft continued on \(device)")
                                       self?.liveMainWindow?.showToast(news)
                                   }) { [weak self] _, message in
            self?.send(message) ?? false
        }
        window.present()
        return window
    }

    func openReply(to message: MailMessage) {
        openCompose().prepareReply(to: message)
    }

    private func send(_ message: MailMessage) -> Bool {
        do {
            try store.appendSent(message)
            liveMainWindow?.showToast("Sent “\(message.subject)” to \(message.to)")
            return true
        } catch {
            liveMainWindow?.banner.showError("Could not send: \(error.localizedDescription)")
            return false
        }
    }

    // MARK: ApplicationDelegate

    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        if launchReason.isContinuation { showStartupWindows() }
        let window = ensureMainWindow()
        let what = switch userActivityType {
        case MailActivities.compose: "a draft"
        case UserActivity.browsingWebType: "a web page"
        default: "a message"
        }
        window.banner.showProgress("Continuing \(what) from another device…")
        return true
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        let main = ensureMainWindow()
        main.banner.hide()
        switch userActivity.activityType {
        case MailActivities.compose:
            let draftID = DraftReading(userInfo: userActivity.userInfo).draft.draftID
            let window = openCompose(draftID: draftID)
            // Before the restoration handler: the stream opens only while the continuation does.
            window.receiveAttachments(of: userActivity)
            restorationHandler([window])
            return true
        case MailActivities.read:
            main.present()
            restorationHandler([main])
            return true
        case UserActivity.browsingWebType:
            // A page of the webmail site, from a browser: what it shows opens here; its
            // activity carries no userInfo, so no window restores from it.
            restorationHandler([])
            return open(page: userActivity.webpageURL)
        default:
            main.banner.showError("Mail Composer cannot continue “\(userActivity.activityType)”.")
            return false
        }
    }

    /// Opens a page of the webmail site (``MailWebPage``): a new message filled in, a draft
    /// that is open here, or the message list. A page the app does not show, or a draft this
    /// device does not have, opens in the browser instead.
    private func open(page url: URL?) -> Bool {
        let main = ensureMainWindow()
        guard let url else { return false }
        switch MailWebPage(url) {
        case .compose(let link):
            let compose = openCompose()
            compose.fill(with: DraftState(draftID: compose.draftID, to: link.to, cc: link.cc, subject: link.subject,
                                          body: link.body, cursor: link.body.unicodeScalars.count))
        case .draft(let id):
            if let window = applicationWindows.compactMap({ $0 as? ComposeWindow }).first(where: { $0.draftID == id }) {
                window.present()
            } else {
                logger.info("the draft \(id) is not on this device; opening its page in the browser")
                openInBrowser(url, from: main)
            }
        case .inbox:
            main.present()
        case nil:
            openInBrowser(url, from: main)
        }
        return true
    }

    /// Opens `url` in the default browser; says so in `window` when it cannot.
    private func openInBrowser(_ url: URL, from window: MessageListWindow) {
        var error: UnsafeMutablePointer<GError>?
        guard g_app_info_launch_default_for_uri(url.absoluteString, nil, &error) != 0 else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "no browser"
            if let error { g_error_free(error) }
            window.banner.showError("Could not open \(url.host ?? "the page") in the browser: \(reason)")
            return
        }
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error) {
        let main = ensureMainWindow()
        if let error = error as? UserActivityError, error == .cancelled {
            main.banner.hide()
            return
        }
        main.banner.showError("Could not continue: \(error.localizedDescription)")
    }
}
