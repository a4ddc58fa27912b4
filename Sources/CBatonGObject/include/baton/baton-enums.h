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
 * BATON_ERROR:
 *
 * The error domain of Baton's errors (`baton-error-quark`): the codes are Apple's numbers,
 * such as 3072 (cancelled), 4608 (handoff failed), 4609 (connection unavailable),
 * 4610 (remote application timed out) and 4611 (user info too large).
 */
#define BATON_ERROR (baton_error_quark())
GQuark baton_error_quark(void);

G_END_DECLS
