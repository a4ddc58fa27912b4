// GLib, GObject and GIO (GDBus, GDesktopAppInfo), plus what Swift cannot import from them
// directly: macros and libdispatch's main-queue hooks, as one-line static inline wrappers.
#ifndef BATON_CGLIB_SHIM_H
#define BATON_CGLIB_SHIM_H

#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
#include <glib-unix.h>
#include <malloc.h>

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

// TLS for peer links: certificates are pinned by batond after the handshake, so the
// handshake itself accepts any certificate (trust on first use) and requires one from clients.
static inline GByteArray *baton_tls_certificate_der(GTlsCertificate *certificate) {
    GByteArray *der = NULL;
    g_object_get(certificate, "certificate", &der, NULL);
    return der;
}
static inline gboolean baton_tls_accept_any(GTlsConnection *connection, GTlsCertificate *peer,
                                            GTlsCertificateFlags errors, gpointer data) {
    return TRUE;
}
static inline void baton_tls_pin_after_handshake(GIOStream *connection) {
    g_tls_connection_set_database(G_TLS_CONNECTION(connection), NULL);
    g_signal_connect(connection, "accept-certificate", G_CALLBACK(baton_tls_accept_any), NULL);
}
static inline void baton_tls_require_client_certificate(GIOStream *connection) {
    g_object_set(connection, "authentication-mode", G_TLS_AUTHENTICATION_REQUIRED, NULL);
}

// libdispatch's main-queue hooks, exported by libdispatch on Linux for run-loop integration.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static inline int baton_dispatch_main_queue_fd(void) { return _dispatch_get_main_queue_handle_4CF(); }
static inline void baton_dispatch_drain_main_queue(void) { _dispatch_main_queue_callback_4CF(NULL); }

#endif
