import BatonGLib
import CGLib

/// The notification that shows a continuation started from a notification is on its way
/// ("Continuing “Lunch on Friday”…", with Cancel), for as long as it takes.
///
/// The person clicked Continue in a notification, which then went; the app that continues may
/// not be started yet, and the other device may be slow. So that the click is never met with
/// nothing, this notification shows once the continuation has taken ``delay`` (most take less,
/// and then nothing flashes), and goes when it ends. Cancel cancels it: the fetch stops, and
/// the app that was told it will continue is told it failed. One continuation at a time is
/// shown: a newer one takes the notification.
@MainActor
final class ContinuingNotification {
    /// The notification's key in ``Notifier``.
    static let key = "continuing"
    /// Its action's id.
    static let cancelAction = "cancel"
    /// Seconds a continuation runs before the notification shows.
    static let delay = 0.5

    private let notifier: Notifier
    private var task: Task<Void, Never>?
    /// The number of the running continuation, so that an older one ending leaves a newer one's
    /// notification alone.
    private var generation = 0
    private var timer: guint = 0
    private var isShown = false

    init(notifier: Notifier) {
        self.notifier = notifier
    }

    /// Whether a continuation is running.
    var isRunning: Bool { task != nil }

    /// Runs `continuation`, showing this notification while it takes longer than ``delay``.
    func run(title: String, from device: String, _ continuation: @escaping @MainActor () async -> Void) {
        finished()
        generation += 1
        let number = generation
        task = Task { @MainActor in
            await continuation()
            if self.generation == number { self.finished() }
        }
        timer = GLibSources.once(after: Self.delay) { [weak self] in
            guard let self else { return }
            timer = 0
            isShown = true
            notifier.show(key: Self.key, title: "Continuing “\(title)”…", detail: "From \(device)",
                          action: (id: Self.cancelAction, label: "Cancel"))
        }
    }

    /// The person clicked Cancel: the running continuation is cancelled.
    func cancel() {
        task?.cancel()
    }

    private func finished() {
        task = nil
        GLibSources.cancel(timer)
        timer = 0
        if isShown {
            isShown = false
            notifier.withdraw(key: Self.key)
        }
    }
}
