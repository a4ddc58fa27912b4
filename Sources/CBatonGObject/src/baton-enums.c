#include "baton-bridge.h"
#include "baton-swift.h"

G_DEFINE_ENUM_TYPE(BatonLaunchReason, baton_launch_reason,
    G_DEFINE_ENUM_VALUE(BATON_LAUNCH_REASON_USER, "user"),
    G_DEFINE_ENUM_VALUE(BATON_LAUNCH_REASON_CONTINUATION, "continuation"))

G_DEFINE_ENUM_TYPE(BatonError, baton_error,
    G_DEFINE_ENUM_VALUE(BATON_ERROR_UNKNOWN_ACTIVITY, "unknown-activity"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_NOT_REGISTERED, "not-registered"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_NO_CLAIMANT, "no-claimant"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_UNKNOWN_DEVICE, "unknown-device"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_PAIRING, "pairing"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_IDENTITY_MISMATCH, "identity-mismatch"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_CANCELLED, "cancelled"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_HANDOFF_FAILED, "handoff-failed"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_CONNECTION_UNAVAILABLE, "connection-unavailable"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_REMOTE_APPLICATION_TIMED_OUT, "remote-application-timed-out"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_USER_INFO_TOO_LARGE, "user-info-too-large"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_INVALID_WEBPAGE_URL, "invalid-webpage-url"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_INVALID_USER_INFO, "invalid-user-info"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_MALFORMED_PAYLOAD, "malformed-payload"),
    G_DEFINE_ENUM_VALUE(BATON_ERROR_INVALID_ACTIVITY, "invalid-activity"))

/**
 * baton_error_quark:
 *
 * The error domain of #BatonError.
 *
 * Returns: the error domain of Baton's errors, `baton-error-quark`
 */
GQuark baton_error_quark(void) {
    return baton_swift_error_quark();
}
