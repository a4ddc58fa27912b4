// GLib, GObject and GIO (GDBus, GDesktopAppInfo), plus what Swift cannot import from them
// directly: macros and libdispatch's main-queue hooks, as one-line static inline wrappers.
#ifndef BATON_CGLIB_SHIM_H
#define BATON_CGLIB_SHIM_H

#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
#include <glib-unix.h>

static inline gulong baton_signal_connect(gpointer instance, const char *signal, GCallback handler,
                                          gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, (GConnectFlags)0);
}

static inline GObject *baton_object(gpointer instance) { return G_OBJECT(instance); }
static inline GApplication *baton_gapplication(gpointer instance) { return G_APPLICATION(instance); }

static inline gboolean baton_true(void) { return TRUE; }
static inline gboolean baton_source_continue(void) { return G_SOURCE_CONTINUE; }
static inline gboolean baton_source_remove(void) { return G_SOURCE_REMOVE; }

static inline const GVariantType *baton_variant_type(const char *signature) {
    return (const GVariantType *)signature;
}
static inline const GVariantType *baton_variant_type_byte(void) { return G_VARIANT_TYPE_BYTE; }
static inline GQuark baton_io_error_quark(void) { return G_IO_ERROR; }
static inline GQuark baton_dbus_error_quark(void) { return G_DBUS_ERROR; }

// libdispatch's main-queue hooks, exported by libdispatch on Linux for run-loop integration.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static inline int baton_dispatch_main_queue_fd(void) { return _dispatch_get_main_queue_handle_4CF(); }
static inline void baton_dispatch_drain_main_queue(void) { _dispatch_main_queue_callback_4CF(NULL); }

#endif
