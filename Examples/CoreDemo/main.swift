import Baton
import BatonTesting
import Foundation

/// A walk through the core, step by step: election, lazy saves, encoding, continuation.
/// Every event is printed as the trace would record it.
@MainActor
func runDemo() throws {
    let (center, scheduler) = ResponderChainBuilder.center()
    let observation = center.addObserver { event in
        var line = "  event: \(event.name) \(event.activityType)"
        if case .updated(let activity) = event {
            line += " userInfo=\(activity.userInfo.keys.sorted())"
        }
        print(line)
    }
    defer { observation.cancel() }

    let application = Application(center: center)
    let delegate = RecordingApplicationDelegate()
    application.delegate = delegate

    print("1. A compose window: its body view owns the compose activity.")
    let window = Window()
    let body = RecordingResponder(entries: ["to": "bob@example.org", "subject": "Lunch?", "cursor": 12])
    body.nextResponder = window
    window.nextResponder = application
    let compose = UserActivity(activityType: "org.example.mail.compose", center: center)
    compose.title = "Draft: Lunch?"
    body.userActivity = compose
    window.firstResponder = body
    center.mainWindow = window
    scheduler.runUntilIdle()
    print("   current: \(center.currentActivity?.activityType ?? "none")")

    print("2. Typing marks the activity dirty 100 times; one update pass runs.")
    for _ in 0..<100 { compose.needsSave = true }
    print("   scheduled turns: \(scheduler.pendingCount)")
    scheduler.runUntilIdle()
    print("   updates: \(body.updateCount)")

    print("3. The activity is encoded for another device.")
    let bytes = try compose.payload.encoded()
    print("   \(bytes.count) bytes")

    print("4. The other device continues it.")
    let target = RecordingResponder()
    delegate.restorables = [target]
    let continuation = application.beginContinuation(activityType: compose.activityType)
    let received = try UserActivity(payload: UserActivityPayload(decoding: bytes), center: center)
    continuation.complete(with: received)
    print("   restored: \(target.restored.first?.keys.sorted() ?? [])")

    print("5. The draft window closes: its activity is invalidated.")
    body.userActivity = nil
    scheduler.runUntilIdle()
    print("   compose valid: \(compose.isValid), current: \(center.currentActivity?.activityType ?? "none")")
}

do {
    try MainActor.assumeIsolated { try runDemo() }
} catch {
    FileHandle.standardError.write(Data("demo failed: \(error)\n".utf8))
    exit(1)
}
