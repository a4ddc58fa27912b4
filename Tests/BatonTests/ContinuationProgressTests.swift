import Baton
import BatonTesting
import Foundation
import XCTest

/// An application that records the progress it would show the person.
@MainActor
private final class ProgressShowingApplication: Application {
    private(set) var shown: [ContinuationProgress?] = []

    override func presentContinuationProgress(_ progress: ContinuationProgress?) {
        shown.append(progress)
    }
}

/// A delegate that shows progress its own way.
@MainActor
private final class ProgressDelegate: ApplicationDelegate {
    private(set) var heard: [ContinuationProgress] = []

    func application(_ application: Application, didUpdateContinuationProgress progress: ContinuationProgress) {
        heard.append(progress)
    }
}

/// A delegate that implements nothing about progress, as most apps.
@MainActor
private final class PlainDelegate: ApplicationDelegate {}

/// A delegate whose `willContinue…` says it shows what is coming itself.
@MainActor
private final class AnnouncingDelegate: ApplicationDelegate {
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        true
    }
}

@MainActor
final class ContinuationProgressTests: XCTestCase {
    private let editing = "org.example.texteditor.editing"
    private var center: ActivityCenter!

    override func setUp() async throws {
        (center, _) = ResponderChainBuilder.center()
    }

    func testProgressIsShownUntilTheContinuationEndsAndTraced() async throws {
        let application = ProgressShowingApplication(center: center)
        let delegate = PlainDelegate()
        application.delegate = delegate
        var events: [ActivityEvent] = []
        let observation = center.addObserver { events.append($0) }
        defer { observation.cancel() }

        let continuation = application.beginContinuation(activityType: editing)
        continuation.reportProgress("Waiting for “report.md” to sync", fractionCompleted: 0.25)
        continuation.reportProgress("Waiting for “report.md” to sync", fractionCompleted: 1.5)
        XCTAssertEqual(application.shown, [
            ContinuationProgress(activityType: editing, message: "Waiting for “report.md” to sync", fractionCompleted: 0.25),
            ContinuationProgress(activityType: editing, message: "Waiting for “report.md” to sync", fractionCompleted: 1),
        ], "shown in place, the fraction kept within 0…1")
        XCTAssertEqual(events.compactMap { if case .progress(let progress) = $0 { progress.fractionCompleted } else { nil } },
                       [0.25, 1])
        XCTAssertEqual(events.last?.name, "progress")
        XCTAssertEqual(events.last?.activityType, editing)

        continuation.fail(with: UserActivityError.connectionUnavailable("gone"))
        XCTAssertEqual(application.shown.count, 3)
        XCTAssertNil(application.shown.last ?? nil, "taken down when the continuation ends")
        continuation.reportProgress("late", fractionCompleted: nil)
        XCTAssertEqual(application.shown.count, 3, "nothing after the outcome")
    }

    func testAnotherContinuationEndingLeavesTheProgressShown() async throws {
        let application = ProgressShowingApplication(center: center)
        let delegate = PlainDelegate()
        application.delegate = delegate
        let continuation = application.beginContinuation(activityType: editing)
        continuation.reportProgress("Waiting for “report.md” to sync", fractionCompleted: 0.5)
        // A window of the last session restored meanwhile (its own continuation) ends first.
        application.beginRestoration(activityType: editing).fail(with: UserActivityError.handoffFailed("gone"))
        XCTAssertEqual(application.shown.count, 1, "the wait is still shown")
        continuation.fail(with: UserActivityError.cancelled)
        XCTAssertEqual(application.shown.count, 2)
        XCTAssertNil(application.shown.last ?? nil, "taken down when its own continuation ends")
    }

    func testAContinuationDroppedWithoutAnOutcomeTakesItsProgressDown() async throws {
        let application = ProgressShowingApplication(center: center)
        let delegate = PlainDelegate()
        application.delegate = delegate
        var continuation: Continuation? = application.beginContinuation(activityType: editing)
        continuation?.reportProgress("Waiting", fractionCompleted: nil)
        continuation = nil
        XCTAssertEqual(application.shown.count, 2)
        XCTAssertNil(application.shown.last ?? nil, "dropped, it is cancelled, and its progress taken down")
    }

    func testADelegateThatShowsProgressItselfGetsItAndNothingIsShownForIt() async throws {
        let application = ProgressShowingApplication(center: center)
        let delegate = ProgressDelegate()
        application.delegate = delegate
        let continuation = application.beginContinuation(activityType: editing)
        continuation.reportProgress("Copying “report.md” from alpha")
        XCTAssertEqual(delegate.heard.map(\.message), ["Copying “report.md” from alpha"])
        XCTAssertNil(delegate.heard.first?.fractionCompleted)
        continuation.fail(with: UserActivityError.cancelled)
        XCTAssertTrue(application.shown.isEmpty, "the delegate showed it; the framework shows nothing, nor takes anything down")
    }

    func testCancellingTheContinuationUnderWayFailsItAsCancelled() async throws {
        let application = ProgressShowingApplication(center: center)
        let delegate = RecordingApplicationDelegate()
        application.delegate = delegate
        let continuation = application.beginContinuation(activityType: editing)
        continuation.reportProgress("Waiting")
        application.cancelContinuation()
        XCTAssertTrue(continuation.isFinished)
        XCTAssertEqual(continuation.error as? UserActivityError, .cancelled)
        XCTAssertFalse(application.isContinuing)
    }

    /// A slow activity: the framework shows that it is on its way, unless the app's
    /// `willContinue…` said it shows that itself; taken down when the activity arrives.
    func testASlowActivityShowsTheFrameworksProgressUnlessTheAppShowsItsOwn() async throws {
        let application = ProgressShowingApplication(center: center)
        let plain = PlainDelegate()
        application.delegate = plain
        let continuation = application.beginContinuation(activityType: editing)
        XCTAssertFalse(continuation.appShowsProgress)
        application.activityIsSlow(for: continuation)
        XCTAssertEqual(application.shown, [ContinuationProgress(activityType: editing, message: Application.waitingMessage)])
        application.activityIsSlow(for: continuation)
        XCTAssertEqual(application.shown.count, 1, "shown once")
        continuation.complete(with: UserActivity(activityType: editing, center: center))
        XCTAssertEqual(application.shown.last, .some(nil), "taken down when the activity arrives")

        let announcing = AnnouncingDelegate()
        application.delegate = announcing
        let announced = application.beginContinuation(activityType: editing)
        XCTAssertTrue(announced.appShowsProgress)
        application.activityIsSlow(for: announced)
        XCTAssertEqual(application.shown.count, 2, "nothing shown over the app's own")
        announced.fail(with: UserActivityError.cancelled)

        application.delegate = plain
        let finished = application.beginContinuation(activityType: editing)
        finished.fail(with: UserActivityError.cancelled)
        application.activityIsSlow(for: finished)
        XCTAssertEqual(application.shown.count, 2, "nothing for a continuation that ended")
    }
}
