import Baton
import BatonBus
import BatonGLib
import BatonGtk
import CAdwaita
import CGtk
import ExampleSupport
import Foundation
import Logging

/// The Baton app: one window over the service's records, rebuilt when batond says they
/// changed, and the pairing dialogs, opened by Pair here or by a request from another device.
@MainActor
final class BatonAppController {
    static let applicationID = "org.baton.Baton"

    let application: BatonApplication
    private var service: ServiceClient?
    private var window: MainWindow?
    private var pages: Pages?
    private var dialogs: [String: PairingDialog] = [:]
    /// Devices whose pairing dialog the person closed: not opened again for the same pairing.
    private var answered = Set<String>()
    private let initialPage: String?
    private let logger = Logger(label: "baton-app")
    /// Devices paired when the records were last read, to tell the person when one becomes so.
    private var paired: Set<String>?
    /// Devices this device confirmed a pairing with, waiting for them to confirm too.
    private var waitingFor: [String: String] = [:]
    /// Devices the person paired with here (Pair, Try Again, a code typed): Try Again is the
    /// default answer when such a pairing fails, never for one another device asked for alone.
    private var startedHere = Set<String>()
    /// The offer a Continue clicked here is continuing, until batond answers.
    private var continuing: String?

    init(initialPage: String?) {
        self.initialPage = initialPage
        application = BatonApplication(wrapping: baton_application(adw_application_new(Self.applicationID,
                                                                                        BatonApplication.defaultFlags)))
        application.onActivate = { [weak self] in self?.activate() }
        application.onStartup = { [weak self] in self?.startUp() }
    }

    /// Runs the app; a second start with a page (the desktop entry's "Enter a Pairing Code",
    /// `baton-app --page devices` while the app runs) shows that page in the running one.
    func run() -> Int32 {
        if let initialPage {
            do {
                try application.register()
            } catch {
                logger.error("cannot start: \(error)")
                return 1
            }
            if application.isRemote { application.activateAction("page-\(initialPage)") }
        }
        return application.run(arguments: [CommandLine.arguments[0]])
    }

    private func startUp() {
        gtk_window_set_default_icon_name("org.baton.Daemon")
        for (index, page) in MainWindow.pages.enumerated() {
            application.addAction("page-\(page.name)", accelerators: ["<Alt>\(index + 1)"]) { [weak self] in
                guard let self, let window else { return }
                window.show(page: page.name)
                logger.info("showing the \(page.name) page")
                focusFirstAction()
            }
        }
        application.addAction("cancel-continue") { [weak self] in self?.cancelContinue() }
        application.addAction("quit", accelerators: ["<Control>q"]) { [weak self] in self?.application.quit() }
        application.setAccelerators(["<Control>w"], for: "app.quit")
        application.setAccelerators(["<Control>question"], for: "win.show-help-overlay")
        application.addAction("about") { [application] in
            AboutWindow.present(for: application.gtkApplication, name: "Baton", icon: "org.baton.Daemon",
                                version: BatonVersion.string,
                                comments: "Start something on one computer and pick it up on another, right where you left off.")
        }
    }

    private func activate() {
        if let window {
            window.present()
            return
        }
        let window = MainWindow(application: application)
        self.window = window
        do {
            let service = try ServiceClient()
            service.onChange = { [weak self] in self?.serviceChanged() }
            self.service = service
            pages = Pages(service: service, controller: self)
        } catch {
            window.showToast("No D-Bus session bus: \(error)")
        }
        if let initialPage { window.show(page: initialPage) }
        window.present()
    }

    private func serviceChanged() {
        guard let window, var pages else { return }
        let built = pages.build(into: window)
        self.pages = pages
        if let page = window.visiblePage, built.contains(page) { focusFirstAction() }
        followPairings()
        if let service {
            let offers = service.activities.filter { $0["origin"]?.string == "offer" }.count
            let paired = service.devices.filter { $0["paired"]?.bool == true }.count
            let checks = service.diagnosis.map(DiagnosticCheck.init(record:))
            let failed = checks.filter { !$0.ok }.map(\.check)
            logger.info("showing \(offers) offers, \(paired) paired and \(service.devices.count - paired) other devices; \(checks.count) checks, failed: \(failed.isEmpty ? "none" : failed.joined(separator: ", "))")
        }
    }

    /// Gives the visible page's first action (Pair, Continue) the keyboard focus.
    private func focusFirstAction() {
        guard let window, let page = window.visiblePage, let button = pages?.firstAction[page] else { return }
        gtk_widget_grab_focus(button)
    }

