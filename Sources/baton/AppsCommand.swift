import ArgumentParser
import BatonBus
import BatonGLib

struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "List running and installed apps that continue activities.",
        discussion: """
            A running app is verified when its process is the program its desktop entry (or its \
            Flatpak) names, and then only for the team and activity types that entry declares \
            (X-Baton-TeamID, X-Baton-ActivityTypes); VERIFIED says yes, partly (for some of its \
            activity types) or no, and VERIFICATION says which, or why not. Only an \
            app verified for an activity type receives that type from other devices, and it goes \
            before installed and unverified apps. Running apps verified for a type come first, \
            the most recently active first. A document app's entry also says which activity \
            type its documents of each MIME type carry (X-Baton-DocumentTypes; document-types \
            in --json). Then the apps the desktop's recent list names (STATE "recent list", by \
            the program they run): the document open in one may be offered, unless it is \
            blocked (baton settings app PROGRAM block) or recent documents are off.
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            let records = try ServiceProxy.call(.listApps)
            if output.json { return try JSONOutput.print(records.map { $0.mapValues(JSONOutput.object) }) }
            guard !records.isEmpty else { return print("No apps.") }
            let header = ["APP", "TEAM", "STATE", "VERIFIED", "ACTIVITY TYPES", "VERIFICATION"]
            TextTable.print(header: header, rows: records.map { record in
                let running = record["running"]?.bool == true
                let fromRecentList = record["source"]?.string == "recent list"
                let state = running ? "running" + (record["pid"]?.integer.map { " (pid \($0))" } ?? "")
                    : fromRecentList ? "recent list" : "installed"
                // yes, partly (for some of its activity types) or no; a service older than
                // verified-state says only whether the process is the app of its id.
                let verified = running ? record["verified-state"]?.string ?? (record["verified"]?.bool == true ? "yes" : "no") : "-"
                return [record["app-id"]?.string ?? "", record["team-id"]?.string ?? "", state, verified,
                        (record["activity-types"]?.strings ?? []).joined(separator: ", "),
                        running ? record["verification"]?.string ?? "" : "-"]
            })
        }
    }
}
