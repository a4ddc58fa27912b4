import ArgumentParser
import BatonBus
import Baton
import BatonGLib
import Foundation

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show the current activity with its userInfo, saved by its app just now.")

    @Argument(help: "A listed activity's id (default: the current activity).")
    var id: String?

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            let reply = try id.map { try ServiceProxy.call(.fetch(id: $0)) } ?? ServiceProxy.call(.inspect)
            guard let bytes = reply else { throw CommandFailure("the service sent no activity") }
            let payload: UserActivityPayload
            do {
                payload = try UserActivityPayload(decoding: bytes)
            } catch {
                throw CommandFailure("the service sent an unreadable activity: \(error)")
            }
            if let problem = Self.unshowable(payload) {
                throw CommandFailure("cannot show the activity: \(problem)")
            }
            let object: [String: Any]
            do {
                object = try JSONOutput.object(payload)
            } catch {
                throw CommandFailure("cannot show the activity: \(error)")
            }
            if output.json { return try JSONOutput.print(object) }
            print("type: \(TerminalText.printable(payload.activityType))")
            print("title: \(payload.title.map(TerminalText.printable) ?? "(none)")")
            if let url = payload.webpageURL { print("webpage: \(TerminalText.printable(url.absoluteString))") }
            if let date = payload.expirationDate { print("expires: \(date)") }
            if !payload.isEligibleForHandoff { print("not eligible for Handoff") }
            print("userInfo:")
            try JSONOutput.print(TerminalText.printable(json: object["userInfo"] ?? [:]))
        }
    }

    /// What of `payload` JSON cannot hold, which the binary format carries: a number or date
    /// that is not finite, named by its place, as `userInfo["draft"]["to"][2]: the number inf
    /// is not finite`; nil when all of it can be shown.
    static func unshowable(_ payload: UserActivityPayload) -> String? {
        if let date = payload.expirationDate, !date.timeIntervalSince1970.isFinite {
            return "expirationDate: the date \(date.timeIntervalSince1970) is not a finite time"
        }
        for key in payload.userInfo.keys.sorted() {
            guard let value = payload.userInfo[key] else { continue }
            if let place = UserInfoPath.firstPlace(in: value, where: { value, _ in whyUnshowable(value) }) {
                return "\(UserInfoPath.describe([.key(key)] + place.steps.reversed())): \(place.reason), which JSON cannot hold"
            }
        }
        return nil
    }

    /// Why JSON cannot hold `value` itself (not its members), or nil when it can.
    private static func whyUnshowable(_ value: UserInfoValue) -> String? {
        switch value {
        case .double(let number) where !number.isFinite:
            return "the number \(number) is not finite"
        case .date(let date) where !date.timeIntervalSinceReferenceDate.isFinite:
            return "the date \(date.timeIntervalSinceReferenceDate) is not a finite time"
        default:
            return nil
        }
    }
}
