import ArgumentParser
import ExampleSupport
import Foundation

/// Command-line options, for scripting and demos.
struct MailComposerOptions: ParsableArguments {
    static let configuration = CommandConfiguration(
        commandName: "MailComposer",
        abstract: "A GTK 4 mail composer whose drafts continue on your other devices.",
        discussion: """
            One Mail Composer runs per session: launched again, or given a mailto: link, it \
            opens the new message in the running one and exits. --state-dir, --data-dir and \
            --save-interval apply to the first.
            """)

    @Argument(help: ArgumentHelp("mailto: links to open, each in a compose window.", valueName: "link"))
    var links: [String] = []

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

    @Option(name: .customLong("attach"), help: ArgumentHelp("A file to attach to the new message (repeatable).",
                                                            valueName: "file"))
    var attachments: [String] = []

    @Option(name: .customLong("data-dir"),
            help: ArgumentHelp("Where the mailbox lives (default: $XDG_DATA_HOME/org.example.MailComposer).",
                               valueName: "dir"))
    var dataDirectory: String?

    /// --state-dir, --save-interval, --standalone.
    @OptionGroup var instance: InstanceOptions

    /// The message the options describe, as a link: `nil` unless one was asked for.
    var composeLink: MailtoLink? {
        guard wantsCompose else { return nil }
        return MailtoLink(to: to ?? "", cc: cc ?? "", subject: subject ?? "", body: body ?? "")
    }

    /// What goes to GApplication: the service option, and every message to open as a link,
    /// which a second instance passes to the first.
    var applicationArguments: [String] {
        instance.applicationArguments + links + (composeLink.map { [$0.uri] } ?? [])
            + attachments.map { URL(fileURLWithPath: $0).absoluteURL.absoluteString }
    }

    var wantsCompose: Bool {
        compose || to != nil || cc != nil || subject != nil || body != nil || !attachments.isEmpty
    }
}
