import Foundation

/// Chooses the current activity and runs the lazy update passes, for one application.
///
/// The center is driven by an ``ActivityScheduler``: elections and update passes are
/// coalesced into the next scheduler turn, so any number of focus changes or `needsSave`
/// marks before that turn cost one election and one pass.
@MainActor
public final class ActivityCenter {
    /// The process's center, scheduling on the main queue until a toolkit layer installs
    /// its own scheduler.
    public static let shared = ActivityCenter(scheduler: DispatchMainScheduler())

    /// Where the center's deferred work runs. A toolkit layer may replace it; a turn already
    /// scheduled on the old scheduler is scheduled again on the new one (it runs once).
    public var scheduler: any ActivityScheduler {
        didSet {
            guard oldValue !== scheduler, turnScheduled else { return }
            turnScheduled = false
            turnGeneration += 1
            turnWork = nil
            scheduleTurn()
        }
    }

    /// Records events to the `BATON_TRACE` file; nil when tracing is off.
    public var trace: ActivityTrace?

    /// The window whose responder chain elects the current activity, held weakly.
    /// The toolkit layer sets it from the active window; changing it re-elects.
    public weak var mainWindow: Window? {
        didSet {
            guard oldValue !== mainWindow else { return }
            if oldValue?.electingCenter === self { oldValue?.electingCenter = nil }
            mainWindow?.electingCenter = self
            setNeedsElection()
        }
    }

    /// The document controller that reopens the documents continued activities name: the
    /// first made for this center.
    weak var documentController: DocumentController?

    /// The activity being offered to other devices, if any.
    public private(set) var currentActivity: UserActivity?

    /// The application whose delegate hears about updates and continuations.
    weak var application: Application?

    private var turnScheduled = false
    /// Tells a turn scheduled on a replaced scheduler from the current one.
    private var turnGeneration = 0
    private var electionPending = false
    private var pendingUpdates: [UserActivity] = []
    /// The storage of the last pass's batch, kept for the next one.
    private var spareUpdates: [UserActivity] = []
    /// A turn's work, made once per scheduler: a new closure each turn would allocate, and
    /// so would an optional closure (kept in the struct, it is read as it is).
    private var turnWork: ScheduledWork?
    private var ownershipChecks: [UserActivity] = []
    private var observers: [(id: Int, handler: @MainActor (ActivityEvent) -> Void)] = []
    private var nextObserverID = 0

    /// Creates a center that defers its work to `scheduler`. Tracing follows `BATON_TRACE`.
    public init(scheduler: any ActivityScheduler) {
        self.scheduler = scheduler
        self.trace = ActivityTrace.fromEnvironment
    }

    /// Asks for an election in the next scheduler turn. The toolkit layer calls it when
    /// focus moves or the chain is re-linked.
    public func setNeedsElection() {
        electionPending = true
        scheduleTurn()
    }

    /// Calls `handler` for every event from now on, until the observation is cancelled.
    public func addObserver(_ handler: @escaping @MainActor (ActivityEvent) -> Void) -> ActivityObservation {
        nextObserverID += 1
        observers.append((nextObserverID, handler))
        return ActivityObservation(center: self, id: nextObserverID)
    }

    /// Saves `activity` now if it needs saving, as its update pass would, instead of waiting
    /// for the pass. The service calls it before sending an activity to another device.
    public func saveNow(_ activity: UserActivity) {
        guard activity.isValid, activity.needsSave else { return }
        activity.performUpdate()
    }

    /// Updates `activity` now whether or not it is marked: `userInfo` is cleared, each owner's
    /// `updateUserActivityState` runs and its delegate's `userActivityWillSave`, as in an
    /// update pass. A pending mark is cleared. For saving state the app cannot know is stale,
    /// such as every window's activity at quit.
    public func updateNow(_ activity: UserActivity) {
        guard activity.isValid else { return }
        activity.performUpdate()
    }

