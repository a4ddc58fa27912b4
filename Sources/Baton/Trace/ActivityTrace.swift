import Foundation
import Glibc

/// Appends one JSON object per line per ``ActivityEvent`` to a file, written at once.
///
/// With `BATON_TRACE=/path/file` in the environment every center traces there:
/// `{"event": E, "type": T, "title": …, "userInfo": {…}, "error": …, "pid": N}`. It is for
/// people debugging their app and for black-box tests. The file is opened for appending
/// (created with mode 0600), so several processes can share one trace file; each line is
/// a single `write`. This is the only file I/O in the core, and it happens only on request.
public final class ActivityTrace: Sendable {
    /// The trace named by `BATON_TRACE`, opened once per process; nil when unset or
    /// when the file cannot be opened.
    public static let fromEnvironment: ActivityTrace? = {
        guard let path = ProcessInfo.processInfo.environment["BATON_TRACE"], !path.isEmpty else {
            return nil
        }
        return try? ActivityTrace(path: path)
    }()

    /// The file being written.
    public let path: String
    private let descriptor: Int32

    /// Opens `path` for appending, creating it with mode 0600.
    ///
    /// - Throws: `CocoaError(.fileWriteUnknown)` naming the path and the system's reason.
    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: path,
                NSLocalizedDescriptionKey: "cannot open trace file \(path): \(reason)",
            ])
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Writes one line for `event`. Summary changes (``ActivityEvent/summaryChanged(_:)``)
    /// are for observers and are not traced.
    @MainActor
    public func record(_ event: ActivityEvent) {
        if case .summaryChanged = event { return }
        var record = TraceRecord(event: event.name, type: event.activityType, pid: getpid())
        if let activity = event.activity {
            record.title = activity.title
            if case .updated = event { record.userInfo = activity.userInfo }
            if case .continued = event { record.userInfo = activity.userInfo }
            if case .restored = event { record.userInfo = activity.userInfo }
        }
        if case .failed(_, let error) = event {
            record.error = String(describing: error)
            record.code = (error as? UserActivityError)?.code
        }
        write(record)
    }

    private func write(_ record: TraceRecord) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        guard var line = try? encoder.encode(record) else { return }
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// One line of the trace.
struct TraceRecord: Encodable {
    var event: String
    var type: String
    var title: String?
    var userInfo: [String: UserInfoValue]?
    var error: String?
    var code: Int?
    var pid: Int32
}
