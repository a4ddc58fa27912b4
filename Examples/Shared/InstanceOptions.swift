import ArgumentParser
import Foundation

/// The options each example app takes about its instance: where and how often its open
/// windows are saved, whether it runs apart from the session's one, and GApplication's own
/// service option.
public struct InstanceOptions: ParsableArguments {
    @Option(name: .customLong("state-dir"),
            help: ArgumentHelp("Where open windows are saved for the next launch.", valueName: "dir"))
    public var stateDirectory: String?

    @Option(name: .customLong("save-interval"), help: "Seconds between saves of the open windows (0: only on quit).")
    public var saveInterval: UInt32 = 30

    @Flag(help: "Run a separate instance, not the session's one.")
    public var standalone = false

    /// GApplication's own option, with which the bus starts the app (its D-Bus service file).
    @Flag(name: .customLong("gapplication-service"), help: .hidden)
    public var gapplicationService = false

    public init() {}

    /// `--state-dir` as a folder URL.
    public var stateDirectoryURL: URL? { stateDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } }

    /// What of these goes to GApplication: its service option, when given.
    public var applicationArguments: [String] { gapplicationService ? ["--gapplication-service"] : [] }
}
