import Baton

/// An application delegate that records every call, and continues activities by restoring
/// them into ``restorables`` (at once, or when ``restoreLater`` is set, on
/// ``runPendingRestoration()``).
@MainActor
public final class RecordingApplicationDelegate: ApplicationDelegate {
    /// One call the delegate received.
    public enum Call: Equatable {
        case willContinue(String)
        case didContinue(String)
        case didFail(String, code: Int?)
        case didFailToSend(String, code: Int?)
        case didUpdate(String)
    }

    public private(set) var calls: [Call] = []
    public private(set) var errors: [any Error] = []
    public private(set) var continued: [UserActivity] = []
    public var restorables: [any UserActivityRestoring] = []
    public var restoreLater = false
    /// What `willContinue` and `continue` return.
    public var handles = true
    private var pendingRestoration: (() -> Void)?

    public init() {}

    public func application(_ application: Application,
                            willContinueUserActivityWithType userActivityType: String) -> Bool {
        calls.append(.willContinue(userActivityType))
        return handles
    }

    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        calls.append(.didContinue(userActivity.activityType))
        continued.append(userActivity)
        let objects = restorables
        if restoreLater {
            pendingRestoration = { restorationHandler(objects) }
        } else {
            restorationHandler(objects)
        }
        return handles
    }

    public func application(_ application: Application,
                            didFailToContinueUserActivityWithType userActivityType: String,
                            error: any Error) {
        calls.append(.didFail(userActivityType, code: (error as? UserActivityError)?.code))
        errors.append(error)
    }

    public func application(_ application: Application, didFailToSend userActivity: UserActivity, error: any Error) {
        calls.append(.didFailToSend(userActivity.activityType, code: (error as? UserActivityError)?.code))
        errors.append(error)
    }

    public func application(_ application: Application, didUpdate userActivity: UserActivity) {
        calls.append(.didUpdate(userActivity.activityType))
    }

    /// Calls the restoration handler held back by ``restoreLater``.
    public func runPendingRestoration() {
        let restoration = pendingRestoration
        pendingRestoration = nil
        restoration?()
    }
}

/// A responder that writes fixed entries into its activity on update and records restores.
@MainActor
public final class RecordingResponder: Responder {
    public var entries: [String: UserInfoValue]
    public private(set) var updateCount = 0
    public private(set) var restored: [[String: UserInfoValue]] = []
    /// Runs inside ``updateUserActivityState(_:)``, after the entries are added.
    public var onUpdate: ((UserActivity) -> Void)?

    public init(entries: [String: UserInfoValue] = [:]) {
        self.entries = entries
        super.init()
    }

    public override func updateUserActivityState(_ userActivity: UserActivity) {
        super.updateUserActivityState(userActivity)
        updateCount += 1
        userActivity.addUserInfoEntries(from: entries)
        onUpdate?(userActivity)
    }

    public override func restoreUserActivityState(_ userActivity: UserActivity) {
        super.restoreUserActivityState(userActivity)
        restored.append(userActivity.userInfo)
    }
}

/// An activity delegate that records its calls.
@MainActor
public final class RecordingActivityDelegate: UserActivityDelegate {
    public private(set) var willSaveCount = 0
    public private(set) var wasContinuedCount = 0
    /// The `userInfo` seen at each `userActivityWillSave`.
    public private(set) var savedUserInfo: [[String: UserInfoValue]] = []

    public init() {}

    public func userActivityWillSave(_ userActivity: UserActivity) {
        willSaveCount += 1
        savedUserInfo.append(userActivity.userInfo)
    }

    public func userActivityWasContinued(_ userActivity: UserActivity) {
        wasContinuedCount += 1
    }
}
