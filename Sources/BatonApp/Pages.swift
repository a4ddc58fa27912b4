import BatonBus
import BatonGLib
import BatonGtk
import CAdwaita
import CGtk

/// What each page shows, built from the service's records; the actions call back into
/// ``BatonAppController``.
@MainActor
struct Pages {
    let service: ServiceClient
    let controller: BatonAppController

    /// The activity type of a document from another device's recent list (batond's
    /// `RecentDocuments.activityType`): no app claims it, batond opens it itself.
    static let recentDocumentType = "org.baton.recent-document"

    /// The first button a person would press on a page (Pair, Continue), to give it focus.
    private(set) var firstAction: [String: Rows.Widget] = [:]
    /// What each page was last built from: a page whose records did not change is left as
    /// it is, so the widget a person is using (a focused button) stays.
    private var inputs: [String: [BusValue?]] = [:]

    init(service: ServiceClient, controller: BatonAppController) {
        self.service = service
        self.controller = controller
    }

    /// Builds the pages whose records changed; returns their names.
    mutating func build(into window: MainWindow) -> Set<String> {
        guard service.isRunning, service.problem == nil else {
            inputs = [:]
            firstAction = [:]
            for page in MainWindow.pages { window.set(notRunning(), for: page.name) }
            return Set(MainWindow.pages.map(\.name))
        }
        let offers = service.activities.filter { $0["origin"]?.string == "offer" }
        var built = Set<String>()
        func place(_ name: String, _ input: [BusValue?], _ build: (inout Pages) -> Rows.Widget) {
            guard inputs[name] != input else { return }
            inputs[name] = input
            firstAction[name] = nil
            window.set(build(&self), for: name)
            built.insert(name)
        }
        place("device", [service.status["device-name"], service.status["device-id"], service.status["listen"],
                         service.settings["handoff"], service.settings["notifications"], service.settings["name-fixed"],
                         service.settings["recent-documents"], service.settings["clipboard"]]) {
            $0.thisDevice()
        }
        place("devices", [.dictionaries(service.devices), service.settings["blocked-devices"],
                          service.settings["clipboard-blocked-devices"], service.settings["clipboard"]]) { $0.devices() }
        place("offers", [.dictionaries(offers), .dictionaries(service.apps), .dictionaries(service.devices),
                         service.settings["blocked-devices"], service.settings["handoff"]]) { $0.offers() }
        place("apps", [.dictionaries(service.apps), service.settings["blocked-apps"], service.settings["recent-documents"]]) {
            $0.apps()
        }
        place("doctor", [.dictionaries(service.diagnosis)]) { $0.doctor() }
        return built
    }

    private func notRunning() -> Rows.Widget {
        let page = adw_status_page_new()!
        adw_status_page_set_icon_name(baton_adw_status_page(page), "dialog-warning-symbolic")
        adw_status_page_set_title(baton_adw_status_page(page), "The Baton Service Is Not Running")
        adw_status_page_set_description(baton_adw_status_page(page), Rows.escaped(
            (service.problem ?? "") + " Start it with “systemctl --user start batond”, or run “baton doctor” to see why."))
        return page
    }

    /// The device's name first; its id and address, which only matter when something is
    /// wrong, under "Advanced".
    private func thisDevice() -> Rows.Widget {
        let page = Rows.page()
        let device = Rows.group("This Device", description: "Your other devices show this computer by its name.", in: page)
        let name = service.status["device-name"]?.string ?? ""
        if service.settings["name-fixed"]?.bool == true {
            Rows.row("Name", subtitle: "\(name) (set when the Baton service was started, so it cannot be changed here)", in: device)
        } else {
            Rows.entry("_Name", text: name, in: device) { [controller] text in controller.rename(text) }
        }
        let advanced = Rows.expander("Advanced", subtitle: "How other devices find this one", in: device)
        Rows.row("Device ID", subtitle: service.status["device-id"]?.string ?? "", under: advanced)
        Rows.row("Address", subtitle: service.status["listen"]?.string ?? "Not reachable by other devices", under: advanced)
        let handoff = Rows.group("Handoff", in: page)
        let on = service.settings["handoff"]?.bool ?? true
        let handoffRow = Rows.row("Share Activities With Your Devices",
                                  subtitle: "Offer what you do here to your other devices, and list what you do there", in: handoff)
        Rows.suffix(Rows.toggle(on) { [controller] value in controller.setHandoff(value) }, to: handoffRow, activatedByRow: true)
        let quiet = service.settings["notifications"]?.string == "quiet"
        let quietRow = Rows.row("Notify About Offers", subtitle: "Show a notification when another device offers something to continue",
                                in: handoff)
        Rows.suffix(Rows.toggle(!quiet) { [controller] value in controller.setQuiet(!value) }, to: quietRow, activatedByRow: true)
        let recent = service.settings["recent-documents"]?.bool ?? true
        let recentRow = Rows.row("Documents From Other Apps",
                                 subtitle: "Offer the document open in apps that don’t support Handoff", in: handoff)
        Rows.suffix(Rows.toggle(recent) { [controller] value in controller.setRecentDocuments(value) }, to: recentRow,
                    activatedByRow: true)
        let clipboard = service.settings["clipboard"]?.bool ?? true
        let clipboardRow = Rows.row("Share the Clipboard",
                                    subtitle: "Paste on your other devices what you copy here, and here what you copy there",
                                    in: handoff)
        Rows.suffix(Rows.toggle(clipboard) { [controller] value in controller.setClipboard(value) }, to: clipboardRow,
                    activatedByRow: true)
        return page
    }

