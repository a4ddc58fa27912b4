import ArgumentParser

/// Command-line options, for scripting and demos.
struct MailComposerOptions: ParsableArguments {
    static let configuration = CommandConfiguration(
        commandName: "MailComposer",
        abstract: "A GTK 4 mail composer whose drafts continue on your other devices.")

    @Flag(help: "Open a compose window (implied by --to, --cc, --subject and --body).")
    var compose = false

    @Option(help: "Recipients of the new message.")
    var to: String?

    @Option(help: "Copy recipients of the new message.")
    var cc: String?

    @Option(help: "Subject of the new message.")
    var subject: String?

    @Option(help: "Body of the new message.")
    var body: String?

    @Option(name: .customLong("state-dir"),
            help: ArgumentHelp("Where open windows are saved for the next launch.",
                               valueName: "dir"))
    var stateDirectory: String?

    @Option(name: .customLong("data-dir"),
            help: ArgumentHelp("Where the mailbox lives (default: $XDG_DATA_HOME/org.example.MailComposer).",
                               valueName: "dir"))
    var dataDirectory: String?

    @Option(name: .customLong("save-interval"), help: "Seconds between saves of the open windows (0: only on quit).")
    var saveInterval: UInt32 = 30

    var wantsCompose: Bool {
        compose || to != nil || cc != nil || subject != nil || body != nil
    }
}
