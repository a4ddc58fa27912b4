import Glibc

/// A source of this device's own, offering ``types``: when an app pastes one, the
/// compositor hands a pipe to write it into, and ``onSend`` writes it (and closes the pipe).
/// The compositor cancels a source once another copy replaced it.
@MainActor
final class WaylandDataSource {
    /// The types offered.
    let types: [String]
    /// Writes the content of a type into a pipe's writing end, and closes it.
    var onSend: (String, Int32) -> Void = { _, fd in _ = close(fd) }
    /// Runs once when the source ended: cancelled by the compositor, or the connection closed.
    var onEnded: () -> Void = {}
    /// Whether the source ended.
    private(set) var hasEnded = false

    let proxy: OpaquePointer

    init(proxy: OpaquePointer, types: [String]) {
        self.proxy = proxy
        self.types = types
    }

    func send(_ type: String, _ fd: Int32) {
        guard !hasEnded else {
            _ = close(fd)
            return
        }
        onSend(type, fd)
    }

    func ended() {
        guard !hasEnded else { return }
        hasEnded = true
        onEnded()
    }
}
