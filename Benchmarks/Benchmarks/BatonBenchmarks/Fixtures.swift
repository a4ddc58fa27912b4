import Baton
import Foundation

// What the benchmarks work on: a compose view that saves a mail draft, and the draft itself.

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
    static let webpageURL = "https://mail.example.org/drafts/6f9619ff-8b86-d011-b42d-00c04fc964ff"

    /// A fixture that is not what the benchmarks expect.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

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
        guard let url = URL(string: webpageURL) else { throw Failure("bad draft URL \(webpageURL)") }
        try activity.setWebpageURL(url)
        return activity
    }
}
