import Baton

/// Builds the responder chains tests need in one line.
@MainActor
public enum ResponderChainBuilder {
    /// A window with `depth` responders above its first responder: the returned
    /// `responders[0]` is the window's first responder, and each one's next responder is the
    /// one after it; the last one's next responder is the window.
    public static func window(depth: Int) -> (window: Window, responders: [Responder]) {
        let window = Window()
        var responders: [Responder] = []
        responders.reserveCapacity(depth)
        var next: Responder = window
        for _ in 0..<depth {
            let responder = Responder()
            responder.nextResponder = next
            responders.append(responder)
            next = responder
        }
        responders.reverse()
        window.firstResponder = responders.first
        return (window, responders)
    }

    /// A center with a fresh ``ManualScheduler`` and tracing off, for a test.
    public static func center() -> (center: ActivityCenter, scheduler: ManualScheduler) {
        let scheduler = ManualScheduler()
        let center = ActivityCenter(scheduler: scheduler)
        center.trace = nil
        return (center, scheduler)
    }
}
