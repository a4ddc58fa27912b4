#pragma once

#if !defined(BATON_INSIDE) && !defined(BATON_COMPILATION)
#error "Only <baton/baton.h> can be included directly."
#endif

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * BatonLaunchReason:
 * @BATON_LAUNCH_REASON_USER: an ordinary launch, by a person or a script.
 * @BATON_LAUNCH_REASON_CONTINUATION: the Baton service started the app to continue an
 *   activity; the app's window comes from the #BatonApplication::continue handler.
 *
 * Why this process was started.
 */
typedef enum {
    BATON_LAUNCH_REASON_USER,
    BATON_LAUNCH_REASON_CONTINUATION,
} BatonLaunchReason;

GType baton_launch_reason_get_type(void) G_GNUC_CONST;
#define BATON_TYPE_LAUNCH_REASON (baton_launch_reason_get_type())

/**
 * BatonError:
 * @BATON_ERROR_UNKNOWN_ACTIVITY: the service knows no such activity
 * @BATON_ERROR_NOT_REGISTERED: the app is not registered with the service
 * @BATON_ERROR_NO_CLAIMANT: no installed app continues the activity type
 * @BATON_ERROR_UNKNOWN_DEVICE: no such device
 * @BATON_ERROR_PAIRING: pairing failed
 * @BATON_ERROR_IDENTITY_MISMATCH: a device's identity is not the one paired
 * @BATON_ERROR_CANCELLED: the continuation was cancelled (Apple's 3072)
 * @BATON_ERROR_HANDOFF_FAILED: the activity could not be continued (4608)
 * @BATON_ERROR_CONNECTION_UNAVAILABLE: the other device could not be reached (4609)
 * @BATON_ERROR_REMOTE_APPLICATION_TIMED_OUT: the other device's app did not answer in time (4610)
 * @BATON_ERROR_USER_INFO_TOO_LARGE: #BatonActivity:user-info encodes to more than 64 KiB (4611)
 * @BATON_ERROR_INVALID_WEBPAGE_URL: not an absolute http or https URL
 * @BATON_ERROR_INVALID_USER_INFO: a user-info value cannot be carried
 * @BATON_ERROR_MALFORMED_PAYLOAD: an activity's data could not be read
 * @BATON_ERROR_INVALID_ACTIVITY: the activity is not one the service accepts
 *
 * The errors of %BATON_ERROR, with the numbers of Baton's D-Bus contract (and Apple's, for
 * continuations); a #GError from the service's D-Bus error names carries them too.
 */
typedef enum {
    BATON_ERROR_UNKNOWN_ACTIVITY = 1,
    BATON_ERROR_NOT_REGISTERED = 2,
    BATON_ERROR_NO_CLAIMANT = 3,
    BATON_ERROR_UNKNOWN_DEVICE = 4,
    BATON_ERROR_PAIRING = 5,
    BATON_ERROR_IDENTITY_MISMATCH = 6,
    BATON_ERROR_CANCELLED = 3072,
    BATON_ERROR_HANDOFF_FAILED = 4608,
    BATON_ERROR_CONNECTION_UNAVAILABLE = 4609,
    BATON_ERROR_REMOTE_APPLICATION_TIMED_OUT = 4610,
    BATON_ERROR_USER_INFO_TOO_LARGE = 4611,
    BATON_ERROR_INVALID_WEBPAGE_URL = 4640,
    BATON_ERROR_INVALID_USER_INFO = 4641,
    BATON_ERROR_MALFORMED_PAYLOAD = 4642,
    BATON_ERROR_INVALID_ACTIVITY = 4643,
} BatonError;

GType baton_error_get_type(void) G_GNUC_CONST;
#define BATON_TYPE_ERROR (baton_error_get_type())

/**
 * BATON_ERROR:
 *
 * The error domain of Baton's errors, `baton-error-quark` (see #BatonError).
 */
#define BATON_ERROR (baton_error_quark())
GQuark baton_error_quark(void);

G_END_DECLS
