// libwayland-client for batond: its own connection to the Wayland compositor, for the
// clipboard (the data-control protocol's code is in CWaylandProtocols).
#include <wayland-client.h>
