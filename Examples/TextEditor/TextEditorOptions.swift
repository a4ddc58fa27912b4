import ArgumentParser
import ExampleSupport
import Foundation

/// Command-line options.
struct TextEditorOptions: ParsableArguments {
    static let configuration = CommandConfiguration(
        commandName: "TextEditor",
        abstract: "A GTK 4 editor of plain text and Markdown whose documents continue on your other devices.",
        discussion: """
            One Text Editor runs per session: launched again with files, it opens them in the \
            running one and exits. A file that does not exist yet opens empty and is created on \
            the first save. --state-dir and --save-interval apply to the first.
            """)

    @Argument(help: ArgumentHelp("Files to open, each in a window.", valueName: "file"))
    var files: [String] = []

    @Flag(help: "Open a new, untitled document.")
    var new = false

    /// --state-dir, --save-interval, --standalone.
    @OptionGroup var instance: InstanceOptions

    /// What goes to GApplication: the service option, and each file as an absolute `file:`
    /// URI, which a second instance passes to the first; `--new` is the URI `texteditor:new`.
    var applicationArguments: [String] {
        instance.applicationArguments
            + files.map { URL(fileURLWithPath: $0).standardizedFileURL.absoluteString }
            + (new ? [TextEditorApplication.newDocumentURI] : [])
    }
}
