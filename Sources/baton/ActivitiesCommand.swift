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
                 record["app-id"]?.string ?? "-", Self.from(record)]
            })
        }
    }

    /// Where an activity comes from: its device, and for this device's document of the
    /// desktop's recent list, that list and the app it is open in.
    static func from(_ record: [String: BusValue]) -> String {
        let device = record["device"]?.string ?? ""
        guard record["source"]?.string == "recent list" else { return device }
        return "\(device), from the recent list, used in \(record["app-id"]?.string ?? "an app")"
    }
}
