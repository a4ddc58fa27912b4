import Baton
import BatonTesting
import Foundation
import XCTest

@MainActor
final class UpdatePassTests: XCTestCase {

    func testManyMarksGiveOneTurnAndOneUpdatePerOwner() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.compose", center: center)
        let first = RecordingResponder(entries: ["a": 1])
        let second = RecordingResponder(entries: ["b": 2])
        first.userActivity = activity
        second.userActivity = activity
        scheduler.runUntilIdle()   // the election asked for by taking the activity

        for _ in 0..<1_000 { activity.needsSave = true }
        XCTAssertTrue(activity.needsSave)
        XCTAssertEqual(scheduler.pendingCount, 1, "any number of marks cost one turn")
        XCTAssertEqual(first.updateCount, 0, "nothing is saved before the turn runs")

        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(first.updateCount, 1)
        XCTAssertEqual(second.updateCount, 1)
        XCTAssertEqual(activity.userInfo, ["a": 1, "b": 2])
        XCTAssertFalse(activity.needsSave)

        XCTAssertEqual(scheduler.runUntilIdle(), 0)
        XCTAssertEqual(first.updateCount, 1)
        XCTAssertEqual(second.updateCount, 1)
    }

    func testNeedsSaveIsFalseWhileOwnersAreAsked() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let log = CallLog()
        let owner = LoggingResponder("owner", log: log)
        let activity = UserActivity(activityType: "test.flag", center: center)
        owner.userActivity = activity
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(owner.seenNeedsSave, [false])
        XCTAssertFalse(activity.needsSave)
    }

    func testUserInfoIsClearedBeforeOwnersAreAsked() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let log = CallLog()
        let owner = LoggingResponder("owner", log: log)
        owner.entries = ["fresh": "yes"]
        let activity = UserActivity(activityType: "test.clear", center: center)
        owner.userActivity = activity
        activity.userInfo = ["stale": "old", "fresh": "old"]
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(owner.seenUserInfo, [[:]], "the owner must see an empty userInfo")
        XCTAssertEqual(activity.userInfo, ["fresh": "yes"])
        XCTAssertNil(activity.userInfo["stale"])
    }

    func testOrderDocumentThenRespondersThenWillSaveThenDidUpdate() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let log = CallLog()
        let application = Application(center: center)
        let appDelegate = LoggingApplicationDelegate(log: log)
        application.delegate = appDelegate
        let activityDelegate = LoggingActivityDelegate(log: log)

        let activity = UserActivity(activityType: "test.order", center: center)
        activity.delegate = activityDelegate
        // Responders take the activity before the document: the document is still asked first.
        let view = LoggingResponder("view", log: log)
        let sidebar = LoggingResponder("sidebar", log: log)
        let document = LoggingDocument("document", log: log, fileURL: URL(string: "file:///tmp/x.txt"))
        view.userActivity = activity
        sidebar.userActivity = activity
        document.userActivity = activity
        scheduler.runUntilIdle()

        activity.needsSave = true
        scheduler.runUntilIdle()

        let entries = log.entries
        XCTAssertEqual(entries.count, 5, "\(entries)")
        XCTAssertEqual(entries.first, "document.update")
        XCTAssertEqual(Set(entries[1..<3]), ["view.update", "sidebar.update"])
        XCTAssertEqual(Array(entries.suffix(2)), ["willSave(test.order)", "didUpdate(test.order)"])
        XCTAssertEqual(document.seenUserInfo, [[:]])
        withExtendedLifetime((application, appDelegate)) {}
    }

    func testWillSaveSeesFilledUserInfoAndDidUpdateFollows() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let application = Application(center: center)
        let appDelegate = RecordingApplicationDelegate()
        application.delegate = appDelegate
        let activityDelegate = RecordingActivityDelegate()
        let owner = RecordingResponder(entries: ["cursor": 42])
        let activity = UserActivity(activityType: "test.fill", center: center)
        activity.delegate = activityDelegate
        owner.userActivity = activity
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(activityDelegate.willSaveCount, 1)
        XCTAssertEqual(activityDelegate.savedUserInfo, [["cursor": 42]])
        XCTAssertEqual(appDelegate.calls, [.didUpdate("test.fill")])
    }

    func testActivityWithoutOwnersKeepsUserInfoAndOnlyGetsWillSave() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let application = Application(center: center)
        let appDelegate = RecordingApplicationDelegate()
        application.delegate = appDelegate
        let activityDelegate = RecordingActivityDelegate()
        let activity = UserActivity(activityType: "test.unowned", center: center)
        activity.delegate = activityDelegate
        activity.userInfo = ["keep": "me", "n": 3]
        activity.needsSave = true
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.runUntilIdle()
        XCTAssertEqual(activity.userInfo, ["keep": "me", "n": 3])
        XCTAssertEqual(activityDelegate.willSaveCount, 1)
        XCTAssertEqual(activityDelegate.savedUserInfo, [["keep": "me", "n": 3]])
        XCTAssertEqual(appDelegate.calls, [], "no didUpdate for an activity without owners")
        XCTAssertFalse(activity.needsSave)
    }

    func testMarkDuringPassSchedulesNewPassAndDoesNotLoop() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let owner = RecordingResponder()
        let activity = UserActivity(activityType: "test.remark", center: center)
        owner.userActivity = activity
        scheduler.runUntilIdle()
        // Marks on every update (bounded, so an implementation that loops inside the pass
        // fails the count below instead of hanging).
        owner.onUpdate = { [unowned owner] activity in
            if owner.updateCount < 20 { activity.needsSave = true }
        }

        activity.needsSave = true
        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(owner.updateCount, 1, "a mark made in the pass must not loop inside it")
        XCTAssertTrue(activity.needsSave)
        XCTAssertEqual(scheduler.pendingCount, 1, "a mark made in the pass schedules a new turn")

        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(owner.updateCount, 2)
        XCTAssertEqual(scheduler.pendingCount, 1)

        owner.onUpdate = nil
        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(owner.updateCount, 3)
        XCTAssertFalse(activity.needsSave)
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func testMarkOfAnotherActivityDuringPassGoesToNextPass() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let firstOwner = RecordingResponder()
        let secondOwner = RecordingResponder()
        let first = UserActivity(activityType: "test.first", center: center)
        let second = UserActivity(activityType: "test.second", center: center)
        firstOwner.userActivity = first
        secondOwner.userActivity = second
        scheduler.runUntilIdle()
        firstOwner.onUpdate = { _ in second.needsSave = true }

        first.needsSave = true
        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(firstOwner.updateCount, 1)
        XCTAssertEqual(secondOwner.updateCount, 0)
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(secondOwner.updateCount, 1)
    }

    func testSeveralDirtyActivitiesShareOnePass() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let owners = (0..<5).map { RecordingResponder(entries: ["i": .int($0)]) }
        let activities = (0..<5).map { UserActivity(activityType: "test.\($0)", center: center) }
        for (owner, activity) in zip(owners, activities) { owner.userActivity = activity }
        scheduler.runUntilIdle()
        for _ in 0..<3 { for activity in activities { activity.needsSave = true } }
        XCTAssertEqual(scheduler.pendingCount, 1)
        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(owners.map(\.updateCount), [1, 1, 1, 1, 1])
        for (index, activity) in activities.enumerated() {
            XCTAssertEqual(activity.userInfo, ["i": .int(index)])
        }
    }

    func testNeedsSaveOnInvalidActivityDoesNothing() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let delegate = RecordingActivityDelegate()
        let activity = UserActivity(activityType: "test.dead", center: center)
        activity.delegate = delegate
        activity.invalidate()
        scheduler.runUntilIdle()
        activity.needsSave = true
        XCTAssertFalse(activity.needsSave)
        XCTAssertEqual(scheduler.pendingCount, 0)
        scheduler.runUntilIdle()
        XCTAssertEqual(delegate.willSaveCount, 0)
    }

    func testInvalidatedBeforeTurnIsNotSaved() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let owner = RecordingResponder(entries: ["x": 1])
        let delegate = RecordingActivityDelegate()
        let activity = UserActivity(activityType: "test.gone", center: center)
        activity.delegate = delegate
        owner.userActivity = activity
        activity.needsSave = true
        activity.invalidate()
        XCTAssertFalse(activity.needsSave)
        scheduler.runUntilIdle()
        XCTAssertEqual(owner.updateCount, 0)
        XCTAssertEqual(delegate.willSaveCount, 0)
    }

    func testClearingNeedsSaveBeforeTurnCancelsUpdate() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let owner = RecordingResponder(entries: ["x": 1])
        let delegate = RecordingActivityDelegate()
        let activity = UserActivity(activityType: "test.cancel", center: center)
        activity.delegate = delegate
        owner.userActivity = activity
        scheduler.runUntilIdle()
        activity.userInfo = ["untouched": true]
        activity.needsSave = true
        activity.needsSave = false
        XCTAssertFalse(activity.needsSave)
        scheduler.runUntilIdle()
        XCTAssertEqual(owner.updateCount, 0)
        XCTAssertEqual(delegate.willSaveCount, 0)
        XCTAssertEqual(activity.userInfo, ["untouched": true])

        // Marking again after the cancelled turn still works.
        activity.needsSave = true
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.runUntilIdle()
        XCTAssertEqual(owner.updateCount, 1)
    }

    func testRemarkAfterCancelBeforeTurnGivesOnePass() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let owner = RecordingResponder()
        let activity = UserActivity(activityType: "test.flip", center: center)
        owner.userActivity = activity
        scheduler.runUntilIdle()
        for _ in 0..<10 {
            activity.needsSave = true
            activity.needsSave = false
        }
        activity.needsSave = true
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.runUntilIdle()
        XCTAssertEqual(owner.updateCount, 1)
    }

    func testSaveNowUpdatesAtOnceAndPassDoesNothingMore() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let application = Application(center: center)
        let appDelegate = RecordingApplicationDelegate()
        application.delegate = appDelegate
        let delegate = RecordingActivityDelegate()
        let owner = RecordingResponder(entries: ["now": true])
        let activity = UserActivity(activityType: "test.now", center: center)
        activity.delegate = delegate
        owner.userActivity = activity
        scheduler.runUntilIdle()

        activity.needsSave = true
        center.saveNow(activity)
        XCTAssertEqual(owner.updateCount, 1, "saveNow runs the update at once")
        XCTAssertEqual(activity.userInfo, ["now": true])
        XCTAssertFalse(activity.needsSave)
        XCTAssertEqual(delegate.willSaveCount, 1)
        XCTAssertEqual(appDelegate.calls, [.didUpdate("test.now")])

        scheduler.runUntilIdle()
        XCTAssertEqual(owner.updateCount, 1, "the later pass does nothing more")
        XCTAssertEqual(delegate.willSaveCount, 1)
        XCTAssertEqual(appDelegate.calls.count, 1)
    }

    func testSaveNowOnCleanActivityDoesNothing() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let owner = RecordingResponder()
        let activity = UserActivity(activityType: "test.clean", center: center)
        owner.userActivity = activity
        activity.userInfo = ["kept": 1]
        center.saveNow(activity)
        XCTAssertEqual(owner.updateCount, 0)
        XCTAssertEqual(activity.userInfo, ["kept": 1])
    }

    func testObserverSeesUpdatedEventAfterPass() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        var names: [String] = []
        let observation = center.addObserver { event in
            if case .updated(let activity) = event {
                names.append("\(event.name):\(activity.userInfo["k"]?.intValue ?? -1)")
            }
        }
        let owner = RecordingResponder(entries: ["k": 7])
        let activity = UserActivity(activityType: "test.observe", center: center)
        owner.userActivity = activity
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(names, ["updated:7"])
        observation.cancel()
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(names, ["updated:7"], "a cancelled observation hears nothing")
    }

    func testMarkInWillSaveSchedulesNewPass() async throws {
        final class Remarking: UserActivityDelegate {
            var saves = 0
            var remark = true
            func userActivityWillSave(_ userActivity: UserActivity) {
                saves += 1
                // Bounded, so an implementation that loops inside the pass fails, not hangs.
                if remark, saves < 20 { userActivity.needsSave = true }
            }
        }
        let (center, scheduler) = ResponderChainBuilder.center()
        let delegate = Remarking()
        let activity = UserActivity(activityType: "test.willsave-mark", center: center)
        activity.delegate = delegate
        activity.needsSave = true
        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(delegate.saves, 1)
        XCTAssertTrue(activity.needsSave)
        XCTAssertEqual(scheduler.pendingCount, 1)
        delegate.remark = false
        scheduler.runUntilIdle()
        XCTAssertEqual(delegate.saves, 2)
        XCTAssertFalse(activity.needsSave)
    }

    func testOwnerLettingGoDuringPassInvalidatesOnNextTurn() async throws {
        let (center, scheduler) = ResponderChainBuilder.center()
        let owner = RecordingResponder(entries: ["last": "words"])
        let activity = UserActivity(activityType: "test.let-go", center: center)
        owner.userActivity = activity
        scheduler.runUntilIdle()
        owner.onUpdate = { [unowned owner] _ in owner.userActivity = nil }
        activity.needsSave = true
        XCTAssertTrue(scheduler.runNext())
        XCTAssertEqual(owner.updateCount, 1)
        XCTAssertTrue(activity.isValid, "invalidated by the next turn, not inside the pass")
        XCTAssertEqual(activity.userInfo, ["last": "words"])
        XCTAssertEqual(scheduler.pendingCount, 1)
        scheduler.runUntilIdle()
        XCTAssertFalse(activity.isValid)
    }

    func testDidUpdateIsAGoodPlaceForAVersionKey() async throws {
        final class Versioning: ApplicationDelegate {
            func application(_ application: Application, didUpdate userActivity: UserActivity) {
                userActivity.addUserInfoEntries(from: ["version": 2])
            }
        }
        let (center, scheduler) = ResponderChainBuilder.center()
        let application = Application(center: center)
        let delegate = Versioning()
        application.delegate = delegate
        let owner = RecordingResponder(entries: ["body": "hi"])
        let activity = UserActivity(activityType: "test.version", center: center)
        owner.userActivity = activity
        activity.needsSave = true
        scheduler.runUntilIdle()
        XCTAssertEqual(activity.userInfo, ["body": "hi", "version": 2])
        XCTAssertFalse(activity.needsSave, "adding entries is not a mark")
        XCTAssertEqual(scheduler.pendingCount, 0)
    }
}
