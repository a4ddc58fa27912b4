import Baton
import Foundation

// What the benchmarks work on: a compose view that saves a mail draft, the draft itself,
// and a description of the machine.

/// A compose view: in an update pass it writes the draft's subject, body and cursor, the
/// way a mail app's editor would.
@MainActor
final class MailDraftResponder: Responder {
    var subject: String
    var body: String
    var cursor: Int
    private(set) var updateCount = 0

    init(number: Int) {
        subject = "Re: Quarterly report (\(number))"
        body = MailDraft.body
        cursor = 100 + number
        super.init()
    }

    override func updateUserActivityState(_ userActivity: UserActivity) {
        super.updateUserActivityState(userActivity)
        updateCount += 1
        userActivity.addUserInfoEntries(from: [
            "subject": .string(subject),
            "body": .string(body),
            "cursor": .int(cursor),
        ])
    }
}

/// The typical mail draft of the encoding benchmark.
enum MailDraft {
    static let activityType = "org.example.mail.compose"
    static let draftID = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!

    /// About 1.5 KB of ordinary business prose.
    static let body = """
        Hi Alice, hi Bob,

        Please find below a first draft of the summary for the quarterly report. I have kept \
        it short on purpose so that we can agree on the structure before we fill in the \
        remaining figures from finance.

        Revenue grew by 8.4% compared with the same quarter last year, mostly driven by the \
        new subscription tier that we launched in April. Churn went down slightly, from 3.1% \
        to 2.7%, which is in line with what the retention team predicted in their March \
        review. Support tickets per thousand customers are flat, but the median time to first \
        response improved from nine hours to a little under five.

        On the cost side, infrastructure spending rose faster than planned because of the \
        migration to the new storage cluster; we expect this to level off next quarter once \
        the old cluster is decommissioned. Hiring is on track: we filled four of the five \
        open engineering positions and one of the two design roles.

        Open questions for our meeting on Thursday:
        1. Do we report the migration costs separately or fold them into operations?
        2. Carol asked whether we should include the preliminary numbers for July.
        3. Who presents the product roadmap slide this time?

        Could you both have a look before Wednesday evening and add your comments directly \
        in the shared document? I will merge everything on Thursday morning and send the \
        final version to the board by Friday noon.

        Thanks a lot, and have a good week,
        Dana
        """

    @MainActor
    static func makeActivity(center: ActivityCenter) throws -> UserActivity {
        let activity = UserActivity(activityType: activityType, center: center)
        activity.title = "Draft: Quarterly report"
        activity.userInfo = [
            "to": ["alice.nguyen@example.org", "bob.schmidt@example.com"],
            "cc": ["carol.okafor@example.net"],
            "subject": "Quarterly report",
            "body": .string(body),
            "cursor": 1234,
            "inReplyTo": "<CAF8x2qMk7Lp3vR9@mail.example.org>",
            "version": 1,
        ]
        let url = URL(string: "https://mail.example.org/drafts/\(draftID.uuidString.lowercased())")!
        try activity.setWebpageURL(url)
        return activity
    }
}

/// The machine the numbers come from.
enum Machine {
    static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    static var cpuModel: String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
            return "unknown"
        }
        for key in ["model name", "Model", "Hardware", "cpu model"] {
            for line in text.split(separator: "\n") where line.hasPrefix(key) {
                if let colon = line.firstIndex(of: ":") {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return "unknown"
    }

    /// CPU time the whole machine spent busy, and in steal (taken by the hypervisor), from
    /// `/proc/stat`; with this process's own CPU time, to tell how much else ran meanwhile.
    struct CPUTimes {
        var busySeconds = 0.0
        var stealSeconds = 0.0
        var ownSeconds = 0.0
        var wallNanoseconds: UInt64 = 0

        static func now() -> CPUTimes {
            var times = CPUTimes(wallNanoseconds: nowNanoseconds())
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) {
                let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
                if fields.count >= 8 {
                    // user nice system idle iowait irq softirq steal
                    times.busySeconds = (fields[0] + fields[1] + fields[2] + fields[5] + fields[6]) / ticks
                    times.stealSeconds = fields[7] / ticks
                }
            }
            var own = timespec()
            if clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &own) == 0 {
                times.ownSeconds = Double(own.tv_sec) + Double(own.tv_nsec) / 1e9
            }
            return times
        }

        /// Cores' worth of other work, and of steal, between `start` and now.
        static func interference(since start: CPUTimes) -> (others: Double, steal: Double) {
            let end = now()
            let wall = Double(end.wallNanoseconds - start.wallNanoseconds) / 1e9
            guard wall > 0 else { return (0, 0) }
            let others = (end.busySeconds - start.busySeconds) - (end.ownSeconds - start.ownSeconds)
            return (max(0, others) / wall, max(0, end.stealSeconds - start.stealSeconds) / wall)
        }
    }

    static var loadAverage: String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else {
            return "unknown"
        }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
