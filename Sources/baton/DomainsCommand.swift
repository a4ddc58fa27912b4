import ArgumentParser
import BatonBus
import BatonGLib
import Foundation

struct DomainsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "domains", abstract: "List the web domains apps claim, and whether each site confirms it.",
        discussion: """
            An app claims domains in its desktop entry (X-Baton-Domains=mail.example.org;*.example.net;). \
            batond confirms each claim with the site's association file, fetched over HTTPS: \
            /.well-known/baton-app-site-association, else Apple's apple-app-site-association, whose \
            activitycontinuation.apps must list the app as TEAM.APPID. A web page from another \
            device continues in an app only while its claim is verified; otherwise it opens in \
            the default browser. Answers are kept as long as the site's Cache-Control max-age \
            says (a day when it says nothing, at least an hour, at most a week) and fetched \
            again then; a failed fetch leaves the earlier answer standing until it expires. \
            CHECKED is batond's latest fetch, FETCHED the one whose answer is in use, EXPIRES \
            when that answer stops counting.
            """)

    @Flag(help: "Fetch every claimed domain's association file now, then list.")
    var verify = false

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runOnMain {
            let records = try ServiceProxy.call(verify ? .verifyDomains : .listDomains, timeout: 60)
            if output.json { return try JSONOutput.print(records.map { $0.mapValues(JSONOutput.object) }) }
            guard !records.isEmpty else { return print("No app claims a web domain.") }
            TextTable.print(header: ["APP", "DOMAIN", "STATE", "CHECKED", "FETCHED", "EXPIRES", "DETAIL"], rows: records.map { record in
                [record["app-id"]?.string ?? "", record["domain"]?.string ?? "", record["state"]?.string ?? "",
                 Self.date(record["checked"]?.number), Self.date(record["fetched"]?.number), Self.date(record["expires"]?.number),
                 record["reason"]?.string ?? record["source"]?.string ?? ""].map(TerminalText.printable)
            })
        }
    }

    /// A time of the records (Unix time) as a local date and time to the minute, or `-`.
    private static func date(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "-" }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
