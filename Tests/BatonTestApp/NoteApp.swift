import Baton
import BatonGtk
import CGtk
import Foundation

/// A window whose activity holds the text of its entry: `{"text": …}`, titled "Note: …".
@MainActor
final class NoteWindow: ApplicationWindow {
    let entry: UnsafeMutablePointer<GtkWidget>
    let fault: String?
    /// A document URL the activity names (`--document-url`), as an app of documents does.
    let documentURL = option("--document-url").flatMap(URL.init(string:))

    init(application: BatonApplication, activityType: String, text: String, fault: String?) {
        entry = gtk_entry_new()
        self.fault = fault
        super.init(application: application)
        gtk_editable_set_text(OpaquePointer(entry), text)
        setChild(entry)
        title = "Note"
        let activity = UserActivity(activityType: activityType, center: application.center)
        activity.title = "Note: \(text)"
        activity.userInfo = ["text": .string(text)]
        if let documentURL { activity.userInfo[UserActivity.documentURLKey] = .url(documentURL) }
        userActivity = activity
        markNeedsSaveOnChange(of: entry)
    }

    override func updateUserActivityState(_ userActivity: UserActivity) {
        switch fault {
        case "hang-on-save": sleep(3600)
        case "slow-save": sleep(2)
        case "exit-on-save": exit(3)
        case "huge": userActivity.userInfo["padding"] = .string(String(repeating: "x", count: 100_000))
        default: break
        }
        let text = gtk_editable_get_text(OpaquePointer(entry)).map { String(cString: $0) } ?? ""
        userActivity.addUserInfoEntries(from: ["text": .string(text)])
        if let documentURL { userActivity.addUserInfoEntries(from: [UserActivity.documentURLKey: .url(documentURL)]) }
        userActivity.title = "Note: \(text)"
    }

    /// Edits the note as a user would, appending " (active)": its activity is updated and
    /// published again, which makes the app the most recently active.
    func touch() {
        let text = gtk_editable_get_text(OpaquePointer(entry)).map { String(cString: $0) } ?? ""
        gtk_editable_set_text(OpaquePointer(entry), text + " (active)")
    }

    /// Retitles the activity ten times in one turn of the main loop, as fast typing in a
    /// field that makes the title would: "Note: burst 1" … "Note: burst 10".
    func retitleInBurst() {
        for number in 1...10 { userActivity?.title = "Note: burst \(number)" }
    }

    /// Gives the activity an expiration that never comes, as a bug might (the core makes it
    /// "never expires", which the service accepts), retitled "Note: refused".
    func makeUnpublishable() {
        userActivity?.title = "Note: refused"
        userActivity?.expirationDate = Date(timeIntervalSince1970: .infinity)
    }

    override func restoreUserActivityState(_ userActivity: UserActivity) {
        if case .string(let text) = userActivity.userInfo["text"] {
            gtk_editable_set_text(OpaquePointer(entry), text)
        }
    }
}

/// Runs no work: with it, an activity is saved only when the service asks (`Save`).
@MainActor
final class IdleScheduler: ActivityScheduler {
    func schedule(_ work: @escaping @MainActor () -> Void) {}
}

/// The test app: one note window, Handoff on, and the faults the tests ask for.
@MainActor
final class NoteApp: BatonApplication, ApplicationDelegate {
    var window: NoteWindow?
    /// Answers continuation streams on the note's activity (`--streams MODE`).
    private var streamOrigin: StreamOrigin?
    let activityType: String
    let text: String
    let fault: String?
    let restoreDelay: Double

    init(appID: String, activityType: String, text: String, fault: String?, restoreDelay: Double, unique: Bool) {
        self.activityType = activityType
        self.text = text
        self.fault = fault
        self.restoreDelay = restoreDelay
        super.init(applicationID: appID, flags: unique ? GApplicationFlags(rawValue: 0) : BatonApplication.nonUniqueFlags)
        delegate = arguments.contains("--no-delegate") ? nil : self
        onActivate = { [weak self] in self?.activate() }
    }

