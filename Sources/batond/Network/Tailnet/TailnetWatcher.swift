import BatonBus
import BatonGLib
import CGLib
import Foundation
import Logging

/// The devices of the user's tailnet, read from tailscaled's LocalAPI on its Unix socket
/// (`GET /localapi/v0/status`, what `tailscale status` reads; any user may): at start and
/// every ``interval`` seconds while the socket is there, each read told to ``onPeers``. When
/// the socket is missing at start (Tailscale is not installed, or not running), nothing is
/// read and nothing wakes batond.
@MainActor
final class TailnetWatcher {
    let socketPath: String
    /// Seconds between two reads.
    let interval: UInt32
    /// Told the peers to dial after each read that differs from the one before; none when
    /// tailscaled is not connected or cannot be read.
    var onPeers: ([TailnetStatus.Peer]) -> Void = { _ in }
    /// The peers of the last read.
    private(set) var peers: [TailnetStatus.Peer] = []
    /// What the last read found, for `baton doctor`: nil before the first.
    private(set) var state: Result<Bool, TailnetStatusError>?
    private let logger: Logger
    private var timer: guint = 0
    private var reading = false
    private var lastLogged: String?

    /// Seconds a read may wait on tailscaled.
    nonisolated static let timeout = 5

    init(socketPath: String, interval: UInt32, logger: Logger) {
        self.socketPath = socketPath
        self.interval = interval
        self.logger = logger
    }

    /// Reads now and then every ``interval``, when the socket is there.
    func start() {
        guard FileManager.default.fileExists(atPath: socketPath), timer == 0 else { return }
        logger.info("reading the tailnet's devices from tailscaled (\(socketPath)) every \(interval) s")
        read()
        timer = GLibSources.every(seconds: interval) { [weak self] in self?.read() }
    }

    private func read() {
        guard !reading else { return }
        reading = true
        let path = socketPath
        Task { @MainActor in
            defer { reading = false }
            let result = await Task.detached { Self.status(at: path) }.value
            let line: String
            switch result {
            case .success(let status):
                state = .success(status.isRunning)
                line = status.isRunning ? "tailscaled is connected; \(status.peers.count) device(s) may run batond"
                    : "tailscaled is not connected"
                publish(status.peers)
            case .failure(let error):
                state = .failure(error)
                line = "cannot read tailscaled's status: \(error)"
                publish([])
            }
            // Logged when it changes, not every read.
            if line != lastLogged {
                lastLogged = line
                logger.info("tailnet: \(line)")
            }
        }
    }

    private func publish(_ read: [TailnetStatus.Peer]) {
        guard read != peers else { return }
        peers = read
        onPeers(read)
    }

    /// One status read, blocking.
    nonisolated private static func status(at path: String) -> Result<TailnetStatus, TailnetStatusError> {
        let request = LocalHTTPRequest(endpoint: .unix(path: path), timeout: timeout, maximumResponse: TailnetStatus.maximumSize + (64 << 10))
        let answer: [UInt8]
        do {
            answer = try request.send("GET /localapi/v0/status HTTP/1.0\r\nHost: local-tailscaled.sock\r\nAccept: application/json\r\n\r\n")
        } catch {
            return .failure(TailnetStatusError(error.step == .tooLarge ? "its answer is too large" : "tailscaled is not answering: \(error.detail)"))
        }
        guard let response = try? HTTPResponse(answer) else { return .failure(TailnetStatusError("its answer is not HTTP")) }
        guard response.status == 200 else {
            return .failure(TailnetStatusError("it answered \(response.status) \(UnsafeCharacters.cleaned(response.reason.prefix(80)))"))
        }
        return Result { () throws(TailnetStatusError) in try TailnetStatus(json: response.body) }
    }
}
