import ArgumentParser
import BatonGLib

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the service and the current activity.")

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            let status = try ServiceProxy.call("GetStatus").at(0)?.dictionary ?? [:]
            if output.json { return try JSONOutput.print(status.mapValues(JSONOutput.object)) }
            let pid = status["pid"]?.integer.map(String.init) ?? "?"
            print("batond \(status["version"]?.string ?? "?") (pid \(pid)), interface \(status["interface"]?.string ?? "?")")
            print("registered apps: \(status["apps"]?.integer ?? 0)")
            print("activities: \(status["activities"]?.integer ?? 0)")
            guard let current = status["current"]?.dictionary else { return print("current activity: none") }
            let title = current["title"]?.string ?? ""
            print("current activity: \(title.isEmpty ? "(untitled)" : title)")
            print("  type: \(current["type"]?.string ?? "")")
            print("  app: \(current["app-id"]?.string ?? "") (team \(current["team-id"]?.string ?? ""))")
            print("  id: \(current["id"]?.string ?? "")")
            if let url = current["webpage-url"]?.string { print("  webpage: \(url)") }
            if current["eligible"]?.bool == false { print("  not eligible for Handoff") }
        }
    }
}