    /// Tells the activity's delegate, and observers, that another device continued it: the
    /// device named `device` when the service said which
    /// (``UserActivityDelegate/userActivity(_:wasContinuedOn:)``).
    public func reportContinued(_ activity: UserActivity, on device: String? = nil) {
        if let device {
            activity.delegate?.userActivity(activity, wasContinuedOn: device)
        } else {
            activity.delegate?.userActivityWasContinued(activity)
        }
        emit(.wasContinued(activity))
    }

    /// Tells the application's delegate that `activity` could not be sent to the device
    /// continuing it (``ApplicationDelegate/application(_:didFailToSend:error:)``): the
    /// toolkit layer calls it when a save asked for by the service fails.
    public func reportSendFailure(_ activity: UserActivity, error: any Error) {
        guard let application else { return }
        application.delegate?.application(application, didFailToSend: activity, error: error)
    }

    func removeObserver(_ id: Int) {
        observers.removeAll { $0.id == id }
    }

    func emit(_ event: ActivityEvent) {
        trace?.record(event)
        for observer in observers {
            observer.handler(event)
        }
    }

    // MARK: Scheduling

    private func scheduleTurn() {
        guard !turnScheduled else { return }
        turnScheduled = true
        if let turnWork {
            scheduler.schedule(turnWork.run)
            return
        }
        let generation = turnGeneration
        let work = ScheduledWork { [weak self] in
            guard let self, self.turnGeneration == generation else { return }
            self.runTurn()
        }
        turnWork = work
        scheduler.schedule(work.run)
    }

    /// One scheduler turn: abandoned activities are invalidated, then the election runs,
    /// then the update pass. Work asked for during the turn goes to the next one.
    private func runTurn() {
        turnScheduled = false
        if !ownershipChecks.isEmpty { invalidateAbandonedActivities() }
        if electionPending {
            electionPending = false
            elect()
        }
        if !pendingUpdates.isEmpty { runUpdatePass() }
    }

    // MARK: Current activity

    func makeCurrent(_ activity: UserActivity) {
        guard currentActivity !== activity else { return }
        if let previous = currentActivity {
            currentActivity = nil
            emit(.resigned(previous))
        }
        currentActivity = activity
        emit(.becameCurrent(activity))
    }

    func resign(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        currentActivity = nil
        emit(.resigned(activity))
    }

    func activitySummaryDidChange(_ activity: UserActivity) {
        if activity.isCurrent { emit(.summaryChanged(activity)) }
    }

    /// Elects the current activity from the main window's chain, then its document.
    ///
    /// With no main window the current activity stays. Where the chain offers nothing, a
    /// managed current activity resigns; one made current by hand stays.
    private func elect() {
        guard let window = mainWindow else { return }
        if let elected = window.electableActivity {
            makeCurrent(elected)
        } else if let current = currentActivity, current.isManaged {
            resign(current)
        }
    }

    // MARK: Update passes

    func enqueueUpdate(_ activity: UserActivity) {
        pendingUpdates.append(activity)
        scheduleTurn()
    }

    private func runUpdatePass() {
        var batch = spareUpdates
        swap(&batch, &pendingUpdates)
        for activity in batch {
            activity.isQueuedForUpdate = false
        }
        for activity in batch where activity.isValid && activity.needsSave {
            activity.performUpdate()
        }
        batch.removeAll(keepingCapacity: true)
        spareUpdates = batch
    }

    func activityDidUpdateOwnedState(_ activity: UserActivity) {
        guard let application else { return }
        application.delegate?.application(application, didUpdate: activity)
    }

    // MARK: Ownership

    func enqueueOwnershipCheck(_ activity: UserActivity) {
        ownershipChecks.append(activity)
        scheduleTurn()
    }

    private func invalidateAbandonedActivities() {
        let checks = ownershipChecks
        ownershipChecks = []
        for activity in checks where activity.isValid && activity.owners.isEmpty {
            activity.invalidate()
        }
    }

    func activityDidInvalidate(_ activity: UserActivity) {
        emit(.invalidated(activity))
        if activity.isManaged { setNeedsElection() }
    }
}
