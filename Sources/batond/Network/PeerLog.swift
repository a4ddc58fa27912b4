import BatonGLib
import Logging

/// What other devices can make batond log: every line about what a device sent or did goes
/// through ``PeerNetwork/log(_:from:_:)``, within the budgets here, so no device can fill the log.
///
/// A paired device may make batond log 30 lines in any 10 s; past that, one line says that
/// “‹device›” is sending too much and for how long its further lines are dropped, and the next
/// line let through says how many were left out. Unpaired devices may make it log 10 lines a
/// minute per address and 20 in all, the same way.
@MainActor
final class PeerLog {
    let logger: Logger
    /// What each paired device may make batond log, by its id; unpaired devices by address,
    /// and all of them together.
    var budgets = (paired: LogBudget(lines: 30, per: 10), strangerAddress: LogBudget(lines: 10, per: 60),
                   strangers: LogBudget(lines: 20, per: 60))

    init(logger: Logger) {
        self.logger = logger
    }

    /// Logs `line`, which the paired device `deviceID` (shown as `name`) made happen, at
    /// `level`, within that device's budget. Lines below batond's log level cost nothing.
    func paired(_ level: Logger.Level, from deviceID: String, named name: () -> String,
                _ line: @autoclosure () -> String) {
        guard logger.logLevel <= level else { return }
        switch budgets.paired.admit(deviceID, now: MonotonicClock.now) {
        case .drop:
            break
        case .stop(let seconds):
            logger.notice("\(name()) is sending too much; further lines from it are dropped for \(seconds) s")
        case .log(let leftOut):
            logger.log(level: level, "\(line())\(leftOut > 0 ? " (\(leftOut) lines from \(name()) left out)" : "")")
        }
    }

    /// Logs a line about a device that is not paired, at `host` (its address, or a relay's),
    /// within the strangers' budgets: its address's first, so a line its address may not log
    /// costs the other strangers nothing.
    func stranger(_ line: @autoclosure () -> String, from host: String, level: Logger.Level = .info) {
        guard logger.logLevel <= level else { return }
        let now = MonotonicClock.now
        let text: String
        switch budgets.strangerAddress.admit(host, now: now) {
        case .drop:
            return
        case .stop(let seconds):
            text = "unpaired devices at \(host) are sending too much; further lines about them are dropped for \(seconds) s"
        case .log(let leftOut):
            text = line() + (leftOut > 0 ? " (\(leftOut) lines about unpaired devices at \(host) left out)" : "")
        }
        switch budgets.strangers.admit("all", now: now) {
        case .drop:
            break
        case .stop(let seconds):
            logger.notice("unpaired devices are sending too much; further lines about them are dropped for \(seconds) s")
        case .log(let leftOut):
            logger.log(level: level, "\(text)\(leftOut > 0 ? " (\(leftOut) lines about unpaired devices left out)" : "")")
        }
    }
}
