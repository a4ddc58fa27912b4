/* What the Swift half of libbaton calls in the C half: wrapping an activity it made, and
 * emitting signals. Not installed, not introspected. */
#pragma once

#include <baton/baton.h>

/* A new object for an activity the Swift half made (a continued one), around its retained
 * `handle`, which the object releases when finalized. */
BatonActivity *baton_activity_new_for_handle(const char *activity_type, gpointer handle);
gpointer baton_activity_get_handle(BatonActivity *self);

void baton_activity_emit_update_state(BatonActivity *self);
void baton_activity_emit_was_continued(BatonActivity *self, const char *device_name);
void baton_activity_emit_restore_state(BatonActivity *self, BatonActivity *continued);
void baton_activity_notify_user_info(BatonActivity *self);

void baton_application_emit_activate(BatonApplication *self);
gboolean baton_application_emit_will_continue(BatonApplication *self, const char *activity_type);
gboolean baton_application_emit_continue(BatonApplication *self, BatonActivity *activity);
/* Emits did-fail; returns whether a handler was connected (else the app shows the error). */
gboolean baton_application_emit_did_fail(BatonApplication *self, const char *activity_type, gint code,
                                         const char *message);
