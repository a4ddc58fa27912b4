import ArgumentParser
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
            let reply = try id.map { try ServiceProxy.call("Fetch", [.string($0)]) } ?? ServiceProxy.call("Inspect")
            guard let bytes = reply.at(0)?.bytes else { throw CommandFailure("the service sent no activity") }
            let payload: UserActivityPayload
            do {
                payload = try UserActivityPayload(decoding: bytes)
            } catch {
                throw CommandFailure("the service sent an unreadable activity: \(error)")
            }
            let object = try JSONOutput.object(payload)
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
}
