import BatonBus
import CGLib
import Foundation

/// Fetches a web site's association file over HTTPS, verified with the system's trust store
/// (and the authorities of `--trust-ca`, when given): first Baton's own
/// `/.well-known/baton-app-site-association`, then, when the site has none (404 or 410),
/// Apple's `/.well-known/apple-app-site-association`. Both have the same shape
/// (``AssociationFile``). Redirects are not followed, as Apple's are not: the file must be
/// served by the domain itself.
struct AssociationFileFetcher: Sendable {
    /// The authorities trusted beside the system's, if any.
    let extraAuthorities: TrustedAuthorities?
    /// The port asked: HTTPS's, but for tests.
    var port: UInt16 = 443

    /// The paths asked for, in order.
    static let paths = ["/.well-known/baton-app-site-association", "/.well-known/apple-app-site-association"]
    /// Seconds a whole fetch (both paths) may take: 15, but for tests.
    var timeout: Double = 15

    /// What a fetch found.
    enum Outcome: Equatable, Sendable {
        /// The file, the address it came from, and the `max-age` the site gave it, if any.
        case file(AssociationFile, source: String, maximumAge: Int?)
        /// Why there is no file to use.
        case failure(String)
    }

    /// Fetches the file of `host` on a thread of its own (it blocks on the network, so not on
    /// one of the pool's threads that tasks share).
    func fetch(host: String) async -> Outcome {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in continuation.resume(returning: fetchBlocking(host: host)) }
            thread.name = "batond association file"
            thread.start()
        }
    }

    /// What one path of the site gave.
    private enum Attempt {
        case file(AssociationFile, maximumAge: Int?)
        /// `404` or `410`: the site has no such file.
        case missing
        /// Something the site answered that is not a file to use, and why.
        case refused(String)
    }

    /// Each path in turn: the first good file wins; a site that cannot be reached ends the
    /// fetch at once; a path that answers with something else is reported unless a later
    /// path has a good file.
    func fetchBlocking(host: String) -> Outcome {
        let deadline = Deadline(after: timeout)
        defer { deadline.finish() }
        var refusal: String?
        for path in Self.paths {
            let source = "https://\(host)\(path)"
            let attempt: Attempt
            do {
                attempt = try self.attempt(host: host, path: path, cancellable: deadline.cancellable)
            } catch {
                return .failure("\(error)")
            }
            switch attempt {
            case .file(let file, let age): return .file(file, source: source, maximumAge: age)
            case .missing: continue
            case .refused(let reason): refusal = refusal ?? reason
            }
        }
        return .failure(refusal ?? "\(host) serves neither \(Self.paths.joined(separator: " nor "))")
    }

    /// Asks for one path.
    ///
    /// - Throws: ``FetchError`` when the site cannot be reached, its certificate is not
    ///   trusted, or it does not answer HTTP in time.
    private func attempt(host: String, path: String, cancellable: UnsafeMutablePointer<GCancellable>) throws -> Attempt {
        let source = "https://\(host)\(path)"
        let response: HTTPResponse
        do {
            response = try HTTPResponse(try get(host: host, path: path, cancellable: cancellable))
        } catch let error as HTTPResponseError {
            throw FetchError("\(source): \(error)")
        }
        switch response.status {
        case 200:
            if let length = response.headers["content-length"].flatMap(Int.init), length != response.body.count {
                return .refused("\(source): the answer was cut short (\(response.body.count) of \(length) bytes)")
            }
            do {
                return .file(try AssociationFile(bytes: response.body), maximumAge: response.maximumAge)
            } catch {
                return .refused("\(source): \(error)")
            }
        case 404, 410:
            return .missing
        case 300...399:
            return .refused("\(source) redirects (\(response.status)); the file must be served by \(host) itself")
        default:
            return .refused("\(source) answered \(response.status) \(Excerpt.of(response.reason))")
        }
    }

    /// The largest answer read: the header and the largest file.
    private static let maximumResponse = HTTPResponse.maximumHeaderSize + 4 + AssociationFile.maximumSize

    /// One HTTP/1.0 GET over TLS to ``port``, blocking: the whole answer.
    private func get(host: String, path: String, cancellable: UnsafeMutablePointer<GCancellable>) throws -> [UInt8] {
        let client = g_socket_client_new()
        defer { g_object_unref(client) }
        g_socket_client_set_tls(client, 1)
        g_socket_client_set_timeout(client, UInt32(max(1, timeout.rounded(.up))))
        baton_socket_client_prepare_tls(client, extraAuthorities?.database)
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_socket_client_connect_to_host(client, host, port, cancellable, &error) else {
            throw FetchError("cannot reach https://\(host): \(message(taking: error, cancellable: cancellable))")
        }
        defer {
            g_io_stream_close(baton_io_stream(connection), nil, nil)
            g_object_unref(connection)
        }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: \(host)\r\nAccept: application/json\r\nUser-Agent: batond\r\n\r\n".utf8)
        let output = g_io_stream_get_output_stream(baton_io_stream(connection))
        var written: gsize = 0
        guard request.withUnsafeBytes({ g_output_stream_write_all(output, $0.baseAddress, gsize($0.count), &written, cancellable, &error) }) != 0 else {
            throw FetchError("cannot ask https://\(host)\(path): \(message(taking: error, cancellable: cancellable))")
        }
        let input = g_io_stream_get_input_stream(baton_io_stream(connection))
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { g_input_stream_read(input, $0.baseAddress, gsize($0.count), cancellable, &error) }
            if count == 0 { break }
            guard count > 0 else {
                throw FetchError("https://\(host)\(path) did not answer: \(message(taking: error, cancellable: cancellable))")
            }
            response += buffer[0..<count]
            guard response.count <= Self.maximumResponse else {
                throw FetchError("https://\(host)\(path): the answer is over \(AssociationFile.maximumSize) bytes")
            }
        }
        return response
    }

    /// A `GError`'s message, freed; a cancelled call is the deadline's.
    private func message(taking error: UnsafeMutablePointer<GError>?, cancellable: UnsafeMutablePointer<GCancellable>) -> String {
        defer { if let error { g_error_free(error) } }
        if g_cancellable_is_cancelled(cancellable) != 0 { return "no answer within \(Int(timeout.rounded(.up))) s" }
        return error.map { String(cString: $0.pointee.message) } ?? "unknown error"
    }

    /// Why a fetch failed, as a line for `baton domains`.
    private struct FetchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// A `GCancellable` cancelled when the time is up, so a slow site cannot hold a fetch longer.
/// Its timer is a timeout of the default main context (any thread may add and destroy one),
/// not libdispatch's, whose manager thread would start libdispatch's pool monitor.
private final class Deadline {
    private let box = CancellableBox()
    private let source: UnsafeMutablePointer<GSource>
    var cancellable: UnsafeMutablePointer<GCancellable> { box.pointer }

    init(after seconds: Double) {
        source = g_timeout_source_new(guint(max(0, min((seconds * 1000).rounded(.up), Double(guint.max)))))
        g_source_set_callback(source, { data in
            if let data { Unmanaged<CancellableBox>.fromOpaque(data).takeUnretainedValue().cancel() }
            return baton_source_remove()
        }, Unmanaged.passRetained(box).toOpaque(), { data in
            if let data { Unmanaged<CancellableBox>.fromOpaque(data).release() }
        })
        g_source_attach(source, nil)
    }

    /// Stops the timer: the fetch is over.
    func finish() {
        g_source_destroy(source)
    }

    deinit {
        g_source_unref(source)
    }
}

private final class CancellableBox: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GCancellable> = g_cancellable_new()

    func cancel() {
        g_cancellable_cancel(pointer)
    }

    deinit {
        g_object_unref(pointer)
    }
}
