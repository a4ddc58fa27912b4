#pragma once

#if !defined(BATON_INSIDE) && !defined(BATON_COMPILATION)
#error "Only <baton/baton.h> can be included directly."
#endif

#include <gtk/gtk.h>
#include <baton/baton-activity.h>
#include <baton/baton-document.h>
#include <baton/baton-enums.h>

G_BEGIN_DECLS

#define BATON_TYPE_APPLICATION (baton_application_get_type())
G_DECLARE_FINAL_TYPE(BatonApplication, baton_application, BATON, APPLICATION, GObject)

BatonApplication *baton_application_enable_handoff(GtkApplication *application, const char *team_identifier,
                                                   const char *const *activity_types);
BatonApplication *baton_application_get_for_gtk_application(GtkApplication *application);

GtkApplication *baton_application_get_gtk_application(BatonApplication *self);
BatonLaunchReason baton_application_get_launch_reason(BatonApplication *self);
const char *baton_application_get_launch_activity_type(BatonApplication *self);
const char *baton_application_get_activation_token(BatonApplication *self);
BatonActivity *baton_application_get_current_activity(BatonApplication *self);
void baton_application_restore(BatonApplication *self, BatonActivity *activity, GList *objects);
void baton_application_add_document_type(BatonApplication *self, const char *name, const char *const *extensions,
                                         const char *const *mime_types, const char *activity_type);
BatonDocument *baton_application_open_document(BatonApplication *self, GFile *file, GError **error);

G_END_DECLS
