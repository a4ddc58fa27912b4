import ArgumentParser
import BatonBus
import BatonGLib

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the service and the current activity.")

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            let status = try ServiceProxy.call(.getStatus)
            if output.json { return try JSONOutput.print(status.mapValues(JSONOutput.object)) }
            let pid = status["pid"]?.integer.map(String.init) ?? "?"
            print("batond \(status["version"]?.string ?? "?") (pid \(pid)), interface \(status["interface"]?.string ?? "?")")
            let device = TerminalText.printable(status["device-name"]?.string ?? "?")
            print("this device: \(device) (\(status["device-id"]?.string ?? "?")), listening on \(status["listen"]?.string ?? "-")")
            print("paired devices: \(status["paired-devices"]?.integer ?? 0)")
            if let tailnet = status["tailnet"]?.strings {
                print("tailnet: \(tailnet.isEmpty ? "no device to dial" : tailnet.map(TerminalText.printable).joined(separator: ", "))")
            }
            let phones = status["phones"]?.strings ?? []
            print("phones: \(phones.isEmpty ? "none" : phones.map(TerminalText.printable).joined(separator: ", "))")
            print("registered apps: \(status["apps"]?.integer ?? 0)")
            print("activities: \(status["activities"]?.integer ?? 0)")
            if let offered = status["offered"]?.dictionary {
                let title = TerminalText.printable(offered["title"]?.string ?? "")
                let app = TerminalText.printable(offered["app-id"]?.string ?? "")
                print(offered["source"]?.string == "recent list"
                      ? "offered to paired devices: \(title), a document from the recent list, used in \(app)"
                      : "offered to paired devices: \(title.isEmpty ? "(untitled)" : title), from \(app)")
            } else {
                print("offered to paired devices: nothing")
            }
            if let clipboard = status["clipboard"]?.string { print("clipboard: \(TerminalText.printable(clipboard))") }
            guard let current = status["current"]?.dictionary else { return print("current activity: none") }
            let text = { (key: String) in TerminalText.printable(current[key]?.string ?? "") }
            let title = text("title")
            print("current activity: \(title.isEmpty ? "(untitled)" : title)")
            print("  type: \(text("type"))")
            print("  app: \(text("app-id")) (team \(text("team-id")))")
            print("  id: \(text("id"))")
            if current["webpage-url"] != nil { print("  webpage: \(text("webpage-url"))") }
            if current["eligible"]?.bool == false { print("  not eligible for Handoff") }
        }
    }
}
