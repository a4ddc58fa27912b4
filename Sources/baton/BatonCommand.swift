import ArgumentParser
import BatonBus

/// `baton`: the command-line face of the Baton service.
@main
struct BatonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baton",
        abstract: "Look at and continue activities through the Baton service (batond).",
        version: BatonVersion.string,
        subcommands: [StatusCommand.self, ActivitiesCommand.self, ContinueCommand.self, InspectCommand.self,
                      AppsCommand.self, OfferCommand.self, DevicesCommand.self, PairCommand.self,
                      UnpairCommand.self, SendCommand.self, SettingsCommand.self, DomainsCommand.self, DoctorCommand.self])
}

/// The `--json` flag every listing takes.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text.")
    var json = false
}
