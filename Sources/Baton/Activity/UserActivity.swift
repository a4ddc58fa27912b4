import Foundation

/// What the user is doing, as a type, a title and a small `userInfo`: the unit Handoff moves
/// from one device to another.
///
/// Set an activity on a ``Responder`` or a ``Document`` and Baton manages it: the
/// ``ActivityCenter`` makes it current when its owner is in the main window's responder
/// chain, asks the owners to fill `userInfo` in lazy update passes after `needsSave = true`,
/// and invalidates it when the last owner lets go.
///
/// Its fields stay within what the Baton service accepts (``ActivityLimits``): the setters
/// cut or refuse what would go over, so the service never refuses the activity.
@MainActor
public final class UserActivity {
    /// The `userInfo` key under which ``Document`` puts its file URL.
    nonisolated public static let documentURLKey = "NSUserActivityDocumentURL"
    /// The activity type of browsing a web page, continued in a browser.
    nonisolated public static let browsingWebType = "NSUserActivityTypeBrowsingWeb"
    /// The largest `userInfo`, in encoded bytes, that an activity may carry
    /// (``ActivityLimits/maximumUserInfoSize``, 64 KiB).
    ///
    /// Encoding a larger one throws ``UserActivityError/userInfoTooLarge(size:limit:)``;
    /// it is never truncated.
    nonisolated public static let maximumUserInfoSize = ActivityLimits.maximumUserInfoSize

    /// The center this activity reports to.
    public let center: ActivityCenter
    /// The reverse-DNS type of the activity, such as `org.example.mail.compose`.
    ///
    /// An activity whose type the service refuses (``ActivityLimits/isValidActivityType(_:)``:
    /// empty, over 4 KiB, or holding control characters) never becomes current.
    public let activityType: String
    /// Whether the service accepts ``activityType``: otherwise the activity never becomes current.
    private let hasValidActivityType: Bool
    /// The title people see when they are offered the activity, cut to
    /// ``ActivityLimits/maximumTitleLength`` bytes between whole characters.
    public var title: String? {
        didSet {
            if let title, title.utf8.count > ActivityLimits.maximumTitleLength {
                self.title = ActivityLimits.fittingTitle(title)
            }
            if title != oldValue { center.activitySummaryDidChange(self) }
        }
    }
    /// The state needed to continue the activity. Empty by default, never nil.
    public var userInfo: [String: UserInfoValue] = [:]
    /// The keys that must be sent when the activity is handed off; nil sends every key.
    public var requiredUserInfoKeys: Set<String>?
    /// A URL to continue the activity in a web browser where no app claims it.
    public private(set) var webpageURL: URL?
    /// When the activity stops being offered. An infinite date becomes nil (never) or
    /// `Date.distantPast` (``ActivityLimits/fittingExpirationDate(_:)``).
    public var expirationDate: Date? {
        didSet {
            if let date = expirationDate, !ActivityLimits.isValidExpirationDate(date) {
                expirationDate = ActivityLimits.fittingExpirationDate(date)
            }
            if expirationDate != oldValue { center.activitySummaryDidChange(self) }
        }
    }
    /// Words that describe the activity, kept within ``ActivityLimits/maximumKeywordLength``
    /// and ``ActivityLimits/maximumKeywordsSize`` (``ActivityLimits/fittingKeywords(_:)``).
    public var keywords: Set<String> = [] {
        didSet {
            let fitting = ActivityLimits.fittingKeywords(keywords)
            if fitting != keywords { keywords = fitting }
        }
    }
    /// Whether the activity may be offered to other devices; ineligible ones are skipped
    /// by election.
    public var isEligibleForHandoff = true {
        didSet {
            guard isEligibleForHandoff != oldValue else { return }
            center.setNeedsElection()
            center.activitySummaryDidChange(self)
        }
    }
    /// Whether the activity offers continuation streams: the app continuing it may open one
    /// to this app (``getContinuationStreams(completionHandler:)``), which the delegate
    /// receives in ``UserActivityDelegate/userActivity(_:didReceive:)``.
    public var supportsContinuationStreams = false
    /// What opens continuation streams for it, while it is an activity being continued here.
    var continuationStreamProvider: (any ContinuationStreamProvider)?
    /// Told before `userInfo` is saved and when the activity was continued elsewhere.
    public weak var delegate: (any UserActivityDelegate)?
    /// False once ``invalidate()`` has been called.
    public private(set) var isValid = true

