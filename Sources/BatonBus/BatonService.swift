import Baton

/// The names of Baton's D-Bus contract between apps, batond and the `baton` tool.
///
/// batond owns ``busName`` on the session bus and serves ``daemonInterface`` at
/// ``daemonPath``; every app exports ``applicationInterface`` at ``applicationPath`` on its
/// own connection. The introspection documents are in `Sources/BatonBus/Resources/`.
public enum BatonService {
    /// The well-known name batond owns.
    public static let busName = "org.baton.Daemon"
    /// batond's object.
    public static let daemonPath = "/org/baton/Daemon"
    /// batond's interface, version 1.
    public static let daemonInterface = "org.baton.Daemon1"
    /// The object each app exports for batond.
    public static let applicationPath = "/org/baton/Application"
    /// The apps' interface, version 1.
    public static let applicationInterface = "org.baton.Application1"
    /// The interface version this build speaks.
    public static let version = "1"

    /// The environment variable batond sets, to ``launchReasonContinue``, in an app it starts
    /// from its `Exec` line to continue an activity.
    public static let launchReasonVariable = "BATON_LAUNCH_REASON"
    /// The value of ``launchReasonVariable`` for a continuation.
    public static let launchReasonContinue = "continue"
    /// The environment variable that names the type of the activity to continue.
    public static let launchActivityTypeVariable = "BATON_CONTINUE_TYPE"

    /// The application action batond activates (`org.freedesktop.Application.ActivateAction`,
    /// which starts the app if need be) when it starts a `DBusActivatable` app to continue an
    /// activity. Its parameter is an `a{sv}`: ``continueActivityTypeKey`` and, when the
    /// person clicked a notification, ``continueActivationTokenKey``. D-Bus activation passes
    /// no environment, so this is how such an app learns why it was started. BatonGtk adds
    /// the action to every application.
    public static let continueActionName = "baton-continue"
    /// The activity type, a string, in the parameter of ``continueActionName``.
    public static let continueActivityTypeKey = "activity-type"
    /// The desktop activation token, a string, in the parameter of ``continueActionName``.
    public static let continueActivationTokenKey = "activation-token"

    /// The longest desktop activation token passed on, in bytes (tokens are short ids).
    public static let maximumActivationTokenLength = 1024

    /// Whether `token`, a desktop activation token from outside (a notification server's
    /// `ActivationToken`, batond's `SetPlatformData`), is passed on: non-empty, at most
    /// ``maximumActivationTokenLength`` bytes, without control or bidirectional characters.
    public static func isAcceptableActivationToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= maximumActivationTokenLength && !ActivityLimits.containsUnsafe(token)
    }

    /// The introspection document of ``daemonInterface``.
    public static let daemonIntrospectionXML = String(decoding: PackageResources.org_baton_Daemon1_xml, as: UTF8.self)
    /// The introspection document of ``applicationInterface``.
    public static let applicationIntrospectionXML = String(
        decoding: PackageResources.org_baton_Application1_xml, as: UTF8.self)
}
