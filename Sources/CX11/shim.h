// Xlib for batond: which window is the active one (EWMH `_NET_ACTIVE_WINDOW`) and whose it is
// (`_NET_WM_PID`, `_GTK_APPLICATION_ID`, `WM_CLASS`), for the recent documents' offers; and the
// CLIPBOARD selection (XFixes selection notifications, selection ownership) for the clipboard.
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/Xfixes.h>

/* ConnectionNumber is a macro. */
static inline int baton_x11_connection_number(Display *display) { return ConnectionNumber(display); }
/* DefaultRootWindow is a macro. */
static inline Window baton_x11_root_window(Display *display) { return DefaultRootWindow(display); }
