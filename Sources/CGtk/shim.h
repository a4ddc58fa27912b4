// GTK 4 for Swift, and what Swift cannot import from it directly: cast and type-check macros
// and variadic functions, each a one-line static inline wrapper. GLib's own are in CGLib.
#include <gtk/gtk.h>
#include <glib-unix.h>
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/wayland/gdkwayland.h>
#endif

static inline GtkWidget *baton_widget(gpointer instance) { return GTK_WIDGET(instance); }
static inline GtkWindow *baton_window(gpointer instance) { return GTK_WINDOW(instance); }
static inline GtkApplication *baton_application(gpointer instance) { return GTK_APPLICATION(instance); }
static inline GtkEditable *baton_editable(gpointer instance) { return GTK_EDITABLE(instance); }

static inline gboolean baton_is_widget(gpointer instance) { return GTK_IS_WIDGET(instance); }
static inline gboolean baton_is_window(gpointer instance) { return GTK_IS_WINDOW(instance); }
static inline gboolean baton_is_editable(gpointer instance) { return GTK_IS_EDITABLE(instance); }
static inline gboolean baton_is_text_buffer(gpointer instance) { return GTK_IS_TEXT_BUFFER(instance); }
static inline gboolean baton_is_label(gpointer instance) { return GTK_IS_LABEL(instance); }
static inline GtkLabel *baton_label(gpointer instance) { return GTK_LABEL(instance); }
static inline GtkDialog *baton_dialog(gpointer instance) { return GTK_DIALOG(instance); }

/* A recent-files manager kept in `filename`, not the desktop's (g_object_new is variadic). */
static inline GtkRecentManager *baton_recent_manager_new_with_file(const char *filename) {
    return GTK_RECENT_MANAGER(g_object_new(GTK_TYPE_RECENT_MANAGER, "filename", filename, NULL));
}

/* A modal error dialog: `heading`, then `body`, and Close (gtk_message_dialog_new is variadic). */
static inline GtkWidget *baton_error_dialog_new(GtkWindow *parent, const char *heading, const char *body) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GtkWidget *dialog = gtk_message_dialog_new(parent, GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                               GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", heading);
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", body);
    G_GNUC_END_IGNORE_DEPRECATIONS
    return dialog;
}

/* A dialog of a task under way: `heading`, then `body`, a progress bar below, and Cancel. */
static inline GtkWidget *baton_progress_dialog_new(GtkWindow *parent, const char *heading, const char *body,
                                                   GtkWidget *progress_bar) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GtkWidget *dialog = gtk_message_dialog_new(parent, GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_INFO,
                                               GTK_BUTTONS_CANCEL, "%s", heading);
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", body);
    gtk_box_append(GTK_BOX(gtk_message_dialog_get_message_area(GTK_MESSAGE_DIALOG(dialog))), progress_bar);
    G_GNUC_END_IGNORE_DEPRECATIONS
    return dialog;
}

/* Replaces the secondary text of a message dialog. */
static inline void baton_message_dialog_set_body(GtkWidget *dialog, const char *body) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", body);
    G_GNUC_END_IGNORE_DEPRECATIONS
}

static inline void baton_application_set_register_session(GtkApplication *application, gboolean value) {
    g_object_set(application, "register-session", value, NULL);
}

/* Gives `window` the desktop's activation token for its next gtk_window_present. A window not
 * yet on screen takes it as its startup id; on Wayland, one already mapped would drop that id
 * before presenting (GTK 4.8 clears it at once and asks the compositor for a token of its own,
 * which it refuses to an app the person did not click), so the display holds it for the
 * present's activation instead. */
static inline void baton_window_set_activation_token(GtkWindow *window, const char *token) {
#ifdef GDK_WINDOWING_WAYLAND
    GdkDisplay *display = gtk_widget_get_display(GTK_WIDGET(window));
    if (GDK_IS_WAYLAND_DISPLAY(display) && gtk_widget_get_mapped(GTK_WIDGET(window))) {
        gdk_wayland_display_set_startup_notification_id(display, token);
        return;
    }
#endif
    gtk_window_set_startup_id(window, token);
}
