import BatonBus

/// What the Doctor page says of each check, for a person rather than a developer: a title in
/// plain words, whether a failure matters on a person's computer (a warning) or only to an
/// app's developer (a note), and the page of the app that fixes it, if one does. The command
/// that fixes it stays as a detail.
struct DoctorWords {
    /// How a failed check is shown.
    enum Severity: Equatable {
        /// Something Handoff needs: shown in the warning colour.
        case warning
        /// A matter for an app's developer (a web domain its site does not confirm, an entry's
        /// declarations): shown plainly, not counted as a failure.
        case developer
    }

    let title: String
    let severity: Severity
    /// The button that fixes it here: its label and the page it opens.
    let fix: (label: String, page: String)?

    init(_ check: DiagnosticCheck) {
        let name = check.check
        func after(_ prefix: String) -> String { String(name.dropFirst(prefix.count)) }
        switch name {
        case "service": (title, severity, fix) = ("Baton Service", .warning, nil)
        case "D-Bus service file": (title, severity, fix) = ("Starts When an App Needs It", .warning, nil)
        case "starts with the session": (title, severity, fix) = ("Starts When You Log In", .warning, nil)
        case "discovery": (title, severity, fix) = ("Finds Devices on This Network", .warning, nil)
        case "listening": (title, severity, fix) = ("Reachable by Your Other Devices", .warning, nil)
        case "tailnet": (title, severity, fix) = ("Tailscale", .warning, nil)
        case "paired devices": (title, severity, fix) = ("Paired Devices", .warning, ("_Pair a Device…", "devices"))
        case "notifications": (title, severity, fix) = ("Notifications", .warning, nil)
        case "settings": (title, severity, fix) = ("Handoff", .warning, ("_Turn On Handoff…", "device"))
        case "syncthing": (title, severity, fix) = ("Documents Through Syncthing", .warning, nil)
        case "recent documents": (title, severity, fix) = ("Documents From Other Apps", .warning, nil)
        case "domains": (title, severity, fix) = ("Web Pages That Open in Apps", .developer, nil)
        default:
            if name.hasPrefix("device ") {
                (title, severity, fix) = ("Link With “\(after("device "))”", .warning, ("_Show Devices…", "devices"))
            } else if name.hasPrefix("relay ") {
                (title, severity, fix) = ("Relay \(after("relay "))", .warning, nil)
            } else if name.hasPrefix("app ") {
                (title, severity, fix) = ("App \(after("app "))", .developer, ("_Show Apps…", "apps"))
            } else if name.hasPrefix("entry ") {
                (title, severity, fix) = ("App Entry \(after("entry "))", .developer, nil)
            } else {
                (title, severity, fix) = (name.prefix(1).uppercased() + name.dropFirst(), .warning, nil)
            }
        }
    }
}
