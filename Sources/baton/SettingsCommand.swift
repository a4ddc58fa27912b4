import ArgumentParser
import BatonBus
import BatonGLib

struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Show or change what this device does with Handoff.",
        discussion: """
            Without arguments, prints the settings. Changes take effect at once and are kept \
            across restarts:
              baton settings name NAME                 this device's name, as other devices show it
              baton settings handoff on|off            off: nothing is offered, other devices' offers are hidden
              baton settings notifications on|quiet    quiet: offers are listed, never notified
              baton settings recent-documents on|off   off: the document open in an app that does not
                                                       adopt Baton (from the recent list) is not offered
              baton settings clipboard on|off          off: copies are not shared with paired devices
              baton settings clipboard-device DEVICE on|off   whether copies are shared with one paired device
              baton settings device DEVICE block|allow a paired device (name, id or start of an id)
              baton settings app APP-ID block|allow    a blocked app's activities are never offered (an app
                                                       of the recent list by its program: app gedit block)
            """)

    @Argument(help: ArgumentHelp("name, handoff, notifications, recent-documents, clipboard, clipboard-device, device or app, then its value.", valueName: "setting"))
    var words: [String] = []

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard let first = words.first else { return }
        let expected = ["name": 2, "handoff": 2, "notifications": 2, "recent-documents": 2, "clipboard": 2,
                        "clipboard-device": 3, "device": 3, "app": 3]
        guard let count = expected[first] else {
            throw ValidationError("unknown setting \(first.debugDescription): name, handoff, notifications, recent-documents, clipboard, clipboard-device, device or app")
        }
        guard words.count == count else {
            throw ValidationError(count == 2 ? "baton settings \(first) takes one value"
                                  : first == "clipboard-device" ? "baton settings clipboard-device DEVICE on|off"
                                  : "baton settings \(first) NAME block|allow")
        }
    }

    func run() throws {
        try runOnMain {
            if let change = try Self.change(words) {
                try ServiceProxy.call(change)
            }
            let settings = try ServiceProxy.call(.getSettings)
            if output.json { return try JSONOutput.print(settings.mapValues(JSONOutput.object)) }
            let fixed = settings["name-fixed"]?.bool == true ? " (fixed by batond --name)" : ""
            print("Name:           \(TerminalText.printable(settings["name"]?.string ?? ""))\(fixed)")
            print("Handoff:        \(settings["handoff"]?.bool == false ? "off" : "on")")
            print("Notifications:  \(settings["notifications"]?.string ?? "on")")
            print("Recent documents: \(settings["recent-documents"]?.bool == false ? "off" : "on") (the document open in apps that do not adopt Baton, from the recent list)")
            print("Clipboard:      \(settings["clipboard"]?.bool == false ? "off" : "on") (copies shared with paired devices)")
            let clipboardBlocked = settings["clipboard-blocked-devices"]?.strings ?? []
            if !clipboardBlocked.isEmpty { print("Clipboard not shared with: \(clipboardBlocked.joined(separator: ", "))") }
            let devices = settings["blocked-devices"]?.strings ?? []
            let apps = settings["blocked-apps"]?.strings ?? []
            print("Blocked devices: \(devices.isEmpty ? "none" : devices.joined(separator: ", "))")
            print("Blocked apps:    \(apps.isEmpty ? "none" : apps.joined(separator: ", "))")
        }
    }

    /// The call that makes the change `words` asks for; nil for none.
    private static func change(_ words: [String]) throws -> DaemonCall<Void>? {
        guard let setting = words.first else { return nil }
        let value = words.last ?? ""
        switch setting {
        case "name":
            return .setDeviceName(value)
        case "handoff":
            guard ["on", "off"].contains(value) else { throw CommandFailure("handoff is on or off, not \(value.debugDescription)") }
            return .setHandoff(value == "on")
        case "notifications":
            return .setNotifications(value)
        case "recent-documents":
            guard ["on", "off"].contains(value) else {
                throw CommandFailure("recent-documents is on or off, not \(value.debugDescription)")
            }
            return .setRecentDocuments(value == "on")
        case "clipboard", "clipboard-device":
            guard ["on", "off"].contains(value) else {
                throw CommandFailure("\(setting) is on or off, not \(value.debugDescription)")
            }
            return setting == "clipboard" ? .setClipboard(value == "on") : .setDeviceClipboard(words[1], value == "on")
        default:
            guard ["block", "allow"].contains(value) else {
                throw CommandFailure("a \(setting) is blocked or allowed (block or allow), not \(value.debugDescription)")
            }
            return setting == "device" ? .setDeviceBlocked(words[1], value == "block") : .setAppBlocked(words[1], value == "block")
        }
    }
}
