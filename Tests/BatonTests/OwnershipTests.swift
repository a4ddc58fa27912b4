import Baton
import BatonTesting
import Foundation
import XCTest

@MainActor
final class OwnershipTests: XCTestCase {

    /// A window, its chain and its first responder do not keep each other alive: dropping
    /// them frees every object, and the activity they owned is invalidated by the next turn.
    func testAWindowAndItsChainAreFreedWhenDropped() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "org.example.chain", center: center)
        weak var weakWindow: Window?
        weak var weakFirst: Responder?
        do {
            let (window, responders) = ResponderChainBuilder.window(depth: 3)
            responders[1].userActivity = activity
            center.mainWindow = window
            scheduler.runUntilIdle()
            XCTAssertTrue(activity.isCurrent)
            weakWindow = window
            weakFirst = responders[0]
        }
        XCTAssertNil(weakWindow, "nothing in the chain retains the window")
        XCTAssertNil(weakFirst, "the window does not retain its first responder")
        XCTAssertTrue(activity.isValid, "still valid until the next turn")
        scheduler.runUntilIdle()
        XCTAssertFalse(activity.isValid)
        XCTAssertNil(center.currentActivity)
    }

    func testSettingOnResponderOrDocumentMakesActivityManaged() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let byResponder = UserActivity(activityType: "test.responder", center: center)
        let byDocument = UserActivity(activityType: "test.document", center: center)
        let loose = UserActivity(activityType: "test.loose", center: center)
        XCTAssertFalse(byResponder.isManaged)
        XCTAssertFalse(byDocument.isManaged)
        let responder = Responder()
        let document = Document(fileURL: nil)
        responder.userActivity = byResponder
        document.userActivity = byDocument
        XCTAssertTrue(byResponder.isManaged)
        XCTAssertTrue(byDocument.isManaged)
        XCTAssertFalse(loose.isManaged)
        XCTAssertTrue(responder.userActivity === byResponder, "the responder holds its activity")
    }

    func testUnownedActivityIsNeverInvalidatedByTurns() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let loose = UserActivity(activityType: "test.loose", center: center)
        loose.needsSave = true
        center.setNeedsElection()
        scheduler.runUntilIdle()
        XCTAssertTrue(loose.isValid)
    }

    func testLastOwnerSettingNilInvalidatesOnNextTurnNotBefore() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let owner = Responder()
        let activity = UserActivity(activityType: "test.abandon", center: center)
        owner.userActivity = activity
        scheduler.runUntilIdle()

        owner.userActivity = nil
        XCTAssertTrue(activity.isValid, "still valid right after the last owner lets go")
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(scheduler.runNext())
        XCTAssertFalse(activity.isValid, "invalidated by the next scheduler turn")
    }

    func testActivityStaysValidWhileAnyOwnerHoldsIt() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let view = Responder()
        let document = Document(fileURL: nil)
        let activity = UserActivity(activityType: "test.shared", center: center)
        view.userActivity = activity
        document.userActivity = activity
        scheduler.runUntilIdle()

        view.userActivity = nil
        scheduler.runUntilIdle()
        XCTAssertTrue(activity.isValid, "the document still owns it")

        document.userActivity = nil
        XCTAssertTrue(activity.isValid)
        scheduler.runUntilIdle()
        XCTAssertFalse(activity.isValid)
    }

    func testMovingActivityBetweenRespondersInOneTurnKeepsItValid() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let from = Responder()
        let to = Responder()
        let activity = UserActivity(activityType: "test.move", center: center)
        from.userActivity = activity
        scheduler.runUntilIdle()

        from.userActivity = nil
        to.userActivity = activity
        scheduler.runUntilIdle()
        XCTAssertTrue(activity.isValid)

        // And the other way round: the new owner takes it before the old one lets go.
        from.userActivity = activity
        to.userActivity = nil
        scheduler.runUntilIdle()
        XCTAssertTrue(activity.isValid)

        from.userActivity = nil
        scheduler.runUntilIdle()
        XCTAssertFalse(activity.isValid, "and once nobody holds it, it goes")
    }

    func testMovingActivityFromResponderToDocumentKeepsItValid() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let view = Responder()
        let document = Document(fileURL: nil)
        let activity = UserActivity(activityType: "test.move", center: center)
        view.userActivity = activity
        view.userActivity = nil
        document.userActivity = activity
        scheduler.runUntilIdle()
        XCTAssertTrue(activity.isValid)
    }

    func testReplacingOwnersActivityAbandonsTheOldOne() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let owner = Responder()
        let old = UserActivity(activityType: "test.old", center: center)
        let new = UserActivity(activityType: "test.new", center: center)
        owner.userActivity = old
        scheduler.runUntilIdle()
        owner.userActivity = new
        XCTAssertTrue(old.isValid)
        scheduler.runUntilIdle()
        XCTAssertFalse(old.isValid)
        XCTAssertTrue(new.isValid)
    }

    func testDeallocatedOwnerInvalidatesOnNextTurn() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.dealloc", center: center)
        weak var weakOwner: Responder?
        do {
            let owner = RecordingResponder()
            owner.userActivity = activity
            weakOwner = owner
        }
        XCTAssertNil(weakOwner, "the owner is gone")
        XCTAssertTrue(activity.isValid, "still valid until the turn runs")
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.runUntilIdle()
        XCTAssertFalse(activity.isValid)
    }

    func testDeallocatedOneOfTwoOwnersKeepsActivity() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.dealloc", center: center)
        let survivor = Responder()
        survivor.userActivity = activity
        weak var weakOwner: Responder?
        do {
            let owner = Responder()
            owner.userActivity = activity
            weakOwner = owner
        }
        XCTAssertNil(weakOwner)
        scheduler.runUntilIdle()
        XCTAssertTrue(activity.isValid)
        survivor.userActivity = nil
        scheduler.runUntilIdle()
        XCTAssertFalse(activity.isValid)
    }

    func testDeallocatedDocumentInvalidatesOnNextTurn() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.dealloc-doc", center: center)
        weak var weakDocument: Document?
        do {
            let document = Document(fileURL: URL(string: "file:///tmp/d.txt"))
            document.userActivity = activity
            weakDocument = document
        }
        XCTAssertNil(weakDocument)
        XCTAssertTrue(activity.isValid)
        scheduler.runUntilIdle()
        XCTAssertFalse(activity.isValid)
    }

    func testDeallocatedOwnerIsNotAskedToUpdate() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.update-after-dealloc", center: center)
        let survivor = RecordingResponder(entries: ["alive": true])
        survivor.userActivity = activity
        do {
            let owner = RecordingResponder(entries: ["dead": true])
            owner.userActivity = activity
        }
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(activity.userInfo, ["alive": true])
        XCTAssertEqual(survivor.updateCount, 1)
    }

    func testAbandonedCurrentActivityIsReplacedByNextInChain() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let a = UserActivity(activityType: "test.a", center: center)
        let b = UserActivity(activityType: "test.b", center: center)
        responders[0].userActivity = a
        responders[1].userActivity = b
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(a.isCurrent)

        responders[0].userActivity = nil
        scheduler.runUntilIdle()
        XCTAssertFalse(a.isValid)
        XCTAssertFalse(a.isCurrent)
        XCTAssertTrue(center.currentActivity === b)
    }

    // MARK: invalidate()

    func testInvalidateResignsIfCurrentAndIsFinal() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        var events: [String] = []
        let observation = center.addObserver { events.append("\($0.name) \($0.activityType)") }
        defer { observation.cancel() }
        let activity = UserActivity(activityType: "test.final", center: center)
        activity.becomeCurrent()
        activity.invalidate()
        XCTAssertFalse(activity.isValid)
        XCTAssertFalse(activity.isCurrent)
        XCTAssertNil(center.currentActivity)
        XCTAssertEqual(events, ["current test.final", "resigned test.final", "invalidated test.final"])

        activity.invalidate()
        XCTAssertEqual(events.count, 3, "invalidating twice reports once")

        activity.becomeCurrent()
        XCTAssertNil(center.currentActivity, "an invalid activity never becomes current again")
        activity.needsSave = true
        XCTAssertFalse(activity.needsSave)
        XCTAssertEqual(scheduler.pendingCount, 0)
        XCTAssertFalse(activity.isValid)
    }

    func testInvalidateWhenNotCurrentLeavesCurrentAlone() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let current = UserActivity(activityType: "test.current", center: center)
        let other = UserActivity(activityType: "test.other", center: center)
        current.becomeCurrent()
        other.invalidate()
        XCTAssertTrue(center.currentActivity === current)
    }

    func testInvalidatedActivityInChainIsNotElectedAgain() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 1)
        let activity = UserActivity(activityType: "test.final", center: center)
        responders[0].userActivity = activity
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(activity.isCurrent)
        activity.invalidate()
        XCTAssertNil(center.currentActivity)
        center.setNeedsElection()
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity)
    }

    // MARK: Document

    func testDocumentCloseInvalidatesItsActivity() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, _) = ResponderChainBuilder.window(depth: 1)
        let controller = WindowController()
        controller.window = window
        let document = Document(fileURL: URL(string: "file:///tmp/close.txt"))
        controller.document = document
        let activity = UserActivity(activityType: "test.close", center: center)
        document.userActivity = activity
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(activity.isCurrent)

        document.close()
        XCTAssertFalse(activity.isValid)
        XCTAssertFalse(activity.isCurrent)
        XCTAssertNil(center.currentActivity)
    }

    func testDocumentDefaultUpdatePutsFileURLUnderDocumentURLKey() async throws {
        XCTAssertEqual(UserActivity.documentURLKey, "NSUserActivityDocumentURL")
        let (center, scheduler) = ResponderChainBuilder.center()
        let url = try XCTUnwrap(URL(string: "file:///home/me/Notes/today.md"))
        let document = Document(fileURL: url)
        let activity = UserActivity(activityType: "test.doc", center: center)
        document.userActivity = activity
        activity.userInfo = ["stale": 1]
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(activity.userInfo, [UserActivity.documentURLKey: .url(url)])
        XCTAssertEqual(activity.userInfo["NSUserActivityDocumentURL"]?.urlValue, url)
    }

    func testDocumentWithoutFileURLPutsNothing() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let document = Document(fileURL: nil)
        let activity = UserActivity(activityType: "test.untitled", center: center)
        document.userActivity = activity
        activity.userInfo = ["stale": 1]
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(activity.userInfo, [:])
    }

    func testDocumentAndResponderEntriesMerge() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let url = try XCTUnwrap(URL(string: "file:///tmp/merge.txt"))
        let document = Document(fileURL: url)
        let view = RecordingResponder(entries: ["selection": [1, 4]])
        let activity = UserActivity(activityType: "test.merge", center: center)
        view.userActivity = activity
        document.userActivity = activity
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(activity.userInfo, [UserActivity.documentURLKey: .url(url), "selection": [1, 4]])
    }

    func testDocumentFileURLChangeIsPickedUpByNextPass() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let document = Document(fileURL: URL(string: "file:///tmp/old.txt"))
        let activity = UserActivity(activityType: "test.rename", center: center)
        document.userActivity = activity
        activity.needsSave = true
        scheduler.runUntilIdle()
        let renamed = try XCTUnwrap(URL(string: "file:///tmp/new.txt"))
        document.fileURL = renamed
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(activity.userInfo[UserActivity.documentURLKey], .url(renamed))
    }
}
