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
    g_signal_connect(connection, "accept-certificate", G_CALLBACK(baton_tls_accept_any), NULL);
}
// A pinned connection has no trust database from its construction on: made with the system's
// (what g_tls_client_connection_new and g_tls_server_connection_new do), each connection would
// parse the system CA bundle again, some milliseconds, for nothing.
static inline GIOStream *baton_tls_client_new_pinned(GIOStream *base, GError **error) {
    GType type = g_tls_backend_get_client_connection_type(g_tls_backend_get_default());
    return G_IO_STREAM(g_initable_new(type, NULL, error, "base-io-stream", base, "database", NULL, NULL));
}
static inline GIOStream *baton_tls_server_new_pinned(GIOStream *base, GTlsCertificate *certificate,
                                                     GError **error) {
    GType type = g_tls_backend_get_server_connection_type(g_tls_backend_get_default());
    return G_IO_STREAM(g_initable_new(type, NULL, error, "base-io-stream", base, "certificate", certificate,
                                      "database", NULL, NULL));
}
// Syncthing's relay protocol runs over TLS with the application protocol "bep-relay".
static inline void baton_tls_advertise_bep_relay(GIOStream *connection) {
    const gchar *protocols[] = {"bep-relay", NULL};
    g_tls_connection_set_advertised_protocols(G_TLS_CONNECTION(connection), protocols);
}
static inline void baton_tls_require_client_certificate(GIOStream *connection) {
    g_object_set(connection, "authentication-mode", G_TLS_AUTHENTICATION_REQUIRED, NULL);
}

// TLS for web sites (association files): the system's trust store verifies the server, and
// when batond is given extra authorities (--trust-ca), a certificate the system does not trust
// is accepted only if it chains to one of them and names the host, checked again here.
static gboolean baton_tls_accept_from_extra(GTlsConnection *connection, GTlsCertificate *peer,
                                            GTlsCertificateFlags errors, gpointer data) {
    GSocketConnectable *identity =
        g_tls_client_connection_get_server_identity(G_TLS_CLIENT_CONNECTION(connection));
    GTlsCertificateFlags flags = g_tls_database_verify_chain(
        G_TLS_DATABASE(data), peer, G_TLS_DATABASE_PURPOSE_AUTHENTICATE_SERVER, identity, NULL,
        G_TLS_DATABASE_VERIFY_NONE, NULL, NULL);
    return flags == 0;
}
// An HTTP/1.0 answer ends where the server closes, so a missing close_notify is not an error;
// the body's Content-Length, when given, is checked instead.
static void baton_tls_client_event(GSocketClient *client, GSocketClientEvent event,
                                   GSocketConnectable *connectable, GIOStream *connection,
                                   gpointer data) {
    if (event != G_SOCKET_CLIENT_TLS_HANDSHAKING || !G_IS_TLS_CLIENT_CONNECTION(connection)) return;
    g_tls_connection_set_require_close_notify(G_TLS_CONNECTION(connection), FALSE);
    if (data != NULL)
        g_signal_connect(connection, "accept-certificate", G_CALLBACK(baton_tls_accept_from_extra), data);
}
static inline void baton_socket_client_prepare_tls(GSocketClient *client, GTlsDatabase *extra) {
    g_signal_connect(client, "event", G_CALLBACK(baton_tls_client_event), extra);
}
static inline GIOStream *baton_io_stream(gpointer instance) { return G_IO_STREAM(instance); }

// libdispatch's main-queue hooks, exported by libdispatch on Linux for run-loop integration.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static inline int baton_dispatch_main_queue_fd(void) { return _dispatch_get_main_queue_handle_4CF(); }
static inline void baton_dispatch_drain_main_queue(void) { _dispatch_main_queue_callback_4CF(NULL); }

#endif
