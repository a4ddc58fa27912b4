import Baton
import BatonGtk
import CGtk
import Foundation
import Logging

/// The mail app: one main window, any number of compose windows, Handoff for both activity
/// types, and windows that come back after a relaunch.
@MainActor
final class MailApplication: BatonApplication, ApplicationDelegate {
    static let applicationID = "org.example.MailComposer"

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
        super.init(applicationID: Self.applicationID, flags: BatonApplication.nonUniqueFlags)
        delegate = self
        onStartup = { [weak self] in self?.startUp() }
        onActivate = { [weak self] in self?.activate() }
        restoration = enableStateRestoration(
            directory: options.stateDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) },
            interval: options.saveInterval)
        if let team = AppResources.teamIdentifier() {
            enableHandoff(teamIdentifier: team, activityTypes: AppResources.declaredActivityTypes())
        } else {
            logger.warning("Handoff is off: Info.plist declares no BatonTeamIdentifier")
        }
    }

    private func startUp() {
        addAction("compose", accelerators: ["<Control>n"]) { [weak self] in self?.openCompose() }
        addAction("quit", accelerators: ["<Control>q"]) { [weak self] in self?.quit() }
        setAccelerators(["<Control>Return", "<Control>KP_Enter"], for: "win.send")
        setAccelerators(["<Control>w"], for: "win.close")
        setAccelerators(["<Control>r"], for: "win.reply")
    }

    private func activate() {
        showStartupWindows()
        if options.wantsCompose {
            let compose = openCompose()
            compose.fill(with: DraftState(draftID: compose.draftID, to: options.to ?? "", cc: options.cc ?? "",
                                          subject: options.subject ?? "", body: options.body ?? "",
                                          cursor: (options.body ?? "").unicodeScalars.count))
        }
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
            try store.prepare(sampleInbox: AppResources.url("inbox.mbox"))
            window.load(try store.inbox())
        } catch {
            window.banner.showError("Could not open the mailbox in \(store.directory.path): \(error.localizedDescription)")
        }
        mainWindow = window
        window.present()
        return window
    }

    @discardableResult
    func openCompose(draftID: UUID = UUID()) -> ComposeWindow {
        let window = ComposeWindow(application: self, draftID: draftID) { [weak self] _, message in
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
            liveMainWindow?.banner.showInfo("Sent “\(message.subject)” to \(message.to).")
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
        let what = userActivityType == MailActivities.compose ? "a draft" : "a message"
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
            restorationHandler([openCompose(draftID: draftID)])
            return true
        case MailActivities.read:
            main.present()
            restorationHandler([main])
            return true
        default:
            main.banner.showError("Mail Composer cannot continue “\(userActivity.activityType)”.")
            return false
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
