import BatonBus
import Foundation

/// Why this process was started: by a person (or a script), or by the Baton service to
/// continue an activity.
///
/// batond starts an app it needs for a continuation with `BATON_LAUNCH_REASON=continue` and
/// `BATON_CONTINUE_TYPE=<activity type>` in its environment. ``BatonApplication`` reads them
/// once, when it is created, and removes them so that processes the app starts do not
/// inherit them. A `DBusActivatable` app, which the bus starts with no such environment,
/// learns it from the action `BatonService.continueActionName` that batond activates. Launched to continue, the application skips the launch's own `activate`
/// (no default window beside the continued one): see ``BatonApplication/launchReason``.
public enum LaunchReason: Hashable, Sendable {
    /// An ordinary launch.
    case user
    /// Started by the Baton service to continue an activity of `activityType`.
    case continuation(activityType: String)

    /// Whether the service started the app to continue an activity.
    public var isContinuation: Bool {
        if case .continuation = self { return true }
        return false
    }

    /// The launch reason `environment` gives.
    public init(environment: [String: String]) {
        if environment[BatonService.launchReasonVariable] == BatonService.launchReasonContinue,
           let type = environment[BatonService.launchActivityTypeVariable], !type.isEmpty {
            self = .continuation(activityType: type)
        } else {
            self = .user
        }
    }

    /// Reads this process's launch reason and removes its variables from the environment.
    static func takeFromEnvironment() -> LaunchReason {
        let reason = LaunchReason(environment: ProcessInfo.processInfo.environment)
        unsetenv(BatonService.launchReasonVariable)
        unsetenv(BatonService.launchActivityTypeVariable)
        return reason
    }
}