    private mutating func devices() -> Rows.Widget {
        let page = Rows.page()
        let computers = service.devices.filter { $0["via"] == nil }
        let phones = service.devices.filter { $0["via"] != nil }
        let paired = computers.filter { $0["paired"]?.bool == true }
        let others = computers.filter { $0["paired"]?.bool != true }
        let blocked = Set(service.settings["blocked-devices"]?.strings ?? [])
        let clipboardBlocked = Set(service.settings["clipboard-blocked-devices"]?.strings ?? [])
        let clipboardOn = service.settings["clipboard"]?.bool ?? true
        let pairedGroup = Rows.group("Paired Devices", description: paired.isEmpty ? "No paired devices yet." : nil, in: page)
        // Each paired device opens to its details: whether it may hand things over, and Unpair.
        for record in paired {
            let id = record["id"]?.string ?? ""
            let name = record["name"]?.string ?? id
            let connected = record["connected"]?.bool == true
            let device = Rows.expander(name, subtitle: (connected ? "Connected" : "Not connected")
                                       + (blocked.contains(id) ? " · Blocked" : ""), icon: "computer-symbolic", in: pairedGroup)
            let handoff = Rows.row("Hand Off With This Device", subtitle: "Show its offers here, and offer it what you do here",
                                   under: device)
            Rows.suffix(Rows.toggle(!blocked.contains(id)) { [controller] allowed in
                controller.setBlocked(device: id, !allowed)
            }, to: handoff, activatedByRow: true)
            if clipboardOn {
                let clipboard = Rows.row("Share the Clipboard With This Device",
                                         subtitle: "Paste there what you copy here, and here what you copy there", under: device)
                Rows.suffix(Rows.toggle(!clipboardBlocked.contains(id)) { [controller] shared in
                    controller.setClipboard(device: id, shared)
                }, to: clipboard, activatedByRow: true)
            }
            let forget = Rows.row("Unpair", subtitle: "Pairing again needs both computers", under: device)
            Rows.suffix(Rows.button("_Unpair…", classes: ["destructive-action"]) { [controller] in
                controller.confirmUnpair(id, name: name)
            }, to: forget)
        }
        if !phones.isEmpty {
            let group = Rows.group("Phones", description: "Paired with KDE Connect, GSConnect or Valent: Baton can send them web pages, and offers the links they share.", in: page)
            for record in phones {
                let reachable = record["connected"]?.bool == true
                let via = record["via"]?.string ?? "KDE Connect"
                Rows.row(record["name"]?.string ?? "", subtitle: "\(via) · " + (reachable ? "Reachable" : "Out of reach"),
                         icon: record["kind"]?.string == "tablet" ? "tablet-symbolic" : "phone-symbolic", in: group)
            }
        }
        let reach = Rows.group("Devices in Reach",
                               description: others.isEmpty ? "Other devices running Baton on this network appear here." : nil,
                               in: page)
        for record in others {
            let id = record["id"]?.string ?? ""
            let name = record["name"]?.string ?? id
            let pairing = record["pairing-code"]?.string != nil
            let row = Rows.row(name, subtitle: pairing ? "Pairing…" : (record["address"]?.string ?? ""),
                               icon: "computer-symbolic", in: reach)
            let button = Rows.button(pairing ? "_Enter Code" : "_Pair", classes: ["suggested-action"]) { [controller] in
                controller.pair(id, name: name)
            }
            Rows.suffix(button, to: row)
            if firstAction["devices"] == nil { firstAction["devices"] = button }
        }
        return page
    }

