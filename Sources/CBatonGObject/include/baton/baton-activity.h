#pragma once

#if !defined(BATON_INSIDE) && !defined(BATON_COMPILATION)
#error "Only <baton/baton.h> can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

#define BATON_TYPE_ACTIVITY (baton_activity_get_type())
G_DECLARE_FINAL_TYPE(BatonActivity, baton_activity, BATON, ACTIVITY, GObject)

BatonActivity *baton_activity_new(const char *activity_type);

const char *baton_activity_get_activity_type(BatonActivity *self);

const char *baton_activity_get_title(BatonActivity *self);
void baton_activity_set_title(BatonActivity *self, const char *title);

const char *baton_activity_get_webpage_url(BatonActivity *self);
gboolean baton_activity_set_webpage_url(BatonActivity *self, const char *url, GError **error);

gboolean baton_activity_get_eligible_for_handoff(BatonActivity *self);
void baton_activity_set_eligible_for_handoff(BatonActivity *self, gboolean eligible);

gboolean baton_activity_get_needs_save(BatonActivity *self);
void baton_activity_set_needs_save(BatonActivity *self, gboolean needs_save);

gboolean baton_activity_get_supports_continuation_streams(BatonActivity *self);
void baton_activity_set_supports_continuation_streams(BatonActivity *self, gboolean supports);

GVariant *baton_activity_get_user_info(BatonActivity *self);
void baton_activity_set_user_info(BatonActivity *self, GVariant *user_info);
void baton_activity_add_user_info_entries(BatonActivity *self, GVariant *entries);
GVariant *baton_activity_get_user_info_value(BatonActivity *self, const char *key);
void baton_activity_set_user_info_value(BatonActivity *self, const char *key, GVariant *value);

gboolean baton_activity_get_is_current(BatonActivity *self);
gboolean baton_activity_get_is_valid(BatonActivity *self);
void baton_activity_become_current(BatonActivity *self);
void baton_activity_resign_current(BatonActivity *self);
void baton_activity_invalidate(BatonActivity *self);

void baton_activity_get_continuation_streams(BatonActivity *self, GCancellable *cancellable,
                                             GAsyncReadyCallback callback, gpointer user_data);
GIOStream *baton_activity_get_continuation_streams_finish(BatonActivity *self, GAsyncResult *result,
                                                          GError **error);

G_END_DECLS
