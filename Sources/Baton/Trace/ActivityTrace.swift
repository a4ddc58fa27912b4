import Foundation
import Glibc

/// Appends one JSON object per line per ``ActivityEvent`` to a file, written at once.
///
/// With `BATON_TRACE=/path/file` in the environment every center traces there:
/// `{"event": E, "type": T, "title": …, "userInfo": {…}, "error": …, "pid": N, "time": S}`.
/// It is for people debugging their app and for black-box tests.
///
/// A line holds at most 16 KiB of `userInfo`: longer strings, larger data and longer lists
/// are cut (strings to 1 KiB), and past that only its keys are written; such a line
/// says `"userInfoCut": true`.
///
/// `time` is when the event was recorded: wall-clock seconds since 1970 to the millisecond,
/// a JSON number such as `1764000000.123`. The difference between two lines' times is the
/// time between their events: from `will-continue` to `continued` (or `failed`) and on to
/// `restored`, how long a continuation took; from one `updated` line to the next, the time
/// between update passes. It is the system clock's time, so the lines of several processes
/// sharing a file compare, and a clock set back shows as time going back.
///
/// The file is opened for appending, so several processes can share one trace file; each
/// line is a single `write`. The trace holds what the user typed, so the file is the user's
/// alone: created 0600, an existing one made 0600, and never reached through a symbolic
/// link. This is the only file I/O in the core, and it happens only on request.
public final class ActivityTrace: Sendable {
    /// The trace named by `BATON_TRACE`, opened once per process; nil when unset or
    /// when the file cannot be opened (said once on standard error).
    public static let fromEnvironment: ActivityTrace? = {
        guard let path = ProcessInfo.processInfo.environment["BATON_TRACE"], !path.isEmpty else {
            return nil
        }
        do {
            return try ActivityTrace(path: path)
        } catch {
            let reason = (error as? CocoaError)?.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
            FileHandle.standardError.write(Data("BATON_TRACE: \(reason); not tracing\n".utf8))
            return nil
        }
    }()

    /// The file being written.
    public let path: String
    private let descriptor: Int32

    /// Opens `path` for appending: a new file is created 0600, an existing regular file of
    /// the user's is made 0600; a symbolic link is refused, never followed.
    ///
    /// - Throws: `CocoaError(.fileWriteUnknown)` naming the path and the reason.
    public init(path: String) throws {
        // O_NONBLOCK: a FIFO in its place is refused below rather than waited on.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let error = errno
            var status = stat()
            if error == ELOOP, lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
                throw Self.openError(path, "it is a symbolic link, which is never followed")
            }
            throw Self.openError(path, String(cString: strerror(error)))
        }
        var status = stat()
        let problem: String? = if fstat(descriptor, &status) != 0 {
            String(cString: strerror(errno))
        } else if status.st_mode & S_IFMT != S_IFREG {
            "it is not a regular file"
        } else if status.st_uid != geteuid() {
            "it belongs to another user"
        } else if fchmod(descriptor, 0o600) != 0 {
            String(cString: strerror(errno))
        } else {
            nil
        }
        if let problem {
            close(descriptor)
            throw Self.openError(path, problem)
        }
        self.path = path
        self.descriptor = descriptor
    }

    private static func openError(_ path: String, _ reason: String) -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [
            NSFilePathErrorKey: path,
            NSLocalizedDescriptionKey: "cannot open trace file \(path): \(reason)",
        ])
    }

    deinit {
        close(descriptor)
    }

    /// Writes one line for `event`. Summary changes (``ActivityEvent/summaryChanged(_:)``)
    /// are for observers and are not traced.
    @MainActor
    public func record(_ event: ActivityEvent) {
        if case .summaryChanged = event { return }
        var record = TraceRecord(event: event.name, type: event.activityType, pid: getpid(),
                                 time: Self.millisecondsSince1970(Date()))
        if let activity = event.activity {
            record.title = activity.title
            switch event {
            case .updated, .continued, .restored:
                let capped = TraceUserInfoCap.capped(activity.userInfo)
                record.userInfo = capped.userInfo
                record.userInfoKeys = capped.keys
                record.userInfoCut = capped.cut ? true : nil
            default:
                break
            }
        }
        if case .progress(let progress) = event {
            record.title = progress.message
            record.fraction = progress.fractionCompleted
        }
        if case .failed(_, let error) = event {
            record.error = String(describing: error)
            record.code = (error as? UserActivityError)?.code
        }
        write(record)
    }

    /// `date` as seconds since 1970 rounded to the millisecond: what a line's `time` holds.
    static func millisecondsSince1970(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1000).rounded() / 1000
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
    /// The `userInfo`'s keys alone, when even its cut values are too large for a line.
    var userInfoKeys: [String]?
    /// `true` when the line holds less than the whole `userInfo` (TraceUserInfoCap).
    var userInfoCut: Bool?
    var error: String?
    var code: Int?
    /// A `progress` event's fraction done, when known (its `title` is the message).
    var fraction: Double?
    var pid: Int32
    /// Seconds since 1970, to the millisecond, when the event was recorded.
    var time: Double
}
