import ArgumentParser
import BatonBus
import BatonGLib

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Send an activity's web page to a phone.",
        discussion: """
            Sends the web page of ACTIVITY (an id from `baton activities`, or `current` for the \
            current activity) to DEVICE, a phone or tablet paired with KDE Connect, GSConnect or \
            Valent on this desktop (its name or id from `baton devices`). The phone opens it. \
            An activity without a web page cannot be sent.
            """)

    @Argument(help: "The id of a listed activity, or `current`.")
    var activity: String

    @Argument(help: "The phone's name or id.")
    var device: String

    func run() throws {
        try runOnMain {
            var id = activity
            if activity == "current" {
                let status = try ServiceProxy.call(.getStatus)
                guard let current = status["current"]?.dictionary?["id"]?.string else {
                    throw CommandFailure("there is no current activity to send")
                }
                id = current
            }
            try ServiceProxy.call(.sendToDevice(activityID: id, device: device))
            print("Sent to \(TerminalText.printable(device)).")
        }
    }
}
