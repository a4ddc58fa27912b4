import Baton
import BatonTesting
import Foundation
import FuzzSupport

// Covers what `StateRestoration.restore()` (BatonGtk) does with a saved window file, minus
// GTK and the file system: `UserActivityPayload(decoding:)`, then
// `UserActivity(payload:center:)` and a continuation through a core `Application`, with a
// manual scheduler and a recording delegate in place of the GTK application. Whatever
// decodes must be continued and restored, exactly once, with the `userInfo` it carried.

@main
enum StateRestorationHarness: FuzzHarness {
    static func test(_ bytes: [UInt8]) {
        MainActor.assumeIsolated { restore(Data(bytes)) }
    }
}

@MainActor
private func restore(_ saved: Data) {
    guard let payload = Fuzz.refused(as: UserActivityError.self, "decoding", { try UserActivityPayload(decoding: saved) })
    else { return }
    let scheduler = ManualScheduler()
    let center = ActivityCenter(scheduler: scheduler)
    let application = Application(center: center)
    let delegate = RecordingApplicationDelegate()
    let window = RecordingResponder()
    delegate.restorables = [window]
    application.delegate = delegate
    let activity = Fuzz.orFail("a decoded payload makes no activity") { try UserActivity(payload: payload, center: center) }
    application.beginContinuation(activityType: payload.activityType).complete(with: activity)
    _ = scheduler.runUntilIdle()
    Fuzz.require(delegate.calls == [.willContinue(payload.activityType), .didContinue(payload.activityType)],
                 "the restore went \(delegate.calls), not willContinue then continue")
    Fuzz.require(window.restored.count == 1, "the window was restored \(window.restored.count) times")
    let (restored, original) = Fuzz.orFail("a restored activity cannot be saved again") {
        try (activity.payload.encoded(), payload.encoded())
    }
    Fuzz.require(restored == original, "the restored activity does not save as it was saved")
    activity.invalidate()
    _ = scheduler.runUntilIdle()
}

extension StateRestorationHarness {
    /// Windows as MailComposer saves them (`window-NNN.activity`), and a few broken files.
    static func seeds() -> [String: [UInt8]] {
        let windows: [String: UserActivityPayload] = [
            "window-000.activity": UserActivityPayload(
                activityType: "org.example.mail.compose", title: "Draft: Lunch",
                userInfo: ["draft-id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "to": "bob@example.org", "cc": "",
                           "subject": "Lunch", "body": "Noon?\n", "cursor": 5, "selection-length": 0],
                webpageURL: URL(string: "https://mail.example.org/drafts/6F9619FF")),
            "window-001.activity": UserActivityPayload(
                activityType: "org.example.mail.read", title: "Inbox",
                userInfo: ["message-id": "<1@example.org>", "scroll-anchor": "<7@example.org>"],
                webpageURL: URL(string: "https://mail.example.org/messages/1")),
            "window-002.activity": UserActivityPayload(
                activityType: "org.example.note", userInfo: ["lines": ["one", "two"], "saved": .date(Date(timeIntervalSinceReferenceDate: 0))],
                expirationDate: Date(timeIntervalSinceReferenceDate: 1e9), isEligibleForHandoff: false),
        ]
        var seeds = windows.compactMapValues { try? Array($0.encoded()) }
        seeds["empty.activity"] = []
        seeds["text.activity"] = Array("not a saved window\n".utf8)
        return seeds
    }
}
