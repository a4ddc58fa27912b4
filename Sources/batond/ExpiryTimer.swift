import BatonGLib
import CGLib
import Foundation

/// One timer for the earliest of a set of expiration dates: whatever holds the dates re-arms
/// it after each change, and cleans up when it fires.
@MainActor
final class ExpiryTimer {
    private var sourceID: guint = 0
    private let onFire: () -> Void

    init(onFire: @escaping () -> Void) {
        self.onFire = onFire
    }

    isolated deinit {
        GLibSources.cancel(sourceID)
    }

    /// Fires just after the earliest of `dates` still to come; never when none is.
    func arm(for dates: some Sequence<Date>) {
        GLibSources.cancel(sourceID)
        sourceID = 0
        let now = Date()
        guard let next = dates.filter({ $0.timeIntervalSince1970.isFinite && $0 > now }).min() else { return }
        sourceID = GLibSources.once(after: next.timeIntervalSince(now) + 0.05) { [weak self] in
            guard let self else { return }
            self.sourceID = 0
            self.onFire()
        }
    }
}
