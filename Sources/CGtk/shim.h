// GTK 4 for Swift, and what Swift cannot import from it directly: cast and type-check macros
// and variadic functions, each a one-line static inline wrapper. GLib's own are in CGLib.
#include <gtk/gtk.h>
#include <glib-unix.h>

static inline GtkWidget *baton_widget(gpointer instance) { return GTK_WIDGET(instance); }
static inline GtkWindow *baton_window(gpointer instance) { return GTK_WINDOW(instance); }
static inline GtkApplication *baton_application(gpointer instance) { return GTK_APPLICATION(instance); }
static inline GtkEditable *baton_editable(gpointer instance) { return GTK_EDITABLE(instance); }

static inline gboolean baton_is_widget(gpointer instance) { return GTK_IS_WIDGET(instance); }
static inline gboolean baton_is_window(gpointer instance) { return GTK_IS_WINDOW(instance); }
static inline gboolean baton_is_editable(gpointer instance) { return GTK_IS_EDITABLE(instance); }
static inline gboolean baton_is_text_buffer(gpointer instance) { return GTK_IS_TEXT_BUFFER(instance); }

static inline void baton_application_set_register_session(GtkApplication *application, gboolean value) {
    g_object_set(application, "register-session", value, NULL);
}
