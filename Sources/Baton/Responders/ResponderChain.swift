/// Walks and checks responder chains.
@MainActor
enum ResponderChain {
    /// The first valid, eligible activity met walking from `start` along `nextResponder`.
    ///
    /// Stops at the end of the chain, or where the chain runs into a cycle (Brent's method:
    /// no allocation, a constant number of comparisons a step).
    static func firstEligibleActivity(from start: Responder?) -> UserActivity? {
        var responder = start
        var mark = start
        var power = 1
        var steps = 0
        while let current = responder {
            if let activity = current.userActivity, activity.isElectable {
                return activity
            }
            responder = current.nextResponder
            if responder === mark { return nil }
            steps += 1
            if steps == power {
                mark = responder
                power *= 2
                steps = 0
            }
        }
        return nil
    }

    /// Whether walking from `start` along `nextResponder` ever comes back to a responder.
    static func hasCycle(from start: Responder) -> Bool {
        var responder: Responder? = start
        var mark: Responder? = start
        var power = 1
        var steps = 0
        while let current = responder {
            responder = current.nextResponder
            if responder != nil, responder === mark { return true }
            steps += 1
            if steps == power {
                mark = responder
                power *= 2
                steps = 0
            }
        }
        return false
    }

    /// Asks for a new election where an owner's activity changed.
    static func activityDidChange(from old: UserActivity?, to new: UserActivity?) {
        old?.center.setNeedsElection()
        if let new, new.center !== old?.center {
            new.center.setNeedsElection()
        }
    }
}
