import Baton
import BatonBus
import CBatonGObject
import CGLib
import Foundation

// The functions of `BatonActivity` the C half forwards here (see `src/baton-swift.h`).
// Every handle is an `ActivityBridge` the GObject owns; GTK calls them on the main thread.

/// Creates the `UserActivity` of a new `BatonActivity`; returns the retained bridge.
@MainActor @_cdecl("baton_swift_activity_create")
func batonSwiftActivityCreate(_ object: OpaquePointer?, _ type: UnsafePointer<CChar>?) -> UnsafeMutableRawPointer {
    let bridge = ActivityBridge(activity: UserActivity(activityType: type.map { String(cString: $0) } ?? ""))
    bridge.object = object
    return Unmanaged.passRetained(bridge).toOpaque()
}

/// Releases a handle the C half owned (an activity's or an application's).
@MainActor @_cdecl("baton_swift_release")
func batonSwiftRelease(_ handle: UnsafeMutableRawPointer?) {
    guard let handle else { return }
    Unmanaged<AnyObject>.fromOpaque(handle).release()
}

@MainActor @_cdecl("baton_swift_activity_dup_title")
func batonSwiftActivityDupTitle(_ handle: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar>? {
    ActivityBridge.from(handle).activity.title.flatMap { g_strdup($0) }
}

@MainActor @_cdecl("baton_swift_activity_set_title")
func batonSwiftActivitySetTitle(_ handle: UnsafeMutableRawPointer, _ title: UnsafePointer<CChar>?) {
    ActivityBridge.from(handle).activity.title = title.map { String(cString: $0) }
}

@MainActor @_cdecl("baton_swift_activity_dup_webpage_url")
func batonSwiftActivityDupWebpageURL(_ handle: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar>? {
    ActivityBridge.from(handle).activity.webpageURL.flatMap { g_strdup($0.absoluteString) }
}

/// Sets the web page URL, or reports in `error` (`BATON_ERROR`) why it is refused.
@MainActor @_cdecl("baton_swift_activity_set_webpage_url")
func batonSwiftActivitySetWebpageURL(_ handle: UnsafeMutableRawPointer, _ text: UnsafePointer<CChar>?,
                                     _ errorOut: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> gboolean {
    let activity = ActivityBridge.from(handle).activity
    do {
        guard let text else {
            try activity.setWebpageURL(nil)
            return 1
        }
        let string = String(cString: text)
        guard let url = URL(string: string) else { throw UserActivityError.invalidWebpageURL(string) }
        try activity.setWebpageURL(url)
        return 1
    } catch {
        let code = (error as? UserActivityError)?.code ?? UserActivityError.handoffFailed("").code
        g_set_error_literal(errorOut, BatonErrorTable.domain, gint(code), "\(error)")
        return 0
    }
}

/// The flags of `src/baton-swift.h`'s `BatonSwiftFlag`, in order.
private enum ActivityFlag: UInt32 {
    case eligible, needsSave, supportsStreams, current, valid
}

@MainActor @_cdecl("baton_swift_activity_get_flag")
func batonSwiftActivityGetFlag(_ handle: UnsafeMutableRawPointer, _ flag: UInt32) -> gboolean {
    let activity = ActivityBridge.from(handle).activity
    let value: Bool
    switch ActivityFlag(rawValue: flag) {
    case .eligible: value = activity.isEligibleForHandoff
    case .needsSave: value = activity.needsSave
    case .supportsStreams: value = activity.supportsContinuationStreams
    case .current: value = activity.isCurrent
    case .valid: value = activity.isValid
    case nil: value = false
    }
    return value ? 1 : 0
}

@MainActor @_cdecl("baton_swift_activity_set_flag")
func batonSwiftActivitySetFlag(_ handle: UnsafeMutableRawPointer, _ flag: UInt32, _ value: gboolean) {
    let activity = ActivityBridge.from(handle).activity
    switch ActivityFlag(rawValue: flag) {
    case .eligible: activity.isEligibleForHandoff = value != 0
    case .needsSave: activity.needsSave = value != 0
    case .supportsStreams: activity.supportsContinuationStreams = value != 0
    case .current, .valid, nil: break
    }
}

/// The actions of `src/baton-swift.h`'s `BatonSwiftAction`, in order.
private enum ActivityAction: UInt32 {
    case becomeCurrent, resignCurrent, invalidate
}

@MainActor @_cdecl("baton_swift_activity_perform")
func batonSwiftActivityPerform(_ handle: UnsafeMutableRawPointer, _ action: UInt32) {
    let activity = ActivityBridge.from(handle).activity
    switch ActivityAction(rawValue: action) {
    case .becomeCurrent: activity.becomeCurrent()
    case .resignCurrent: activity.resignCurrent()
    case .invalidate: activity.invalidate()
    case nil: break
    }
}

/// A new floating `a{sv}` of the activity's `userInfo`.
@MainActor @_cdecl("baton_swift_activity_dup_user_info")
func batonSwiftActivityDupUserInfo(_ handle: UnsafeMutableRawPointer) -> OpaquePointer {
    UserInfoVariant.variant(ActivityBridge.from(handle).activity.userInfo)
}

/// Replaces the `userInfo` with an `a{sv}` (empty for `NULL`), or merges it in.
@MainActor @_cdecl("baton_swift_activity_set_user_info")
func batonSwiftActivitySetUserInfo(_ handle: UnsafeMutableRawPointer, _ variant: OpaquePointer?, _ merge: gboolean) {
    let activity = ActivityBridge.from(handle).activity
    let entries = variant.map(UserInfoVariant.userInfo) ?? [:]
    if merge != 0 {
        activity.addUserInfoEntries(from: entries)
    } else {
        activity.userInfo = entries
    }
}

/// The domain `BATON_ERROR`: `baton-error-quark`, with Baton's error names registered.
@MainActor @_cdecl("baton_swift_error_quark")
func batonSwiftErrorQuark() -> GQuark {
    BatonErrorTable.domain
}

/// Opens continuation streams for the activity; ends `task` with the stream's socket (a
/// duplicate: the Swift stream is closed) or the error.
@MainActor @_cdecl("baton_swift_activity_open_continuation_streams")
func batonSwiftActivityOpenContinuationStreams(_ handle: UnsafeMutableRawPointer, _ task: OpaquePointer) {
    ActivityBridge.from(handle).activity.getContinuationStreams { stream, error in
        if let stream, case let descriptor = dup(stream.fileDescriptor), descriptor >= 0 {
            stream.close()
            baton_activity_return_continuation_streams(task, descriptor, 0, nil)
            return
        }
        stream?.close()
        let failure = error ?? UserActivityError.connectionUnavailable("the continuation stream could not be taken")
        let code = (failure as? UserActivityError)?.code ?? UserActivityError.handoffFailed("").code
        baton_activity_return_continuation_streams(task, -1, gint(code), "\(failure)")
    }
}
