import ArgumentParser
import BatonBus
import BatonGLib

struct OfferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offer",
        abstract: "Offer an activity from a JSON file as another device's offer is shown (for testing).",
        discussion: "Prints the offer's id. The offer is listed by `baton activities` and shown as a notification.")

    @Option(name: .shortAndLong, help: "The activity, as JSON (see `baton continue --help`).")
    var file: String?

    @Option(help: "The device name to show as its origin.")
    var device: String = "a test device"

    @Option(help: "Withdraw the offer with this id instead.")
    var remove: String?

    func validate() throws {
        guard (file == nil) != (remove == nil) else { throw ValidationError("give either --file or --remove") }
    }

    func run() throws {
        try runOnMain {
            if let remove {
                try ServiceProxy.call(.removeOffer(id: remove))
                return
            }
            guard let file else { return }
            let activity = try ActivityFile.load(file)
            var options = activity.options
            options["device"] = .string(device)
            print(try ServiceProxy.call(.addOffer(try activity.encodedPayload(), options: options)))
        }
    }
}
