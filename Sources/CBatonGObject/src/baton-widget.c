/* Activities on GTK widgets and windows: the responders of BatonGtk, set from C. */
#include "baton-bridge.h"
#include "baton-swift.h"

#define DATA_KEY "baton-activity"

/**
 * baton_widget_set_activity:
 * @widget: a widget
 * @activity: (nullable): its activity, or %NULL to let go of it
 *
 * Makes @activity the activity of @widget's responder: it becomes current while the focus
 * is in @widget (or a descendant without an activity of its own) in the active window, and
 * is invalidated once no widget or window holds it. @widget keeps a reference to it until
 * it is replaced or @widget is finalized. A #GtkWindow's activity is its window's
 * (baton_window_set_activity()).
 */
void baton_widget_set_activity(GtkWidget *widget, BatonActivity *activity) {
    g_return_if_fail(GTK_IS_WIDGET(widget));
    g_return_if_fail(activity == NULL || BATON_IS_ACTIVITY(activity));
    baton_swift_widget_set_activity(widget, activity ? baton_activity_get_handle(activity) : NULL);
    g_object_set_data_full(G_OBJECT(widget), DATA_KEY, activity ? g_object_ref(activity) : NULL, g_object_unref);
}

/**
 * baton_widget_get_activity:
 * @widget: a widget
 *
 * Gets the activity baton_widget_set_activity() set on @widget.
 *
 * Returns: (transfer none) (nullable): the activity set on @widget
 */
BatonActivity *baton_widget_get_activity(GtkWidget *widget) {
    g_return_val_if_fail(GTK_IS_WIDGET(widget), NULL);
    return g_object_get_data(G_OBJECT(widget), DATA_KEY);
}

/**
 * baton_window_set_activity:
 * @window: a window of an application whose Handoff is enabled
 * @activity: (nullable): its activity, or %NULL
 *
 * Makes @activity the window's own: current while the window is active and the focused
 * widget's chain has no activity of its own.
 */
void baton_window_set_activity(GtkWindow *window, BatonActivity *activity) {
    g_return_if_fail(GTK_IS_WINDOW(window));
    baton_widget_set_activity(GTK_WIDGET(window), activity);
}

/**
 * baton_window_get_activity:
 * @window: a window
 *
 * Gets the activity baton_window_set_activity() set on @window.
 *
 * Returns: (transfer none) (nullable): the window's activity
 */
BatonActivity *baton_window_get_activity(GtkWindow *window) {
    return baton_widget_get_activity(GTK_WIDGET(window));
}
