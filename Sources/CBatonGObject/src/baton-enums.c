#define BATON_COMPILATION
#include "baton-bridge.h"
#include "baton-swift.h"

G_DEFINE_ENUM_TYPE(BatonLaunchReason, baton_launch_reason,
    G_DEFINE_ENUM_VALUE(BATON_LAUNCH_REASON_USER, "user"),
    G_DEFINE_ENUM_VALUE(BATON_LAUNCH_REASON_CONTINUATION, "continuation"))

/**
 * baton_error_quark:
 *
 * Returns: the error domain of Baton's errors, `baton-error-quark`
 */
GQuark baton_error_quark(void) {
    return baton_swift_error_quark();
}
