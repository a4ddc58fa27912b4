import CGLib
import Glibc

/// Drains libdispatch's main queue from the GLib main loop, so `@MainActor` code and
/// `Task { @MainActor in … }` run while GTK owns the main thread.
///
/// libdispatch signals new main-queue work on an eventfd; a GLib unix-fd source watches it,
/// reads it (else the source would fire in a busy loop), then drains the queue.
@MainActor
public enum MainQueueBridge {
    private static var sourceID: guint = 0

    /// Installs the bridge on the default main context. Calling it again does nothing.
    public static func install() {
        guard sourceID == 0 else { return }
        let descriptor = baton_dispatch_main_queue_fd()
        guard descriptor >= 0 else { return }
        sourceID = g_unix_fd_add_full(G_PRIORITY_DEFAULT, descriptor, G_IO_IN, { fd, _, _ in
            var counter: UInt64 = 0
            _ = read(fd, &counter, MemoryLayout<UInt64>.size)
            baton_dispatch_drain_main_queue()
            return baton_source_continue()
        }, nil, nil)
    }
}
