import Baton
import BatonTesting
import Foundation
import XCTest

/// Restores into a log, and notes whether it ran on the main thread.
@MainActor
private final class MainThreadRestorable: UserActivityRestoring {
    private(set) var restores: [(type: String, onMainThread: Bool)] = []

    func restoreUserActivityState(_ userActivity: UserActivity) {
        restores.append((userActivity.activityType, Thread.isMainThread))
    }
}

@MainActor
final class ContinuationTests: XCTestCase {
    private let type = "org.example.mail.compose"

    private func makeApplication() -> (ActivityCenter, ManualScheduler, Application, RecordingApplicationDelegate) {
        let (center, scheduler) = ResponderChainBuilder.center()
        let application = Application(center: center)
        let delegate = RecordingApplicationDelegate()
        application.delegate = delegate
        return (center, scheduler, application, delegate)
    }

    private func outcomes(_ calls: [RecordingApplicationDelegate.Call]) -> [RecordingApplicationDelegate.Call] {
        calls.filter {
            switch $0 {
            case .didContinue, .didFail: return true
            default: return false
            }
        }
    }

    func testBeginCallsWillContinueAtOnce() async throws {
        let (_, scheduler, application, delegate) = makeApplication()
        let continuation = application.beginContinuation(activityType: type)
        XCTAssertEqual(delegate.calls, [.willContinue(type)])
        XCTAssertEqual(scheduler.pendingCount, 0, "nothing deferred")
        XCTAssertEqual(continuation.activityType, type)
        XCTAssertFalse(continuation.isFinished)
        continuation.fail(with: UserActivityError.connectionUnavailable("test over"))
    }