    private var needsSaveFlag = false
    /// Whether the activity sits in the center's queue of the next update pass.
    var isQueuedForUpdate = false
    /// The responders and document that own the activity, in the order they took it.
    var owners = OwnerList()

    /// Creates an activity of the given type reporting to `center`.
    public init(activityType: String, center: ActivityCenter = .shared) {
        self.activityType = activityType
        self.center = center
        hasValidActivityType = ActivityLimits.isValidActivityType(activityType)
    }

    /// Whether the activity's state has changed since it was last saved.
    ///
    /// Setting it to true is cheap: it sets a flag and schedules at most one update pass,
    /// however many times it is set before that pass runs.
    public var needsSave: Bool {
        get { needsSaveFlag }
        set {
            guard newValue else {
                needsSaveFlag = false
                return
            }
            guard !needsSaveFlag, isValid else { return }
            needsSaveFlag = true
            if !isQueuedForUpdate {
                isQueuedForUpdate = true
                center.enqueueUpdate(self)
            }
        }
    }

    /// Whether this is the center's current activity.
    public var isCurrent: Bool { center.currentActivity === self }

    /// Whether election may choose this activity: valid, eligible for Handoff, and of a type
    /// the service accepts.
    var isElectable: Bool { isValid && isEligibleForHandoff && hasValidActivityType }

    /// Whether a responder or document has owned this activity, so Baton manages it.
    public private(set) var isManaged = false

    /// Merges `entries` into ``userInfo``; where a key exists, the new value wins.
    public func addUserInfoEntries(from entries: [String: UserInfoValue]) {
        if userInfo.isEmpty {
            userInfo = entries
        } else {
            userInfo.merge(entries) { _, new in new }
        }
    }

    /// Sets the URL to continue the activity in a browser.
    ///
    /// - Throws: ``UserActivityError/invalidWebpageURL(_:)`` unless `url` is nil or an
    ///   absolute http or https URL with a host of at most
    ///   ``ActivityLimits/maximumWebpageURLLength`` bytes; the activity is then left unchanged.
    public func setWebpageURL(_ url: URL?) throws {
        if let url {
            try ActivityLimits.checkWebpageURL(url)
        }
        guard url != webpageURL else { return }
        webpageURL = url
        center.activitySummaryDidChange(self)
    }

    /// Makes this the current activity at once. Does nothing once the activity is invalid, or
    /// when the service refuses its type (``ActivityLimits/isValidActivityType(_:)``).
    public func becomeCurrent() {
        guard isValid, hasValidActivityType else { return }
        center.makeCurrent(self)
    }

    /// Stops this being the current activity, if it is.
    public func resignCurrent() {
        center.resign(self)
    }

    /// Ends the activity for good: it resigns if current, is never saved or elected again.
    public func invalidate() {
        guard isValid else { return }
        center.resign(self)
        isValid = false
        needsSaveFlag = false
        center.activityDidInvalidate(self)
    }

    /// Runs one update for this activity now, as an update pass would.
    func performUpdate() {
        needsSaveFlag = false
        let owners = owners.liveOwners()
        if !owners.isEmpty {
            userInfo = [:]
            for owner in owners {
                owner.updateUserActivityState(self)
            }
        }
        delegate?.userActivityWillSave(self)
        if !owners.isEmpty {
            center.activityDidUpdateOwnedState(self)
        }
        center.emit(.updated(self))
    }

    func addOwner(_ owner: any ActivityOwner) {
        owners.add(owner)
        isManaged = true
    }

    func removeOwner(_ id: ObjectIdentifier) {
        owners.remove(id)
        if owners.isEmpty {
            center.enqueueOwnershipCheck(self)
        }
    }
}
