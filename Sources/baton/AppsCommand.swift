import ArgumentParser
import BatonGLib

struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "List running and installed apps that continue activities.")

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            let records = try ServiceProxy.call("ListApps").at(0)?.dictionaries ?? []
            if output.json { return try JSONOutput.print(records.map { $0.mapValues(JSONOutput.object) }) }
            guard !records.isEmpty else { return print("No apps.") }
            TextTable.print(header: ["APP", "TEAM", "STATE", "ACTIVITY TYPES"], rows: records.map { record in
                let state = record["running"]?.bool == true
                    ? "running" + (record["pid"]?.integer.map { " (pid \($0))" } ?? "")
                    : "installed"
                return [record["app-id"]?.string ?? "", record["team-id"]?.string ?? "", state,
                        (record["activity-types"]?.strings ?? []).joined(separator: ", ")]
            })
        }
    }
}