    private mutating func offers() -> Rows.Widget {
        let offers = service.activities.filter { $0["origin"]?.string == "offer" }
        guard !offers.isEmpty else { return noOffers() }
        let page = Rows.page()
        let group = Rows.group("Offers", description: "What you are doing on your other devices, to continue here.", in: page)
        for record in offers {
            let id = record["id"]?.string ?? ""
            let type = record["type"]?.string ?? ""
            let claimant = service.apps.first { ($0["activity-types"]?.strings ?? []).contains(type) }
            let hasPage = record["webpage-url"]?.string != nil
            // A document from the other device's recent list: batond opens it in an app of this
            // one's for its type, shown by the same app's icon where this device's list names it.
            let isRecentDocument = type == Self.recentDocumentType
            let from = "From \(record["device"]?.string ?? "another device")"
            // No type id is ever shown: an offer without a title is named by what opens it.
            let title = record["title"]?.string ?? claimant?["name"]?.string
                ?? (hasPage ? "A web page" : isRecentDocument ? "A document" : "An activity")
            guard claimant != nil || hasPage || isRecentDocument else {
                Rows.row(title, subtitle: "\(from) · No app on this computer can open this", icon: "action-unavailable-symbolic",
                         in: group)
                continue
            }
            let label = claimant == nil && !isRecentDocument ? "_Open in Browser" : "_Continue"
            let sameApp = service.apps.first { $0["source"]?.string == "recent list" && $0["app-id"] == record["app-id"] }
            let icon = claimant?["icon"]?.string
                ?? (isRecentDocument ? sameApp?["icon"]?.string ?? "text-x-generic" : "web-browser-symbolic")
            let row = Rows.row(title, subtitle: from, icon: icon, in: group)
            let device = record["device"]?.string ?? "the other device"
            let button = Rows.button(label, classes: ["suggested-action"]) { [controller] in
                controller.continueOffer(id, title: title, device: device)
            }
            Rows.suffix(button, to: row)
            if firstAction["offers"] == nil { firstAction["offers"] = button }
        }
        return page
    }

    /// The Offers page with nothing to offer: why, and what to do about it.
    private mutating func noOffers() -> Rows.Widget {
        let paired = service.devices.filter { $0["paired"]?.bool == true && $0["via"] == nil }
        let blocked = Set(service.settings["blocked-devices"]?.strings ?? [])
        let blockedNames = paired.filter { blocked.contains($0["id"]?.string ?? "") }.compactMap { $0["name"]?.string }
        let status = adw_status_page_new()!
        let page = baton_adw_status_page(status)
        adw_status_page_set_icon_name(page, "emblem-shared-symbolic")
        adw_status_page_set_title(page, "No Offers")
        let description: String
        let action: (label: String, page: String)?
        if service.settings["handoff"]?.bool == false {
            description = "Handoff is off on this computer, so other devices’ offers are not shown."
            action = ("_Turn On Handoff…", "device")
        } else if paired.isEmpty {
            description = "Pair this computer with another one, and what you do there appears here, ready to continue."
            action = ("_Pair a Device…", "devices")
        } else if !blockedNames.isEmpty && blockedNames.count == paired.count {
            let names = blockedNames.map { "“\($0)”" }.joined(separator: ", ")
            description = "You blocked \(names), so nothing from \(blockedNames.count == 1 ? "it" : "them") is shown."
            action = ("_Show Devices…", "devices")
        } else {
            description = "When you use an app on your other devices, what you are doing appears here."
                + (blockedNames.isEmpty ? "" : " Offers from \(blockedNames.map { "“\($0)”" }.joined(separator: ", ")) are blocked.")
            action = nil
        }
        adw_status_page_set_description(page, Rows.escaped(description))
        if let action {
            let button = Rows.button(action.label, classes: ["pill", "suggested-action"]) { [controller] in
                controller.show(page: action.page)
            }
            gtk_widget_set_halign(button, GTK_ALIGN_CENTER)
            adw_status_page_set_child(page, button)
            firstAction["offers"] = button
        }
        return status
    }

