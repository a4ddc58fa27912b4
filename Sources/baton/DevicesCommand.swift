import ArgumentParser
import BatonBus
import BatonGLib

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "List the devices in reach and the paired ones.",
        discussion: """
            Computers running Baton, then the phones and tablets paired with KDE Connect \
            (GSConnect, Valent) on this desktop, which `baton send` sends web pages to.
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            let records = try ServiceProxy.call(.listDevices)
            if output.json { return try JSONOutput.print(records.map { $0.mapValues(JSONOutput.object) }) }
            guard !records.isEmpty else {
                return print("No devices. Other devices appear here when DNS-SD finds them or batond dials them (--peer).")
            }
            TextTable.print(header: ["ID", "NAME", "KIND", "STATE", "ADDRESS"], rows: records.map { record in
                [record["id"]?.string ?? "", record["name"]?.string ?? "", record["kind"]?.string ?? "computer",
                 Self.state(record), record["via"]?.string.map { "via \($0)" } ?? record["address"]?.string ?? "-"]
                    .map(TerminalText.printable)
            })
        }
    }

    private static func state(_ record: [String: BusValue]) -> String {
        let connected = record["connected"]?.bool == true
        if let code = record["pairing-code"]?.string {
            return record["confirmed-here"]?.bool == true ? "pairing (shows \(code), confirmed here)" : "pairing (shows \(code))"
        }
        if record["via"] != nil { return connected ? "paired, reachable" : "paired, out of reach" }
        if record["paired"]?.bool == true {
            guard connected else { return "paired, offline" }
            return record["relay"]?.string.map { "paired, connected through the relay \($0)" } ?? "paired, connected"
        }
        return connected ? "not paired" : "not paired, not connected"
    }
}

struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair", abstract: "Pair with a device, typing on each the code the other shows.",
        discussion: """
            `baton pair DEVICE` asks the device to pair and prints the code this device \
            shows; the other device shows a code of its own (baton devices, and a \
            notification). On each device, type the code the other one shows: \
            `baton pair --confirm OTHER-DEVICE CODE`. Nothing else confirms a pairing (not a \
            click on a notification, not the code on the same screen). Once both confirmed, \
            each pins the other's certificate. A wrong code ends the pairing on both devices. \
            DEVICE is a name, an id or the start of an id (at least 4 digits) from baton devices.
            """)

    @Flag(help: "Confirm the pairing with DEVICE, typing the code it shows.")
    var confirm = false

    @Argument(help: "The device's name or id.")
    var device: String

    @Argument(help: "With --confirm: the verification code the other device shows.")
    var code: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if confirm, code == nil { throw ValidationError("--confirm needs the verification code: baton pair --confirm DEVICE CODE") }
        if !confirm, code != nil { throw ValidationError("a code is only given with --confirm") }
    }

    func run() throws {
        try runOnMain {
            if confirm, let code {
                let paired = try ServiceProxy.call(.confirmPair(device, code: code))
                if output.json { return try JSONOutput.print(["device": device, "paired": paired]) }
                print(paired ? "Paired with \(device)." : "Confirmed here; waiting for \(device) to confirm too.")
                return
            }
            let (id, code) = try ServiceProxy.call(.pair(device))
            if output.json { return try JSONOutput.print(["device": device, "id": id, "code": code]) }
            let status = try ServiceProxy.call(.getStatus)
            let here = status["device-name"]?.string ?? "THIS-DEVICE"
            let (shownHere, shownDevice) = (TerminalText.printable(here), TerminalText.printable(device))
            print("Verification code: \(code)")
            print("Type it on \(shownDevice):  baton pair --confirm \(ShellWord.quoted(shownHere)) \(code)")
            print("Then type here the code \(shownDevice) shows:  baton pair --confirm \(ShellWord.quoted(shownDevice)) CODE")
        }
    }
}

struct UnpairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair", abstract: "Forget a paired device; it forgets this one too when connected.")

    @Argument(help: "The device's name or id.")
    var device: String

    func run() throws {
        try runOnMain {
            try ServiceProxy.call(.unpair(device))
            print("Unpaired \(device).")
        }
    }
}
