import Baton
import BatonTesting
import Foundation
import FuzzSupport

// Covers what `StateRestoration.restore()` (BatonGtk) does with a saved window file, minus
// GTK and the file system: `UserActivityPayload(decoding:)`, then
// `UserActivity(payload:center:)` and a continuation through a core `Application`, with a
// manual scheduler and a recording delegate in place of the GTK application. Whatever
// decodes must be continued and restored, exactly once, with the `userInfo` it carried.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStateRestoration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Fuzz.bytes(data, size)
    MainActor.assumeIsolated { restore(Data(bytes)) }
    return 0
}

@MainActor
private func restore(_ saved: Data) {
    let payload: UserActivityPayload
    do {
        payload = try UserActivityPayload(decoding: saved)
    } catch is UserActivityError {
        return
    } catch {
        Fuzz.fail("decoding threw \(type(of: error)), not a UserActivityError")
    }
    let scheduler = ManualScheduler()
    let center = ActivityCenter(scheduler: scheduler)
    let application = Application(center: center)
    let delegate = RecordingApplicationDelegate()
    let window = RecordingResponder()
    delegate.restorables = [window]
    application.delegate = delegate
    let activity: UserActivity
    do {
        activity = try UserActivity(payload: payload, center: center)
    } catch {
        Fuzz.fail("a decoded payload makes no activity: \(error)")
    }
    application.beginContinuation(activityType: payload.activityType).complete(with: activity)
    _ = scheduler.runUntilIdle()
    Fuzz.require(delegate.calls == [.willContinue(payload.activityType), .didContinue(payload.activityType)],
                 "the restore went \(delegate.calls), not willContinue then continue")
    Fuzz.require(window.restored.count == 1, "the window was restored \(window.restored.count) times")
    do {
        Fuzz.require(try activity.payload.encoded() == payload.encoded(),
                     "the restored activity does not save as it was saved")
    } catch {
        Fuzz.fail("a restored activity cannot be saved again: \(error)")
    }
    activity.invalidate()
    _ = scheduler.runUntilIdle()
}

@_cdecl("FuzzStateRestoration_main")
public func fuzzStateRestorationMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.runDriver(argc, argv, fuzzStateRestoration)
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<Int32>?,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    Fuzz.writeSeedsIfAsked(StateSeeds.all)
    return 0
}

/// Windows as MailComposer saves them (`window-NNN.activity`), and a few broken files.
enum StateSeeds {
    static func all() -> [String: [UInt8]] {
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
        var seeds: [String: [UInt8]] = [:]
        for (name, payload) in windows {
            if let bytes = try? payload.encoded() { seeds[name] = Array(bytes) }
        }
        seeds["empty.activity"] = []
        seeds["text.activity"] = Array("not a saved window\n".utf8)
        return seeds
    }
}
