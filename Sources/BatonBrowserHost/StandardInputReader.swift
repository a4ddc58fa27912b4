import Dispatch
import Foundation
import Glibc
import Synchronization

/// Reads the browser's messages from standard input on a thread of its own and hands the
/// newest one to the main actor.
///
/// Only the newest message matters (each says which page is in front now), so messages that
/// arrive faster than the main loop takes them replace one another in a one-place mailbox:
/// a flood of messages costs neither memory nor bus calls. Refused frames are reported on
/// standard error as they come, and count as a message that shows no page.
final class StandardInputReader: Sendable {
    /// What the main actor is handed.
    enum Input: Equatable, Sendable {
        /// The newest message.
        case message(BrowserMessage)
        /// The newest frame was refused (said on standard error): no page is known.
        case refused
    }

    private struct Mailbox {
        var latest: Input?
        var ended = false
        var isScheduled = false
    }

    private let mailbox = Mutex(Mailbox())
    private let deliver: @MainActor @Sendable (Input?, _ ended: Bool) -> Void

    /// - Parameter deliver: runs on the main actor with the newest input (if one came since
    ///   the last call) and whether standard input ended (then for the last time).
    init(deliver: @escaping @MainActor @Sendable (Input?, _ ended: Bool) -> Void) {
        self.deliver = deliver
    }

    /// Starts reading.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "stdin"
        thread.start()
    }

    private func run() {
        var framer = NativeMessageFramer()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                if count < 0 { HostLog.write("cannot read from the browser: \(String(cString: strerror(errno)))") }
                if !framer.isBetweenFrames { HostLog.write("the browser closed the connection in the middle of a message") }
                post(nil, ended: true)
                return
            }
            for event in framer.append(buffer[..<count]) {
                switch event {
                case .oversized(let length):
                    HostLog.write("refused a message: \(BrowserMessageError.tooLarge(length)); it is skipped")
                    post(.refused, ended: false)
                case .message(let bytes):
                    do {
                        post(.message(try BrowserMessage.decode(bytes)), ended: false)
                    } catch {
                        HostLog.write("refused a message: \(error)")
                        post(.refused, ended: false)
                    }
                }
            }
        }
    }

    /// Puts `input` in the mailbox and has the main actor empty it, unless it is about to.
    private func post(_ input: Input?, ended: Bool) {
        let schedule = mailbox.withLock { box in
            if let input { box.latest = input }
            box.ended = box.ended || ended
            guard !box.isScheduled else { return false }
            box.isScheduled = true
            return true
        }
        guard schedule else { return }
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated { drain() }
        }
    }

    @MainActor
    private func drain() {
        let (input, ended) = mailbox.withLock { box in
            defer {
                box.latest = nil
                box.isScheduled = false
            }
            return (box.latest, box.ended)
        }
        deliver(input, ended)
    }
}
