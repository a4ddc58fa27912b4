import ArgumentParser
import BatonGLib
import Foundation
import Logging

/// batond's command line.
struct BatondOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batond",
        abstract: "The per-user Baton continuity service on the D-Bus session bus.",
        discussion: """
            batond owns org.baton.Daemon on the session bus. Apps built on BatonGtk register \
            with it and publish their current activity; the baton command-line tool lists and \
            continues activities through it. It is normally started by D-Bus activation or its \
            systemd user unit; run it in the foreground for development.
            """)

    @Option(help: "The folder for the service's state, created 0700 (default: $XDG_STATE_HOME/baton). Nothing is kept there yet: it is where the network half will keep device identity and pairings.")
    var stateDir: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    @Option(help: "Seconds an app may take to save an activity when asked for it.")
    var saveTimeout: Double = Timeouts.standard.save

    @Option(help: "Seconds a launched app may take to start and register.")
    var launchTimeout: Double = Timeouts.standard.launch

    @Option(help: "Seconds an app may take to restore a delivered activity.")
    var restoreTimeout: Double = Timeouts.standard.restore

    func validate() throws {
        guard saveTimeout <= 50 else {
            throw ValidationError("--save-timeout must be at most 50 s: apps give up on a continuation after 60 s")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level \"\(logLevel)\"")
        }
        for (name, value) in [("--save-timeout", saveTimeout), ("--launch-timeout", launchTimeout),
                              ("--restore-timeout", restoreTimeout)] {
            guard value.isFinite, value > 0, value <= 3600 else {
                throw ValidationError("\(name) must be a number of seconds between 0 and 3600")
            }
        }
    }

    var timeouts: Timeouts {
        Timeouts(save: saveTimeout, launch: launchTimeout, restore: restoreTimeout, call: Timeouts.standard.call)
    }

    var stateDirectory: URL {
        if let stateDir { return URL(fileURLWithPath: stateDir, isDirectory: true) }
        return XDGDirectories.stateHome.appendingPathComponent("baton", isDirectory: true)
    }
}
