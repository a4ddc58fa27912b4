/// A refresh that runs once at a time: one asked for while another is under way runs once
/// more after it, however many were asked for meanwhile. batond's phone bridges and the Baton
/// app's reading of the service each run one.
@MainActor
package final class SerialRefresh {
    private let work: @MainActor () async -> Void
    private var running = false
    private var again = false

    package init(_ work: @escaping @MainActor () async -> Void) {
        self.work = work
    }

    package func request() {
        guard !running else {
            again = true
            return
        }
        running = true
        Task { @MainActor in
            await work()
            running = false
            if again {
                again = false
                request()
            }
        }
    }
}