    /// Opens the dialog of a pairing another device asked for, and closes those that ended.
    private func followPairings() {
        guard let service else { return }
        let pairing = Dictionary(service.devices.compactMap { record -> (String, [String: BusValue])? in
            guard let id = record["id"]?.string, record["pairing-code"]?.string != nil else { return nil }
            return (id, record)
        }, uniquingKeysWith: { first, _ in first })
        let nowPaired = Set(service.devices.filter { $0["paired"]?.bool == true }.compactMap { $0["id"]?.string })
        for (id, dialog) in dialogs where pairing[id] == nil {
            dialog.dismiss()
            dialogs[id] = nil
            // Ended on the other device: a wrong code typed there, or Cancel.
            if !nowPaired.contains(id) {
                let name = service.devices.first { $0["id"]?.string == id }?["name"]?.string ?? dialog.deviceName
                showPairingFailed(id, name: name, reason: Self.endedOn(name))
            }
            startedHere.remove(id)
        }
        for (id, name) in waitingFor where pairing[id] == nil {
            waitingFor[id] = nil
            if !nowPaired.contains(id) {
                showPairingFailed(id, name: name, reason: Self.endedOn(name))
            }
        }
        answered = answered.filter { pairing[$0] != nil }
        if let before = paired {
            for id in nowPaired.subtracting(before) {
                let name = service.devices.first { $0["id"]?.string == id }?["name"]?.string ?? id
                window?.showToast("Paired with “\(name)”")
            }
        }
        paired = nowPaired
        for (id, record) in pairing where dialogs[id] == nil && !answered.contains(id) && record["confirmed-here"]?.bool != true {
            openDialog(id, name: record["name"]?.string ?? id, code: record["pairing-code"]?.string ?? "")
        }
    }

    private func openDialog(_ id: String, name: String, code: String) {
        dialogs[id] = PairingDialog(parent: window?.gtkWindow, deviceID: id, deviceName: name, code: code) { [weak self] typed in
            guard let self else { return }
            dialogs[id] = nil
            answered.insert(id)
            if let typed { confirm(id, name: name, code: typed) } else { cancel(id) }
        }
    }

    // MARK: What the pages ask

    /// Shows the page called `name`, with its first action focused.
    func show(page name: String) {
        window?.show(page: name)
        focusFirstAction()
    }

    func pair(_ id: String, name: String) {
        startedHere.insert(id)
        if let record = service?.devices.first(where: { $0["id"]?.string == id }), let code = record["pairing-code"]?.string {
            answered.remove(id)
            if dialogs[id] == nil { openDialog(id, name: name, code: code) }
            return
        }
        run(.pair(id)) { [weak self] reply in
            guard let self, !reply.code.isEmpty else { return }
            let code = reply.code
            answered.remove(id)
            // The service's DevicesChanged may have opened it already.
            if dialogs[id] == nil { openDialog(id, name: name, code: code) }
        }
    }

    private func confirm(_ id: String, name: String, code: String) {
        startedHere.insert(id)   // the person answered it here
        run(.confirmPair(id, code: code), failed: { [weak self] _ in
            self?.showPairingFailed(id, name: name, reason: "The codes didn’t match, so nothing was paired.")
        }) { [weak self] reply in
            // Once paired, following the records says so.
            guard !reply else { return }
            self?.waitingFor[id] = name
            self?.window?.showToast("Waiting for “\(name)” to confirm")
        }
    }

    /// Why a pairing that ended on the other device failed, as far as this one can tell.
    private static func endedOn(_ name: String) -> String {
        "The pairing was ended on “\(name)”: the codes didn’t match, or it was cancelled there."
    }

    /// Says that pairing with `name` failed and why, with Try Again, which starts it anew.
    private func showPairingFailed(_ id: String, name: String, reason: String) {
        // Enter tries again only a pairing the person started here: a stranger's request that
        // ended gets Close by default.
        let appearance = startedHere.remove(id) != nil ? ADW_RESPONSE_SUGGESTED : ADW_RESPONSE_DEFAULT
        MessageDialog.present(over: window?.gtkWindow, heading: "Pairing Failed", body: reason,
                              answer: .init(label: "_Try Again", appearance: appearance) { [weak self] in
                                  self?.pair(id, name: name)
                              })
        logger.info("pairing with \(name) failed: \(reason)")
    }

    private func cancel(_ id: String) {
        run(.cancelPair(id)) { _ in }
    }

    /// Asks the person before unpairing: the device is forgotten on both sides, and only
    /// pairing again, on both computers, brings it back.
    func confirmUnpair(_ id: String, name: String) {
        MessageDialog.present(over: window?.gtkWindow, heading: "Unpair “\(name)”?",
                              body: "“\(name)” will no longer see what you do here, and you will no longer see what you do there. "
                                  + "To hand off with it again, pair the two computers again.",
                              dismiss: "_Cancel",
                              answer: .init(label: "_Unpair", appearance: ADW_RESPONSE_DESTRUCTIVE) { [weak self] in
                                  self?.unpair(id, name: name)
                              })
    }

    private func unpair(_ id: String, name: String) {
        run(.unpair(id)) { [weak self] _ in self?.window?.showToast("Unpaired “\(name)”") }
    }

