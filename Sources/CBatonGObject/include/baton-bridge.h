/* What the Swift half of libbaton calls in the C half: wrapping an activity it made, and
 * emitting signals. Not installed, not introspected. */
#pragma once

#include <baton/baton.h>

/* All hidden: internal to libbaton-1.so. */

/* A new object for an activity the Swift half made (a continued one), around its retained
 * `handle`, which the object releases when finalized. */
G_GNUC_INTERNAL BatonActivity *baton_activity_new_for_handle(const char *activity_type, gpointer handle);
G_GNUC_INTERNAL gpointer baton_activity_get_handle(BatonActivity *self);

G_GNUC_INTERNAL void baton_activity_emit_update_state(BatonActivity *self);
G_GNUC_INTERNAL void baton_activity_emit_was_continued(BatonActivity *self, const char *device_name);
G_GNUC_INTERNAL void baton_activity_emit_restore_state(BatonActivity *self, BatonActivity *continued);
G_GNUC_INTERNAL void baton_activity_notify_user_info(BatonActivity *self);
/* The other end opened a continuation stream, socket `fd` (taken): emits stream-received. */
G_GNUC_INTERNAL void baton_activity_emit_stream_received(BatonActivity *self, int fd);
/* Ends a get_continuation_streams task (taking its reference) with socket `fd` (taken), or,
 * when `fd` is -1, with the error `code` and `message` of BATON_ERROR. */
G_GNUC_INTERNAL void baton_activity_return_continuation_streams(GTask *task, int fd, gint code, const char *message);

G_GNUC_INTERNAL void baton_application_emit_activate(BatonApplication *self);
/* Emits open-document: the framework opened `document`, which needs its windows. */
G_GNUC_INTERNAL void baton_application_emit_open_document(BatonApplication *self, BatonDocument *document);
/* A new object (a full reference) for a document the Swift half made, around its retained `handle`. */
G_GNUC_INTERNAL BatonDocument *baton_document_new_for_handle(gpointer handle);
G_GNUC_INTERNAL gboolean baton_application_emit_will_continue(BatonApplication *self, const char *activity_type);
G_GNUC_INTERNAL gboolean baton_application_emit_continue(BatonApplication *self, BatonActivity *activity);
/* Emits did-fail; returns whether a handler was connected (else the app shows the error). */
G_GNUC_INTERNAL gboolean baton_application_emit_did_fail(BatonApplication *self, const char *activity_type, gint code,
                                         const char *message);