    func testCompleteDeliversExactlyOneContinue() async throws {
        let (center, _, application, delegate) = makeApplication()
        let continuation = application.beginContinuation(activityType: type)
        let activity = UserActivity(activityType: type, center: center)
        activity.userInfo = ["to": "bob@example.org"]
        continuation.complete(with: activity)
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didContinue(type)])
        XCTAssertEqual(delegate.continued.count, 1)
        XCTAssertTrue(delegate.continued.first === activity)
        XCTAssertTrue(continuation.isFinished)
    }

    func testFailDeliversExactlyOneDidFail() async throws {
        let (_, _, application, delegate) = makeApplication()
        let continuation = application.beginContinuation(activityType: type)
        continuation.fail(with: UserActivityError.remoteApplicationTimedOut("slow"))
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didFail(type, code: 4610)])
        XCTAssertEqual(delegate.errors.count, 1)
        XCTAssertEqual(delegate.errors.first as? UserActivityError, .remoteApplicationTimedOut("slow"))
        XCTAssertTrue(delegate.continued.isEmpty)
    }

    func testFailPassesForeignErrorsThrough() async throws {
        let (_, _, application, delegate) = makeApplication()
        let continuation = application.beginContinuation(activityType: type)
        continuation.fail(with: CocoaError(.fileReadNoSuchFile))
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didFail(type, code: nil)])
        XCTAssertEqual((delegate.errors.first as? CocoaError)?.code, .fileReadNoSuchFile)
    }

    func testSecondCompleteOrFailDoesNothing() async throws {
        let (center, _, application, delegate) = makeApplication()
        let continuation = application.beginContinuation(activityType: type)
        let activity = UserActivity(activityType: type, center: center)
        continuation.complete(with: activity)
        continuation.complete(with: activity)
        continuation.fail(with: UserActivityError.handoffFailed("late"))
        continuation.complete(with: UserActivity(activityType: "other.type", center: center))
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didContinue(type)])
        XCTAssertEqual(delegate.continued.count, 1)
    }

    func testCompleteOrFailAfterFailDoesNothing() async throws {
        let (center, _, application, delegate) = makeApplication()
        let continuation = application.beginContinuation(activityType: type)
        continuation.fail(with: UserActivityError.connectionUnavailable("gone"))
        continuation.fail(with: UserActivityError.connectionUnavailable("again"))
        continuation.complete(with: UserActivity(activityType: type, center: center))
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didFail(type, code: 4609)])
        XCTAssertTrue(delegate.continued.isEmpty)
    }

    func testNewBeginCancelsPendingContinuation() async throws {
        let (center, _, application, delegate) = makeApplication()
        let older = application.beginContinuation(activityType: "test.older")
        let newer = application.beginContinuation(activityType: "test.newer")
        XCTAssertTrue(older.isFinished)
        XCTAssertFalse(newer.isFinished)
        XCTAssertEqual(delegate.calls, [
            .willContinue("test.older"),
            .didFail("test.older", code: 3072),
            .willContinue("test.newer"),
        ])
        XCTAssertEqual(delegate.errors.first as? UserActivityError, .cancelled)

        older.complete(with: UserActivity(activityType: "test.older", center: center))
        XCTAssertEqual(delegate.calls.count, 3, "the cancelled continuation stays cancelled")

        newer.complete(with: UserActivity(activityType: "test.newer", center: center))
        XCTAssertEqual(delegate.calls.last, .didContinue("test.newer"))
        XCTAssertEqual(outcomes(delegate.calls), [.didFail("test.older", code: 3072), .didContinue("test.newer")])
    }

    func testFinishedContinuationIsNotCancelledByNextBegin() async throws {
        let (center, _, application, delegate) = makeApplication()
        let first = application.beginContinuation(activityType: type)
        first.complete(with: UserActivity(activityType: type, center: center))
        let second = application.beginContinuation(activityType: type)
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didContinue(type), .willContinue(type)])
        second.fail(with: UserActivityError.handoffFailed("done"))
        XCTAssertEqual(outcomes(delegate.calls), [.didContinue(type), .didFail(type, code: 4608)])
    }

    func testDroppedContinuationFailsWithCancelled() async throws {
        let (_, _, application, delegate) = makeApplication()
        weak var weakContinuation: Continuation?
        do {
            let continuation = application.beginContinuation(activityType: type)
            weakContinuation = continuation
            XCTAssertEqual(delegate.calls, [.willContinue(type)])
        }
        XCTAssertNil(weakContinuation)
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didFail(type, code: 3072)])
        XCTAssertEqual(delegate.errors.count, 1)
        XCTAssertEqual(delegate.errors.first as? UserActivityError, .cancelled)
    }

    func testDroppedAfterOutcomeReportsNothingMore() async throws {
        let (center, _, application, delegate) = makeApplication()
        do {
            let continuation = application.beginContinuation(activityType: type)
            continuation.complete(with: UserActivity(activityType: type, center: center))
        }
        do {
            let continuation = application.beginContinuation(activityType: type)
            continuation.fail(with: UserActivityError.connectionUnavailable("x"))
        }
        XCTAssertEqual(outcomes(delegate.calls), [.didContinue(type), .didFail(type, code: 4609)])
    }

    func testSupersededThenDroppedFailsOnce() async throws {
        let (_, _, application, delegate) = makeApplication()
        do {
            let older = application.beginContinuation(activityType: "test.older")
            let newer = application.beginContinuation(activityType: "test.newer")
            withExtendedLifetime((older, newer)) {}
        }
        XCTAssertEqual(outcomes(delegate.calls), [
            .didFail("test.older", code: 3072),
            .didFail("test.newer", code: 3072),
        ])
    }

    func testCompleteWithOtherTypeFailsWithHandoffFailed() async throws {
        let (center, _, application, delegate) = makeApplication()
        let continuation = application.beginContinuation(activityType: type)
        continuation.complete(with: UserActivity(activityType: "org.example.other", center: center))
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didFail(type, code: 4608)])
        let error = try XCTUnwrap(delegate.errors.first as? UserActivityError)
        XCTAssertTrue(error.isHandoffFailed, "\(error)")
        XCTAssertTrue(delegate.continued.isEmpty)

        continuation.complete(with: UserActivity(activityType: type, center: center))
        XCTAssertEqual(outcomes(delegate.calls).count, 1, "never both continue and didFail")
    }

    func testCompleteWithInvalidActivityFailsWithHandoffFailed() async throws {
        let (center, _, application, delegate) = makeApplication()
        let continuation = application.beginContinuation(activityType: type)
        let activity = UserActivity(activityType: type, center: center)
        activity.invalidate()
        continuation.complete(with: activity)
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didFail(type, code: 4608)])
        XCTAssertTrue(delegate.continued.isEmpty)
    }

    func testRestorationHandlerRestoresEachObjectAtOnce() async throws {
        let (center, _, application, delegate) = makeApplication()
        let view = RecordingResponder()
        let log = CallLog()
        let document = LoggingDocument("document", log: log)
        delegate.restorables = [view, document]
        let continuation = application.beginContinuation(activityType: type)
        let activity = UserActivity(activityType: type, center: center)
        activity.userInfo = ["subject": "Lunch?"]
        continuation.complete(with: activity)
        XCTAssertEqual(view.restored, [["subject": "Lunch?"]])
        XCTAssertEqual(log.entries, ["document.restore"])
    }

    func testRestorationHandlerCalledLaterRestoresThen() async throws {
        let (center, _, application, delegate) = makeApplication()
        let first = RecordingResponder()
        let second = RecordingResponder()
        let onMain = MainThreadRestorable()
        delegate.restorables = [first, second, onMain]
        delegate.restoreLater = true
        let continuation = application.beginContinuation(activityType: type)
        let activity = UserActivity(activityType: type, center: center)
        activity.userInfo = ["cursor": 12]
        continuation.complete(with: activity)
        XCTAssertEqual(delegate.calls.last, .didContinue(type))
        XCTAssertTrue(first.restored.isEmpty, "nothing is restored before the handler is called")
        XCTAssertTrue(second.restored.isEmpty)

        await Task.yield()
        delegate.runPendingRestoration()
        XCTAssertEqual(first.restored, [["cursor": 12]])
        XCTAssertEqual(second.restored, [["cursor": 12]])
        XCTAssertEqual(onMain.restores.count, 1)
        XCTAssertEqual(onMain.restores.first?.type, type)
        XCTAssertEqual(onMain.restores.first?.onMainThread, true)
        XCTAssertEqual(outcomes(delegate.calls), [.didContinue(type)])
    }

    func testContinuationWithoutDelegateFailsAtOnceSayingWhy() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let application = Application(center: center)
        application.delegate = RecordingApplicationDelegate()   // weak: gone at once, as in AppKit
        XCTAssertNil(application.delegate)
        var events: [String] = []
        let observation = center.addObserver { events.append($0.name) }
        defer { observation.cancel() }
        let continuation = application.beginContinuation(activityType: type)
        var restored = false
        let delivered = continuation.complete(with: UserActivity(activityType: type, center: center)) { restored = true }
        XCTAssertFalse(delivered)
        XCTAssertTrue(continuation.isFinished)
        XCTAssertFalse(application.isContinuing)
        XCTAssertFalse(restored)
        XCTAssertEqual(events, ["will-continue", "failed"], "never `continued` when nothing handled it")
        let error = try XCTUnwrap(continuation.error as? UserActivityError)
        XCTAssertEqual(error.code, 4608)
        XCTAssertTrue("\(error)".contains("no delegate"), "\(error)")
        XCTAssertTrue("\(error)".contains("weak"), "\(error)")
    }

    func testDeclinedContinuationFailsAtOnceWithoutDidFail() async throws {
        let (center, _, application, delegate) = makeApplication()
        let view = RecordingResponder()
        delegate.restorables = [view]
        delegate.handles = false
        delegate.restoreLater = true
        var events: [String] = []
        let observation = center.addObserver { events.append($0.name) }
        defer { observation.cancel() }
        let continuation = application.beginContinuation(activityType: type)
        let delivered = continuation.complete(with: UserActivity(activityType: type, center: center), whenRestored: nil)
        XCTAssertFalse(delivered)
        XCTAssertEqual(events, ["will-continue", "failed"])
        XCTAssertEqual(delegate.calls, [.willContinue(type), .didContinue(type)],
                       "continue… ran, so didFail is not called too")
        let error = try XCTUnwrap(continuation.error as? UserActivityError)
        XCTAssertEqual(error.code, 4608)
        XCTAssertTrue("\(error)".contains("returned false"), "\(error)")

        delegate.runPendingRestoration()
        XCTAssertEqual(view.restored.count, 1, "a handler called after all still restores what it is given")
        XCTAssertEqual(events, ["will-continue", "failed"], "but reports nothing more")
    }

    func testHandlerCalledInsideContinueReportsContinuedThenRestored() async throws {
        let (center, _, application, delegate) = makeApplication()
        delegate.restorables = [RecordingResponder()]
        delegate.handles = false   // returns false, but restored already: that counts
        var events: [String] = []
        let observation = center.addObserver { events.append($0.name) }
        defer { observation.cancel() }
        let continuation = application.beginContinuation(activityType: type)
        var restored = 0
        let delivered = continuation.complete(with: UserActivity(activityType: type, center: center)) { restored += 1 }
        XCTAssertTrue(delivered)
        XCTAssertNil(continuation.error)
        XCTAssertEqual(restored, 1)
        XCTAssertEqual(events, ["will-continue", "continued", "restored"])
    }

    func testHandlerCalledLaterReportsRestoredThen() async throws {
        let (center, _, application, delegate) = makeApplication()
        delegate.restoreLater = true
        var events: [String] = []
        let observation = center.addObserver { events.append($0.name) }
        defer { observation.cancel() }
        let continuation = application.beginContinuation(activityType: type)
        var restored = 0
        XCTAssertTrue(continuation.complete(with: UserActivity(activityType: type, center: center)) { restored += 1 })
        XCTAssertEqual(events, ["will-continue", "continued"])
        XCTAssertEqual(restored, 0)
        delegate.runPendingRestoration()
        XCTAssertEqual(events, ["will-continue", "continued", "restored"])
        XCTAssertEqual(restored, 1)
    }

    func testARestorationDuringAContinuationLeavesItPending() async throws {
        let (center, _, application, delegate) = makeApplication()
        let incoming = application.beginContinuation(activityType: type)
        let saved = application.beginRestoration(activityType: "org.example.mail.read")
        XCTAssertTrue(saved.complete(with: UserActivity(activityType: "org.example.mail.read", center: center),
                                     whenRestored: nil))
        XCTAssertFalse(incoming.isFinished, "a window restored at launch does not cancel the continuation")
        XCTAssertTrue(application.isContinuing)
        incoming.complete(with: UserActivity(activityType: type, center: center))
        XCTAssertEqual(outcomes(delegate.calls), [.didContinue("org.example.mail.read"), .didContinue(type)])
    }

    func testSendFailureReachesTheDelegate() async throws {
        let (center, _, application, delegate) = makeApplication()
        let activity = UserActivity(activityType: type, center: center)
        center.reportSendFailure(activity, error: UserActivityError.userInfoTooLarge(size: 70_000, limit: 65_536))
        XCTAssertEqual(delegate.calls, [.didFailToSend(type, code: 4611)])
        withExtendedLifetime(application) {}
    }

    func testEndToEndThroughEncodedPayload() async throws {
        let (center, _, application, delegate) = makeApplication()
        let target = RecordingResponder()
        delegate.restorables = [target]

        let sent = UserActivity(activityType: type, center: center)
        sent.title = "Draft: Lunch?"
        sent.userInfo = ["to": "bob@example.org", "cursor": 12]
        let bytes = try sent.payload.encoded()

        let continuation = application.beginContinuation(activityType: type)
        let received = try UserActivity(payload: UserActivityPayload(decoding: bytes), center: center)
        continuation.complete(with: received)
        XCTAssertEqual(delegate.continued.first?.title, "Draft: Lunch?")
        XCTAssertEqual(target.restored, [["to": "bob@example.org", "cursor": 12]])
    }
}
