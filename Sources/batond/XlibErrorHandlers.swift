import CX11

/// Xlib's process-wide error handlers, installed once for every X connection batond opens
/// (the active-window watcher's and the clipboard's).
///
/// A protocol error (a window gone between two requests) is ignored rather than ending
/// batond, as Xlib's default handler would; a broken connection is left to each display's
/// own exit handler (`XSetIOErrorExitHandler`), which each connection sets to note that it is
/// lost.
enum XlibErrorHandlers {
    static func install() {
        XSetErrorHandler { _, _ in 0 }
        XSetIOErrorHandler { _ in 0 }
    }
}
