/* The functions of libbaton's Swift half (@_cdecl) that the C half calls. Each `handle` is
 * a retained Swift object the C object owns. Main thread only, as GTK. */
#pragma once

#include <baton/baton.h>

typedef enum {
    BATON_SWIFT_FLAG_ELIGIBLE,
    BATON_SWIFT_FLAG_NEEDS_SAVE,
    BATON_SWIFT_FLAG_SUPPORTS_STREAMS,
    BATON_SWIFT_FLAG_CURRENT,
    BATON_SWIFT_FLAG_VALID,
} BatonSwiftFlag;

typedef enum {
    BATON_SWIFT_ACTION_BECOME_CURRENT,
    BATON_SWIFT_ACTION_RESIGN_CURRENT,
    BATON_SWIFT_ACTION_INVALIDATE,
} BatonSwiftAction;

gpointer baton_swift_activity_create(BatonActivity *object, const char *activity_type);
void baton_swift_release(gpointer handle);
char *baton_swift_activity_dup_title(gpointer handle);
void baton_swift_activity_set_title(gpointer handle, const char *title);
char *baton_swift_activity_dup_webpage_url(gpointer handle);
gboolean baton_swift_activity_set_webpage_url(gpointer handle, const char *url, GError **error);
gboolean baton_swift_activity_get_flag(gpointer handle, BatonSwiftFlag flag);
void baton_swift_activity_set_flag(gpointer handle, BatonSwiftFlag flag, gboolean value);
void baton_swift_activity_perform(gpointer handle, BatonSwiftAction action);
GVariant *baton_swift_activity_dup_user_info(gpointer handle);
void baton_swift_activity_set_user_info(gpointer handle, GVariant *user_info, gboolean merge);
/* Opens continuation streams; ends `task` (taking its reference) with baton_activity_return_continuation_streams. */
void baton_swift_activity_open_continuation_streams(gpointer handle, GTask *task);

gpointer baton_swift_application_create(BatonApplication *object, GtkApplication *application,
                                        const char *team_identifier, const char *const *activity_types);
BatonLaunchReason baton_swift_application_get_launch_reason(gpointer handle);
char *baton_swift_application_dup_launch_activity_type(gpointer handle);
char *baton_swift_application_dup_activation_token(gpointer handle);
BatonActivity *baton_swift_application_get_current_activity(gpointer handle);
void baton_swift_application_restore(gpointer handle, gpointer activity_handle, GtkWidget **widgets, guint count);
void baton_swift_application_window_added(gpointer handle, GtkWindow *window);

void baton_swift_widget_set_activity(GtkWidget *widget, gpointer activity_handle);

void baton_swift_application_add_document_type(gpointer handle, const char *name, const char *const *extensions,
                                               const char *const *mime_types, const char *activity_type);
/* Opens (or finds open) the document at `uri`: its object (transfer none), or NULL and `error`. */
BatonDocument *baton_swift_application_open_document(gpointer handle, const char *uri, GError **error);
char *baton_swift_document_dup_uri(gpointer handle);
char *baton_swift_document_dup_type_name(gpointer handle);
BatonActivity *baton_swift_document_get_activity(gpointer handle);
void baton_swift_document_add_window(gpointer handle, GtkWindow *window);
void baton_swift_document_close(gpointer handle);

GQuark baton_swift_error_quark(void);
