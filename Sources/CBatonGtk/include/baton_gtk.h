// What Swift cannot import from GLib and GTK directly: macros, variadic functions,
// and libdispatch's main-queue hooks. Every function is a one-line static inline wrapper.
#ifndef BATON_GTK_H
#define BATON_GTK_H

#include <gtk/gtk.h>
#include <glib-unix.h>

static inline gulong baton_signal_connect(gpointer instance, const char *signal, GCallback handler,
                                          gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, (GConnectFlags)0);
}

static inline GObject *baton_object(gpointer instance) { return G_OBJECT(instance); }
static inline GtkWidget *baton_widget(gpointer instance) { return GTK_WIDGET(instance); }
static inline GtkWindow *baton_window(gpointer instance) { return GTK_WINDOW(instance); }
static inline GtkApplication *baton_application(gpointer instance) { return GTK_APPLICATION(instance); }
static inline GApplication *baton_gapplication(gpointer instance) { return G_APPLICATION(instance); }
static inline GtkEditable *baton_editable(gpointer instance) { return GTK_EDITABLE(instance); }

static inline gboolean baton_is_widget(gpointer instance) { return GTK_IS_WIDGET(instance); }
static inline gboolean baton_is_window(gpointer instance) { return GTK_IS_WINDOW(instance); }
static inline gboolean baton_is_editable(gpointer instance) { return GTK_IS_EDITABLE(instance); }
static inline gboolean baton_is_text_buffer(gpointer instance) { return GTK_IS_TEXT_BUFFER(instance); }

static inline gboolean baton_true(void) { return TRUE; }
static inline gboolean baton_source_continue(void) { return G_SOURCE_CONTINUE; }
static inline gboolean baton_source_remove(void) { return G_SOURCE_REMOVE; }

static inline void baton_application_set_register_session(GtkApplication *application, gboolean value) {
    g_object_set(application, "register-session", value, NULL);
}

// libdispatch's main-queue hooks, exported by libdispatch on Linux for run-loop integration.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static inline int baton_dispatch_main_queue_fd(void) { return _dispatch_get_main_queue_handle_4CF(); }
static inline void baton_dispatch_drain_main_queue(void) { _dispatch_main_queue_callback_4CF(NULL); }

#endif
