#pragma once

#if !defined(BATON_INSIDE) && !defined(BATON_COMPILATION)
#error "Only <baton/baton.h> can be included directly."
#endif

#include <gtk/gtk.h>
#include <baton/baton-activity.h>

G_BEGIN_DECLS

void baton_widget_set_activity(GtkWidget *widget, BatonActivity *activity);
BatonActivity *baton_widget_get_activity(GtkWidget *widget);
void baton_window_set_activity(GtkWindow *window, BatonActivity *activity);
BatonActivity *baton_window_get_activity(GtkWindow *window);

G_END_DECLS
