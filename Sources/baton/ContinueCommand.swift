import ArgumentParser
import BatonBus
import BatonGLib
import Foundation

struct ContinueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "continue",
        abstract: "Continue an activity on this device, and wait until its app restored it.",
        discussion: """
            Exits 0 once the app that continues the activity reported the restore; otherwise \
            exits 1 with the reason on stderr. With --file, the activity is read from a JSON \
            file (see `baton inspect --json` for the shape; - reads standard input). The \
            desktop's activation token in XDG_ACTIVATION_TOKEN, when set, goes to the app, so \
            that the continued window comes to the front.
            """)

    @Argument(help: "The id of a listed activity (see `baton activities`).")
    var id: String?

    @Option(name: .shortAndLong, help: "Continue the activity in this JSON file instead.")
    var file: String?

    @Option(help: "Seconds to wait for the outcome.")
    var timeout: Double = 120

    func validate() throws {
        guard (id == nil) != (file == nil) else { throw ValidationError("give either an activity id or --file") }
        guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout must be a positive number") }
    }

    func run() throws {
        try runOnMain {
            if let file {
                let activity = try ActivityFile.load(file)
                try ServiceProxy.call(.continuePayload(try activity.encodedPayload(), options: activity.options), timeout: timeout)
                print("Continued \(TerminalText.printable(activity.type)).")
            } else if let id {
                // A desktop activation token in XDG_ACTIVATION_TOKEN (set by whatever started
                // this command with one), so that the continued window may come to the front.
                var options: [String: BusValue] = [:]
                if let token = ProcessInfo.processInfo.environment["XDG_ACTIVATION_TOKEN"],
                   BatonService.isAcceptableActivationToken(token) {
                    options[BatonService.continueActivationTokenKey] = .string(token)
                }
                try ServiceProxy.call(.continueActivity(id: id, options: options), timeout: timeout)
                print("Continued \(TerminalText.printable(id)).")
            }
        }
    }
}
