import BatonGLib

/// Registering an app with the batond that just appeared on the bus: the one sequence
/// HandoffClient and the browser host follow.
extension DaemonClient {
    /// How a registration with the service that appeared ended.
    package enum RegistrationOutcome {
        /// Registered: the app may publish.
        case registered
        /// The owner of batond's name is not batond (``ServiceOwnerCheck``): why.
        case notTheService(any Error)
        /// batond refused the registration: its error.
        case refused(any Error)
        /// The service went or changed meanwhile: nothing to say.
        case superseded
    }

    /// Checks that ``destination`` (the unique name that owns batond's name) is batond, then
    /// registers `appID` with it.
    ///
    /// - Parameters:
    ///   - isStillWanted: whether that owner is still the one to register with, asked after
    ///     each wait (the service may go while the check or the call is under way).
    ///   - verified: runs once the owner proved to be batond, before the registration.
    package func register(appID: String, teamID: String, activityTypes: [String],
                          isStillWanted: @MainActor () -> Bool,
                          verified: @MainActor () -> Void = {}) async -> RegistrationOutcome {
        do {
            try await ServiceOwnerCheck.verify(destination, on: connection)
        } catch {
            return isStillWanted() ? .notTheService(error) : .superseded
        }
        guard isStillWanted() else { return .superseded }
        verified()
        do {
            try await call(.register(appID: appID, teamID: teamID, activityTypes: activityTypes), timeout: 10)
        } catch {
            return isStillWanted() ? .refused(error) : .superseded
        }
        return isStillWanted() ? .registered : .superseded
    }
}
