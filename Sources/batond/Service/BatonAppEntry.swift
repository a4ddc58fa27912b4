import BatonBus
import BatonGLib
import CGLib

/// The Baton app as batond opens it: its installed desktop entry, `org.baton.Baton.desktop`,
/// whose "pair" action opens it on its Devices page, where the dialog of a pairing under way
/// comes up by itself.
enum BatonAppEntry {
    static let desktopID = "org.baton.Baton.desktop"
    /// The entry's action that opens the app to type a pairing code.
    static let pairAction = "pair"

    /// Opens the Baton app to type the code of a pairing under way, its window brought to the
    /// front with `activationToken` (the notification server's, when it gave one).
    ///
    /// - Throws: ``ServiceError/invalidArguments(_:)`` when the app is not installed.
    static func openForPairing(activationToken: String?) throws {
        guard let info = g_desktop_app_info_new(desktopID) else {
            throw ServiceError.invalidArguments("the Baton app is not installed (\(desktopID))")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        let context = ActivationLaunchContext.make(token: activationToken)
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        g_desktop_app_info_launch_action(info, pairAction, context)
    }
}