    /// Continues an offer: says so at once, passes the desktop's activation token for the
    /// click (so the continued window comes to the front), and says in place, in plain words,
    /// why it failed.
    func continueOffer(_ id: String, title: String, device: String) {
        continuing = id
        window?.showToast("Continuing “\(title)”…", button: (label: "_Cancel", action: "app.cancel-continue"))
        var options: [String: BusValue] = [:]
        if let token = activationToken() { options[BatonService.continueActivationTokenKey] = .string(token) }
        run(.continueActivity(id: id, options: options), timeout: 120, failed: { [weak self] error in
            if self?.continuing == id { self?.continuing = nil }
            self?.showContinueFailed(title: title, device: device, error: error)
        }) { [weak self] _ in
            if self?.continuing == id { self?.continuing = nil }
            self?.window?.showToast("Continued “\(title)”")
        }
    }

    /// Cancel beside "Continuing…": batond cancels this app's continuation, which then fails
    /// as cancelled (said in a toast, not as a failure).
    private func cancelContinue() {
        guard let id = continuing else { return }
        run(.cancelContinue(id: id)) { _ in }
    }

    /// A token from the desktop for the person's click, which lets another app's window come
    /// to the front (Wayland's XDG activation, X11's startup notification); `nil` when the
    /// display gives none.
    private func activationToken() -> String? {
        guard let context = launchContext else { return nil }
        // GIO asks for the app being started; the token is for whichever app batond hands the
        // activity to, so an app of no id stands for it.
        guard let app = g_app_info_create_from_commandline("true", "Baton", G_APP_INFO_CREATE_NONE, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(app)) }
        guard let id = g_app_launch_context_get_startup_notify_id(context, app, nil) else { return nil }
        defer { g_free(id) }
        let token = String(cString: id)
        return BatonService.isAcceptableActivationToken(token) ? token : nil
    }

    /// The display's launch context, kept for the app's life: GDK's X11 one still uses it
    /// after handing out a startup id (to end the startup sequence later).
    private lazy var launchContext: UnsafeMutablePointer<GAppLaunchContext>? = {
        guard let display = gdk_display_get_default(), let context = gdk_display_get_app_launch_context(display) else {
            return nil
        }
        return UnsafeMutableRawPointer(context).assumingMemoryBound(to: GAppLaunchContext.self)
    }()

    /// Says why continuing failed, where the person clicked, in plain words (the service's own
    /// words go to the log).
    private func showContinueFailed(title: String, device: String, error: any Error) {
        let said = "\(error)"
        let reason: String
        switch (error as? ServiceFailure)?.kind {
        case .connectionUnavailable?, .remoteApplicationTimedOut?:
            reason = "“\(device)” didn’t respond. Make sure it is awake and on the same network."
        case .noClaimant?:
            reason = "No app on this computer can open “\(title)”."
        case .unknownActivity?:
            reason = "“\(device)” no longer offers “\(title)”."
        default:
            reason = "“\(title)” could not be continued here."
        }
        if (error as? ServiceFailure)?.kind == .cancelled {
            window?.showToast("Cancelled")
            logger.info("continuing \(title) was cancelled")
            return
        }
        window?.dismissToast()
        MessageDialog.present(over: window?.gtkWindow, heading: "Couldn’t Continue", body: reason)
        logger.info("could not continue \(title): \(said)")
    }

    func rename(_ name: String) { run(.setDeviceName(name)) { _ in } }
    func setHandoff(_ on: Bool) { run(.setHandoff(on)) { _ in } }
    func setQuiet(_ quiet: Bool) { run(.setNotifications(quiet ? "quiet" : "on")) { _ in } }
    func setRecentDocuments(_ on: Bool) { run(.setRecentDocuments(on)) { _ in } }
    func setClipboard(_ on: Bool) { run(.setClipboard(on)) { _ in } }
    func setClipboard(device id: String, _ shared: Bool) { run(.setDeviceClipboard(id, shared)) { _ in } }
    func setBlocked(device id: String, _ blocked: Bool) { run(.setDeviceBlocked(id, blocked)) { _ in } }
    func setBlocked(app appID: String, _ blocked: Bool) { run(.setAppBlocked(appID, blocked)) { _ in } }

    /// Calls batond; a refusal goes to `failed`, by default shown in a toast, and the pages
    /// are read again.
    private func run<Reply>(_ call: DaemonCall<Reply>, timeout: Double = 25,
                            failed: (@MainActor (any Error) -> Void)? = nil,
                            then body: @escaping @MainActor (Reply) -> Void) {
        guard let service else { return }
        Task { @MainActor in
            do {
                body(try await service.perform(call, timeout: timeout))
            } catch {
                if let failed { failed(error) } else { window?.showToast("\(error)") }
            }
            service.refresh()
        }
    }
}