    private func activate() {
        if let window {
            window.present()
            return
        }
        let window = NoteWindow(application: self, activityType: activityType, text: text, fault: fault)
        self.window = window
        window.present()
        GLibSources.onUnixSignal(SIGUSR1) { [weak self] in self?.window?.touch() }
        GLibSources.onUnixSignal(SIGUSR2) { [weak self] in self?.window?.makeUnpublishable() }
        GLibSources.onUnixSignal(SIGWINCH) { [weak self] in self?.window?.retitleInBurst() }
        if let mode = option("--streams") {
            let origin = StreamOrigin(mode: mode)
            // `released`: the delegate is set, and no one keeps it (the reference is weak).
            if mode != "released" { streamOrigin = origin }
            window.userActivity?.supportsContinuationStreams = true
            window.userActivity?.delegate = origin
        }
        if let page = option("--webpage") {
            do {
                try window.userActivity?.setWebpageURL(URL(string: page))
            } catch {
                FileHandle.standardError.write(Data("note: webpage refused: \(error)\n".utf8))
            }
        }
        if let name = option("--send-to-phone") {
            GLibSources.onUnixSignal(SIGHUP) { [weak self] in self?.sendToPhone(named: name) }
        }
        let ineligible = arguments.contains("--ineligible")
        if ineligible { window.userActivity?.isEligibleForHandoff = false }
        if fault != nil || ineligible {
            center.scheduler = IdleScheduler()
            window.userActivity?.becomeCurrent()
            window.userActivity?.needsSave = true
        }
    }

    /// What an app's "Send to Phone" menu does (here on SIGHUP, with `--send-to-phone NAME`): waits (up to 20 s) until `HandoffClient`
    /// lists the phone named `name`, then sends it the current activity's web page. Says what
    /// happened on standard error: `note: phones: …`, then `note: sent to …` or `note: send failed: …`.
    private func sendToPhone(named name: String) {
        Task { @MainActor in
            let deadline = Date().addingTimeInterval(20)
            var phones: [HandoffClient.Phone] = []
            while Date() < deadline {
                phones = await handoff?.phones() ?? []
                if phones.contains(where: { $0.name == name && $0.isReachable }) { break }
                try? await Task.sleep(for: .milliseconds(300))
            }
            let listed = phones.map { "\($0.name) (\($0.isReachable ? "reachable" : "away"))" }.joined(separator: ", ")
            FileHandle.standardError.write(Data("note: phones: \(listed)\n".utf8))
            guard let phone = phones.first(where: { $0.name == name }) else { return }
            do {
                try await handoff?.sendCurrentActivity(to: phone)
                FileHandle.standardError.write(Data("note: sent to \(phone.name)\n".utf8))
            } catch {
                FileHandle.standardError.write(Data("note: send failed: \(error)\n".utf8))
            }
        }
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        // What the tests read to see the desktop's activation token arrive: from the service
        // with the continuation, or in the environment of a launch.
        let token = activationToken ?? launchActivationToken
        FileHandle.standardError.write(Data("note: activation token \(token ?? "none")\n".utf8))
        FileHandle.standardError.write(Data("note: launch reason \(launchReason)\n".utf8))
        if arguments.contains("--decline") { return false }
        if let request = option("--stream-request") { requestOverStream(userActivity, request: Array(request.utf8)) }
        if let count = option("--stream-request-bytes").flatMap(Int.init) {
            requestOverStream(userActivity, request: [UInt8](repeating: UInt8(ascii: "x"), count: count))
        }
        if window == nil { activate() }   // started by batond to continue: no window yet
        guard let window else { return false }
        if restoreDelay > 0 {
            DispatchQueue.main.asyncAfter(deadline: .now() + restoreDelay) { restorationHandler([window]) }
        } else {
            restorationHandler([window])
        }
        return true
    }

    /// Says so on standard error, where the tests read it: the delegate-visible half of a
    /// failed send (the framework logs the other).
    func application(_ application: Application, didFailToSend userActivity: UserActivity, error: any Error) {
        let code = (error as? UserActivityError)?.code ?? 0
        FileHandle.standardError.write(Data("note: didFailToSend \(userActivity.activityType) \(code)\n".utf8))
    }
}

@MainActor
func runNoteApp() -> Int32 {
    // Where a process the bus starts (no shell to redirect it) writes what the tests read.
    if let log = option("--log") {
        let descriptor = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0, dup2(descriptor, STDERR_FILENO) >= 0 else { return 66 }
        close(descriptor)
    }
    let types = (option("--types") ?? "org.baton.test.note").split(separator: ",").map(String.init)
    let app = NoteApp(appID: option("--app-id") ?? "org.baton.TestApp", activityType: types.first ?? "",
                      text: option("--text") ?? "", fault: option("--fault"),
                      restoreDelay: Double(option("--restore-delay") ?? "0") ?? 0,
                      unique: arguments.contains("--unique"))
    app.enableHandoff(teamIdentifier: option("--team") ?? "org.baton.test", activityTypes: types)
    // Started by the bus as a service (a D-Bus service file's Exec), GApplication's own option.
    let service = arguments.contains("--gapplication-service") ? ["--gapplication-service"] : []
    return app.run(arguments: [CommandLine.arguments[0]] + service)
}
