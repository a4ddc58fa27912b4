import BatonGLib
import BatonPeer
import Logging

/// What other devices can make batond log: every line about what a device sent or did goes
/// through ``log(_:from:_:)``, within its ``logBudgets``, so no device can fill the log.
///
/// A paired device may make batond log 30 lines in any 10 s; past that, one line says that
/// “‹device›” is sending too much and for how long its further lines are dropped, and the next
/// line let through says how many were left out. Unpaired devices may make it log 10 lines a
/// minute per address and 20 in all, the same way.
extension PeerNetwork {
    /// Logs `line`, which `deviceID` made happen, at `level`, within what that device may make
    /// batond log: its own budget when it is paired, its address's and all strangers'
    /// otherwise. Lines below batond's log level cost nothing.
    func log(_ level: Logger.Level, from deviceID: String, _ line: @autoclosure () -> String) {
        log(level, from: deviceID, at: devices[deviceID]?.link?.remoteHost, line())
    }

    /// Logs `line` about the device at the other end of `link`, as ``log(_:from:_:)`` does.
    func log(_ level: Logger.Level, about link: PeerLink, _ line: @autoclosure () -> String) {
        log(level, from: link.peerDeviceID, at: link.remoteHost, line())
    }

    /// Logs a line about a device that is not paired, at `host` (its address, or a relay's),
    /// within the strangers' budgets: its address's first, so a line its address may not log
    /// costs the other strangers nothing.
    func logStranger(_ line: @autoclosure () -> String, from host: String, level: Logger.Level = .info) {
        guard logger.logLevel <= level else { return }
        let now = MonotonicClock.now
        let text: String
        switch logBudgets.strangerAddress.admit(host, now: now) {
        case .drop:
            return
        case .stop(let seconds):
            text = "unpaired devices at \(host) are sending too much; further lines about them are dropped for \(seconds) s"
        case .log(let leftOut):
            text = line() + (leftOut > 0 ? " (\(leftOut) lines about unpaired devices at \(host) left out)" : "")
        }
        switch logBudgets.strangers.admit("all", now: now) {
        case .drop:
            break
        case .stop(let seconds):
            logger.notice("unpaired devices are sending too much; further lines about them are dropped for \(seconds) s")
        case .log(let leftOut):
            logger.log(level: level, "\(text)\(leftOut > 0 ? " (\(leftOut) lines about unpaired devices left out)" : "")")
        }
    }

    private func log(_ level: Logger.Level, from deviceID: String, at host: String?, _ line: @autoclosure () -> String) {
        guard isPaired(deviceID) else {
            return logStranger(line(), from: host ?? Self.shortID(deviceID), level: level)
        }
        guard logger.logLevel <= level else { return }
        switch logBudgets.paired.admit(deviceID, now: MonotonicClock.now) {
        case .drop:
            break
        case .stop(let seconds):
            logger.notice("\(displayName(deviceID)) is sending too much; further lines from it are dropped for \(seconds) s")
        case .log(let leftOut):
            logger.log(level: level, "\(line())\(leftOut > 0 ? " (\(leftOut) lines from \(displayName(deviceID)) left out)" : "")")
        }
    }
}
