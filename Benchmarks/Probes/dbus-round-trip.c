/*
 * How long one GDBus round trip with a 1.5 KB payload takes through dbus-daemon, and on a
 * peer-to-peer connection (GDBusServer on a Unix socket, no daemon between): the figures
 * behind Benchmarks/README.md's note on the continuation's 5x target. Median of 2000 calls, three
 * rounds each, side by side in one run.
 *
 *     Benchmarks/Probes/dbus-round-trip.sh
 */
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static const char *xml = "<node><interface name='t.Echo'><method name='Echo'><arg type='ay' direction='in'/><arg type='ay' direction='out'/></method></interface></node>";
static GDBusNodeInfo *info;
static void call(GDBusConnection *c, const char *s, const char *p, const char *i, const char *m, GVariant *params, GDBusMethodInvocation *inv, gpointer u) {
  g_dbus_method_invocation_return_value(inv, g_variant_new_tuple(&(GVariant*){g_variant_get_child_value(params,0)},1));
}
static const GDBusInterfaceVTable vt = { call };
static gboolean on_new(GDBusServer *srv, GDBusConnection *c, gpointer u) {
  g_object_ref(c);
  g_dbus_connection_register_object(c, "/t", info->interfaces[0], &vt, NULL, NULL, NULL);
  return TRUE;
}
static int cmp(const void *a, const void *b){ double x=*(double*)a,y=*(double*)b; return x<y?-1:x>y; }
static void bench(GDBusConnection *c, const char *dest, const char *label) {
  char buf[1500]; memset(buf, 7, sizeof buf);
  double t[2000];
  for (int k=0;k<2000;k++){
    gint64 a=g_get_monotonic_time();
    GVariant *r = g_dbus_connection_call_sync(c, dest, "/t", "t.Echo", "Echo", g_variant_new("(@ay)", g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, buf, sizeof buf, 1)), NULL, 0, -1, NULL, NULL);
    t[k]=(g_get_monotonic_time()-a)/1000.0; if(r) g_variant_unref(r); else {printf("fail\n"); exit(1);}
  }
  qsort(t,2000,sizeof(double),cmp); printf("%s median %.3f ms\n", label, t[1000]);
}
int main(int argc, char **argv) {
  info = g_dbus_node_info_new_for_xml(xml, NULL);
  if (!strcmp(argv[1],"server")) {
    char *guid = g_dbus_generate_guid();
    GDBusServer *s = g_dbus_server_new_sync(argv[2], G_DBUS_SERVER_FLAGS_AUTHENTICATION_REQUIRE_SAME_USER, guid, NULL, NULL, NULL);
    g_signal_connect(s, "new-connection", G_CALLBACK(on_new), NULL);
    g_dbus_server_start(s);
    GDBusConnection *b = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    g_dbus_connection_register_object(b, "/t", info->interfaces[0], &vt, NULL, NULL, NULL);
    g_bus_own_name_on_connection(b, "t.Echo", 0, NULL, NULL, NULL, NULL);
    g_main_loop_run(g_main_loop_new(NULL, FALSE));
  } else {
    GDBusConnection *p = g_dbus_connection_new_for_address_sync(argv[2], G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT, NULL, NULL, NULL);
    GDBusConnection *b = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    for (int i=0;i<3;i++){ bench(b, "t.Echo", "bus"); bench(p, NULL, "p2p"); }
  }
}