    /// Each app by its name and what it continues, in words ("Mail drafts and messages"),
    /// with its icon at 32 pixels and a switch labelled "Hand Off"; then the apps of the
    /// desktop's recent list, whose open document is offered, each with the same switch.
    private func apps() -> Rows.Widget {
        let page = Rows.page()
        let blocked = Set(service.settings["blocked-apps"]?.strings ?? [])
        let (recentApps, adopting) = service.apps.reduce(into: ([[String: BusValue]](), [[String: BusValue]]())) { lists, record in
            if record["source"]?.string == "recent list" { lists.0.append(record) } else { lists.1.append(record) }
        }
        let group = Rows.group("Apps", description: adopting.isEmpty ? "No app on this computer supports Handoff yet."
                               : "What these apps are doing can continue on your other devices. "
                               + "Turn one off, and what it is doing is never offered.", in: page)
        var seen = Set<String>()
        for record in adopting {
            guard let appID = record["app-id"]?.string, seen.insert(appID).inserted else { continue }
            let continues = record["continues"]?.string ?? "What it is doing, on your other devices"
            let name = record["name"]?.string ?? appID
            // A helper (the browser extension's host) is known by what it brings, not its name.
            let row = record["helper"]?.bool == true
                ? Rows.row(continues, subtitle: name, in: group) : Rows.row(name, subtitle: continues, in: group)
            adw_action_row_add_prefix(baton_adw_action_row(row),
                                      Rows.iconImage(record["icon"]?.string ?? "application-x-executable", size: 32))
            let label = gtk_label_new("Hand Off")!
            gtk_widget_add_css_class(label, "dim-label")
            Rows.suffix(label, to: row)
            Rows.suffix(Rows.toggle(!blocked.contains(appID)) { [controller] offered in
                controller.setBlocked(app: appID, !offered)
            }, to: row, activatedByRow: true)
        }
        if !recentApps.isEmpty { recentListApps(recentApps, blocked: blocked, in: page) }
        return page
    }

    /// The apps that don't support Handoff but keep the desktop's list of recent documents:
    /// the document open in one is offered, unless the person turned it off (for that app, or
    /// on the This Device page for all of them).
    private func recentListApps(_ records: [[String: BusValue]], blocked: Set<String>, in page: Rows.Widget) {
        let on = service.settings["recent-documents"]?.bool ?? true
        let group = Rows.group("Documents From Other Apps", description: on
            ? "These apps don’t support Handoff, but the document open in one of them is offered to your other devices. "
                + "Turn one off, and its documents are never offered."
            : "Offering the document open in these apps is turned off on the This Device page.", in: page)
        for record in records {
            guard let program = record["app-id"]?.string else { continue }
            let row = Rows.row(record["name"]?.string ?? program, subtitle: "The document open in it", in: group)
            adw_action_row_add_prefix(baton_adw_action_row(row),
                                      Rows.iconImage(record["icon"]?.string ?? "application-x-executable", size: 32))
            let label = gtk_label_new("Hand Off")!
            gtk_widget_add_css_class(label, "dim-label")
            Rows.suffix(label, to: row)
            let toggle = Rows.toggle(!blocked.contains(program)) { [controller] offered in
                controller.setBlocked(app: program, !offered)
            }
            gtk_widget_set_sensitive(toggle, on ? 1 : 0)
            Rows.suffix(toggle, to: row, activatedByRow: true)
        }
    }

    /// The checks in plain words: what needs the person's attention first, in the warning
    /// colour, with a button to the page that fixes it (the command only as a detail); a
    /// matter for an app's developer is a note, not a failure.
    private mutating func doctor() -> Rows.Widget {
        let page = Rows.page()
        let checks = service.diagnosis.map(DiagnosticCheck.init(record:)).map { ($0, DoctorWords($0)) }
        let warnings = checks.filter { !$0.0.ok && $0.1.severity == .warning }
        let group = Rows.group("Checks", description: warnings.isEmpty ? "Everything Handoff needs is in place."
            : "\(warnings.count) \(warnings.count == 1 ? "thing needs" : "things need") your attention.", in: page)
        let ordered = warnings + checks.filter { $0.0.ok || $0.1.severity != .warning }
        for (check, words) in ordered {
            let attention = !check.ok && words.severity == .warning
            let icon = check.ok ? "emblem-ok-symbolic" : attention ? "dialog-warning-symbolic" : "dialog-information-symbolic"
            var subtitle = check.detail
            if !check.ok, !check.fix.isEmpty { subtitle += "\nTo fix it: \(check.fix)" }
            let row = Rows.row(words.title, subtitle: subtitle, in: group)
            let image = Rows.iconImage(icon)
            if attention { gtk_widget_add_css_class(image, "warning") }
            adw_action_row_add_prefix(baton_adw_action_row(row), image)
            if !check.ok, let fix = words.fix {
                let button = Rows.button(fix.label, classes: ["flat"]) { [controller] in controller.show(page: fix.page) }
                Rows.suffix(button, to: row)
                if firstAction["doctor"] == nil { firstAction["doctor"] = button }
            }
        }
        return page
    }
}
