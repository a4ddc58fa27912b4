import Baton
import BatonTesting
import Foundation
import XCTest

@MainActor
final class ElectionTests: XCTestCase {

    // MARK: The walk

    func testElectsFirstActivityWalkingFromFirstResponder() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 3)
        let near = UserActivity(activityType: "test.near", center: center)
        let far = UserActivity(activityType: "test.far", center: center)
        responders[1].userActivity = near
        responders[2].userActivity = far
        window.userActivity = UserActivity(activityType: "test.window", center: center)
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === near)
        XCTAssertTrue(near.isCurrent)
        XCTAssertFalse(far.isCurrent)
    }

    func testFirstResponderOwnActivityWinsOverLaterOnes() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let first = UserActivity(activityType: "test.first", center: center)
        let second = UserActivity(activityType: "test.second", center: center)
        responders[0].userActivity = first
        responders[1].userActivity = second
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === first)
    }

    func testWalkStartsAtFirstResponderNotBelowIt() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 3)
        let bottom = UserActivity(activityType: "test.bottom", center: center)
        let top = UserActivity(activityType: "test.top", center: center)
        responders[0].userActivity = bottom
        responders[2].userActivity = top
        window.firstResponder = responders[1]
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === top,
                      "responders[0] is below the first responder and must not be walked")
    }

    func testWalkStartsAtWindowWhenFirstResponderIsNil() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let inner = UserActivity(activityType: "test.inner", center: center)
        let windowActivity = UserActivity(activityType: "test.window", center: center)
        responders[0].userActivity = inner
        window.userActivity = windowActivity
        window.firstResponder = nil
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === windowActivity)
    }

    func testWalkFromWindowFollowsNextResponder() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let window = Window()
        let controller = WindowController()
        let application = Application(center: center)
        controller.window = window
        controller.nextResponder = application
        let appActivity = UserActivity(activityType: "test.app", center: center)
        application.userActivity = appActivity
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === appActivity)

        let controllerActivity = UserActivity(activityType: "test.controller", center: center)
        controller.userActivity = controllerActivity
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === controllerActivity)
    }

    func testFallsBackToDocumentActivity() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, _) = ResponderChainBuilder.window(depth: 2)
        let controller = WindowController()
        controller.window = window
        let document = Document(fileURL: URL(string: "file:///tmp/a.txt"))
        controller.document = document
        let documentActivity = UserActivity(activityType: "test.document", center: center)
        document.userActivity = documentActivity
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === documentActivity)
        withExtendedLifetime(controller) {}
    }

    func testChainActivityWinsOverDocumentActivity() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let controller = WindowController()
        controller.window = window
        let document = Document(fileURL: nil)
        controller.document = document
        document.userActivity = UserActivity(activityType: "test.document", center: center)
        let chainActivity = UserActivity(activityType: "test.chain", center: center)
        responders[1].userActivity = chainActivity
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === chainActivity)
        withExtendedLifetime(controller) {}
    }

    func testNoActivityAnywhereElectsNothing() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, _) = ResponderChainBuilder.window(depth: 3)
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity)
    }

    // MARK: Skipping

    func testInvalidActivityIsSkipped() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let dead = UserActivity(activityType: "test.dead", center: center)
        let alive = UserActivity(activityType: "test.alive", center: center)
        responders[0].userActivity = dead
        responders[1].userActivity = alive
        dead.invalidate()
        XCTAssertFalse(dead.isValid)
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === alive)
    }

    func testIneligibleActivityIsSkipped() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let privateActivity = UserActivity(activityType: "test.private", center: center)
        privateActivity.isEligibleForHandoff = false
        let shared = UserActivity(activityType: "test.shared", center: center)
        responders[0].userActivity = privateActivity
        responders[1].userActivity = shared
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === shared)
        XCTAssertTrue(privateActivity.isValid, "ineligible is skipped, not invalidated")
    }

    func testInvalidAndIneligibleDocumentActivitiesAreSkipped() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, _) = ResponderChainBuilder.window(depth: 1)
        let controller = WindowController()
        controller.window = window
        let document = Document(fileURL: nil)
        controller.document = document
        let documentActivity = UserActivity(activityType: "test.document", center: center)
        documentActivity.isEligibleForHandoff = false
        document.userActivity = documentActivity
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity, "an ineligible document activity is skipped")

        documentActivity.isEligibleForHandoff = true
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === documentActivity)

        let other = Document(fileURL: nil)
        let invalid = UserActivity(activityType: "test.invalid", center: center)
        other.userActivity = invalid
        invalid.invalidate()
        controller.document = other
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity, "an invalid document activity is skipped")
        withExtendedLifetime((controller, document)) {}
    }

    func testBecomingEligibleAsksForElection() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let first = UserActivity(activityType: "test.first", center: center)
        first.isEligibleForHandoff = false
        let second = UserActivity(activityType: "test.second", center: center)
        responders[0].userActivity = first
        responders[1].userActivity = second
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === second)

        first.isEligibleForHandoff = true
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === first)

        first.isEligibleForHandoff = false
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === second)
    }

    func testManagedCurrentBecomingIneligibleResignsWhenNothingElseOffers() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 1)
        let activity = UserActivity(activityType: "test.private-now", center: center)
        responders[0].userActivity = activity
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(activity.isCurrent)

        activity.isEligibleForHandoff = false
        XCTAssertTrue(activity.isCurrent, "nothing changes before the turn runs")
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity)
        XCTAssertTrue(activity.isValid)
    }

    // MARK: Coalescing

    func testManyTriggersCoalesceIntoOneTurn() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 4)
        let (otherWindow, _) = ResponderChainBuilder.window(depth: 1)
        let activities = (0..<4).map { UserActivity(activityType: "test.\($0)", center: center) }
        XCTAssertEqual(scheduler.pendingCount, 0)

        center.mainWindow = otherWindow
        center.mainWindow = window
        for (responder, activity) in zip(responders, activities) {
            responder.userActivity = activity
        }
        responders[0].userActivity = nil
        for responder in responders { window.firstResponder = responder }
        window.firstResponder = responders[0]
        for _ in 0..<50 { center.setNeedsElection() }
        for activity in activities { activity.needsSave = true }

        XCTAssertEqual(scheduler.pendingCount, 1, "every trigger before the turn shares one turn")
        XCTAssertNil(center.currentActivity, "nothing changes before the turn runs")

        XCTAssertTrue(scheduler.runNext())
        XCTAssertTrue(center.currentActivity === activities[1], "one turn elects")
        XCTAssertFalse(activities[0].isValid, "the abandoned activity went in the same turn")
    }

    func testMainWindowChangeSchedulesElection() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (first, firstResponders) = ResponderChainBuilder.window(depth: 1)
        let (second, secondResponders) = ResponderChainBuilder.window(depth: 1)
        let a = UserActivity(activityType: "test.a", center: center)
        let b = UserActivity(activityType: "test.b", center: center)
        firstResponders[0].userActivity = a
        secondResponders[0].userActivity = b
        center.mainWindow = first
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === a)

        center.mainWindow = second
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(center.currentActivity === a, "nothing changes before the turn runs")
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === b)
    }

    func testFirstResponderChangeSchedulesElection() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let a = UserActivity(activityType: "test.a", center: center)
        let b = UserActivity(activityType: "test.b", center: center)
        responders[0].userActivity = a
        responders[1].userActivity = b
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === a)

        window.firstResponder = responders[1]
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(center.currentActivity === a, "nothing changes before the turn runs")
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === b)
    }

    func testFirstResponderChangeOnAnotherWindowDoesNotElect() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, _) = ResponderChainBuilder.window(depth: 1)
        let (background, backgroundResponders) = ResponderChainBuilder.window(depth: 2)
        center.mainWindow = window
        scheduler.runUntilIdle()
        background.firstResponder = backgroundResponders[1]
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testSettingUserActivitySchedulesElection() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity)

        let a = UserActivity(activityType: "test.a", center: center)
        responders[1].userActivity = a
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertNil(center.currentActivity, "nothing changes before the turn runs")
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === a)
    }

    func testClearingUserActivitySchedulesElection() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let a = UserActivity(activityType: "test.a", center: center)
        let b = UserActivity(activityType: "test.b", center: center)
        responders[0].userActivity = a
        responders[1].userActivity = b
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === a)

        responders[0].userActivity = nil
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(center.currentActivity === a, "nothing changes before the turn runs")
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === b)
    }

    func testClearingActivityStillOwnedElsewhereReElectsInNextTurn() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let keeper = Responder()   // not in the chain: keeps `a` valid
        let a = UserActivity(activityType: "test.a", center: center)
        let b = UserActivity(activityType: "test.b", center: center)
        responders[0].userActivity = a
        keeper.userActivity = a
        responders[1].userActivity = b
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === a)

        responders[0].userActivity = nil
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(scheduler.runNext())
        XCTAssertTrue(center.currentActivity === b, "clearing asks for the election itself")
        XCTAssertTrue(a.isValid)
    }

    func testReplacingActivityOnResponderReElectsInNextTurn() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 1)
        let keeper = Responder()
        let a = UserActivity(activityType: "test.a", center: center)
        let b = UserActivity(activityType: "test.b", center: center)
        responders[0].userActivity = a
        keeper.userActivity = a
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === a)

        responders[0].userActivity = b
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(center.currentActivity === a, "nothing changes before the turn runs")
        XCTAssertTrue(scheduler.runNext())
        XCTAssertTrue(center.currentActivity === b)
        XCTAssertTrue(a.isValid)
    }

    func testSetNeedsElectionSchedulesOneTurn() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 1)
        let a = UserActivity(activityType: "test.a", center: center)
        responders[0].userActivity = a
        center.mainWindow = window
        scheduler.runUntilIdle()
        let manual = UserActivity(activityType: "test.manual", center: center)
        manual.becomeCurrent()
        XCTAssertEqual(scheduler.pendingCount, 0)

        center.setNeedsElection()
        center.setNeedsElection()
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(center.currentActivity === manual, "nothing changes before the turn runs")
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === a)
    }

    func testAfterTurnRunsNewTriggerSchedulesAnotherTurn() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        center.setNeedsElection()
        XCTAssertEqual(scheduler.runUntilIdle(), 1)
        center.setNeedsElection()
        XCTAssertEqual(scheduler.pendingCount, 1)
    }

    // MARK: Explicit currency

    func testBecomeCurrentTakesEffectAtOnceAndElectionMayReplaceIt() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 1)
        let chain = UserActivity(activityType: "test.chain", center: center)
        responders[0].userActivity = chain
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(chain.isCurrent)

        let manual = UserActivity(activityType: "test.manual", center: center)
        manual.becomeCurrent()
        XCTAssertTrue(manual.isCurrent, "becomeCurrent takes effect without a turn")
        XCTAssertFalse(chain.isCurrent)
        XCTAssertTrue(center.currentActivity === manual)

        center.setNeedsElection()
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === chain)
        XCTAssertFalse(manual.isCurrent)
    }

    func testBecomeCurrentOnInvalidActivityIsNoOp() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let current = UserActivity(activityType: "test.current", center: center)
        current.becomeCurrent()
        let dead = UserActivity(activityType: "test.dead", center: center)
        dead.invalidate()
        dead.becomeCurrent()
        XCTAssertFalse(dead.isCurrent)
        XCTAssertTrue(center.currentActivity === current)
    }

    func testResignCurrent() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let a = UserActivity(activityType: "test.a", center: center)
        let b = UserActivity(activityType: "test.b", center: center)
        a.becomeCurrent()
        b.resignCurrent()
        XCTAssertTrue(a.isCurrent, "resigning an activity that is not current changes nothing")
        a.resignCurrent()
        XCTAssertFalse(a.isCurrent)
        XCTAssertNil(center.currentActivity)
        XCTAssertTrue(a.isValid)
    }

    func testClearingMainWindowKeepsCurrentActivity() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 1)
        let a = UserActivity(activityType: "test.a", center: center)
        responders[0].userActivity = a
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(a.isCurrent)

        center.mainWindow = nil
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === a)
    }

    func testChainWithoutActivityResignsManagedCurrent() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, responders) = ResponderChainBuilder.window(depth: 2)
        let bare = Responder()
        bare.nextResponder = window
        let managed = UserActivity(activityType: "test.managed", center: center)
        responders[0].userActivity = managed
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(managed.isCurrent)

        window.firstResponder = bare
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity, "a managed activity no longer in the chain resigns")
        XCTAssertTrue(managed.isValid, "resigning is not invalidating: its owner still holds it")
    }

    func testChainWithoutActivityKeepsHandMadeCurrentOfUnownedActivity() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, _) = ResponderChainBuilder.window(depth: 2)
        center.mainWindow = window
        scheduler.runUntilIdle()
        let manual = UserActivity(activityType: "test.manual", center: center)
        manual.becomeCurrent()
        center.setNeedsElection()
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === manual)
    }

    // MARK: Cycles

    func testCyclicChainTerminatesWithoutActivity() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let window = Window()
        let a = LinkedResponder()
        let b = LinkedResponder()
        let c = LinkedResponder()
        a.nextResponder = b
        b.nextResponder = c
        c.nextResponder = a
        XCTAssertTrue(c.nextResponder === a)
        window.firstResponder = a

        // A managed activity current from another window: the cyclic chain must elect nil
        // (and so resign it) rather than spin.
        let (other, otherResponders) = ResponderChainBuilder.window(depth: 1)
        let managed = UserActivity(activityType: "test.managed", center: center)
        otherResponders[0].userActivity = managed
        center.mainWindow = other
        scheduler.runUntilIdle()
        XCTAssertTrue(managed.isCurrent)

        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity)
        withExtendedLifetime((a, b, c)) {}
    }

    func testCycleNotThroughStartTerminatesAndFallsBackToDocument() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let window = Window()
        let start = LinkedResponder()
        let loopHead = LinkedResponder()
        let loop = (0..<6).map { _ in LinkedResponder() }
        start.nextResponder = loopHead
        loopHead.nextResponder = loop[0]
        for index in 0..<(loop.count - 1) { loop[index].nextResponder = loop[index + 1] }
        loop[loop.count - 1].nextResponder = loopHead
        window.firstResponder = start

        let controller = WindowController()
        controller.window = window
        window.firstResponder = start
        let document = Document(fileURL: nil)
        controller.document = document
        let documentActivity = UserActivity(activityType: "test.document", center: center)
        document.userActivity = documentActivity

        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === documentActivity)
        withExtendedLifetime((start, loopHead, loop, controller)) {}
    }

    func testSelfCycleTerminates() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let window = Window()
        let me = LinkedResponder()
        me.nextResponder = me
        window.firstResponder = me
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity)
    }

    func testActivityInsideCycleIsFound() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let window = Window()
        let nodes = (0..<5).map { _ in LinkedResponder() }
        for index in 0..<nodes.count { nodes[index].nextResponder = nodes[(index + 1) % nodes.count] }
        let activity = UserActivity(activityType: "test.in-cycle", center: center)
        nodes[4].userActivity = activity
        window.firstResponder = nodes[0]
        center.mainWindow = window
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === activity)
        withExtendedLifetime(nodes) {}
    }

    // MARK: Window controller wiring

    func testWindowControllerWindowLinksWindow() async throws {
        let window = Window()
        let controller = WindowController()
        controller.window = window
        XCTAssertTrue(window.windowController === controller)
        XCTAssertTrue(window.nextResponder === controller)

        let replacement = Window()
        controller.window = replacement
        XCTAssertTrue(replacement.windowController === controller)
        XCTAssertTrue(replacement.nextResponder === controller)
        XCTAssertNil(window.windowController, "the old window is unlinked")
        XCTAssertNil(window.nextResponder, "the old window is unlinked")
    }

    func testChangingDocumentOfMainWindowReElects() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let (window, _) = ResponderChainBuilder.window(depth: 1)
        let controller = WindowController()
        controller.window = window
        center.mainWindow = window
        scheduler.runUntilIdle()

        let document = Document(fileURL: nil)
        let activity = UserActivity(activityType: "test.doc", center: center)
        document.userActivity = activity
        scheduler.runUntilIdle()
        XCTAssertNil(center.currentActivity, "the document is not shown yet")

        controller.document = document
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.runUntilIdle()
        XCTAssertTrue(center.currentActivity === activity)
    }

    func testMainWindowIsHeldWeakly() async throws {
        let (center, _) = ResponderChainBuilder.center()
        do {
            let window = Window()
            center.mainWindow = window
            XCTAssertNotNil(center.mainWindow)
        }
        XCTAssertNil(center.mainWindow)
    }
}
