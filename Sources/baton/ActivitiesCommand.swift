import ArgumentParser
import BatonBus
import BatonGLib

struct ActivitiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activities", abstract: "List the activities that can be continued on this device.")

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            let records = try ServiceProxy.call(.listActivities)
            if output.json { return try JSONOutput.print(records.map { $0.mapValues(JSONOutput.object) }) }
            guard !records.isEmpty else { return print("No activities.") }
            TextTable.print(header: ["ID", "TYPE", "TITLE", "APP", "FROM"], rows: records.map { record in
                [record["id"]?.string ?? "", record["type"]?.string ?? "", record["title"]?.string ?? "",
                 record["app-id"]?.string ?? "-", record["device"]?.string ?? ""]
            })
        }
    }
}
