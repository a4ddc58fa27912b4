import Baton
import BatonBus
import BatonGLib
import Foundation

/// An activity written as JSON, for `baton continue --file` and `baton offer --file`:
///
///     {"type": "org.example.mail.compose", "title": "Draft: Lunch",
///      "userInfo": {"to": "bob@example.org"}, "webpageURL": "https://mail.example.org/",
///      "teamID": "org.example"}
///
/// `type` is required; `title`, `userInfo`, `webpageURL`, `teamID`, `appID` and
/// `expirationDate` (seconds since 1970) are optional. `baton inspect --json` prints this shape.
struct ActivityFile: Decodable {
    var type: String
    var title: String?
    var userInfo: [String: UserInfoValue]?
    var webpageURL: String?
    var teamID: String?
    var appID: String?
    var expirationDate: Double?

    /// The largest activity file read.
    static let maximumSize = 1 << 20

    /// Reads and checks the file at `path` (`-` for standard input).
    ///
    /// - Throws: ``CommandFailure`` saying what is wrong: a path that is not a regular file
    ///   or is larger than ``maximumSize`` (refused before it is read), invalid JSON (where),
    ///   a top level that is not an object, or a missing or bad field.
    static func load(_ path: String) throws -> ActivityFile {
        let shown = Excerpt.of(path)
        return try decode(try read(path, shown: shown), from: shown)
    }

    /// The bytes of `path`, or standard input for `-`: at most ``maximumSize`` + 1 are read.
    private static func read(_ path: String, shown: String) throws -> Data {
        let tooLarge = CommandFailure("\(path == "-" ? "standard input" : shown) holds more than 1 MiB: not an activity file")
        guard path != "-" else {
            let data: Data
            do {
                data = try FileHandle.standardInput.read(upToCount: maximumSize + 1) ?? Data()
            } catch {
                throw CommandFailure("cannot read standard input: \(error.localizedDescription)")
            }
            guard data.count <= maximumSize else { throw tooLarge }
            return data
        }
        // O_NONBLOCK: a FIFO is refused below rather than waited on.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw CommandFailure("cannot read \(shown): \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw CommandFailure("cannot read \(shown): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            let kind = status.st_mode & S_IFMT == S_IFDIR ? "a folder" : "a device, FIFO or socket"
            throw CommandFailure("cannot read \(shown): it is \(kind), not a regular file (give - to read standard input)")
        }
        guard status.st_size <= maximumSize else { throw tooLarge }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumSize + 1) ?? Data()
        } catch {
            throw CommandFailure("cannot read \(shown): \(error.localizedDescription)")
        }
        guard data.count <= maximumSize else { throw tooLarge }
        return data
    }

    /// The activity in `data`, with an error that says what is wrong and where.
    private static func decode(_ data: Data, from shown: String) throws -> ActivityFile {
        let invalid = "invalid activity in \(shown)"
        guard !data.isEmpty else { throw CommandFailure("\(invalid): the file is empty") }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw CommandFailure("\(invalid): not valid JSON\(JSONErrorPlace.describe(error, in: data))")
        }
        guard value is [String: Any] else {
            throw CommandFailure("\(invalid): the top level is \(JSONErrorPlace.kind(of: value)), not a JSON object")
        }
        do {
            return try JSONDecoder().decode(ActivityFile.self, from: data)
        } catch DecodingError.keyNotFound(let key, let context) {
            throw CommandFailure("\(invalid): \(JSONErrorPlace.field(context.codingPath + [key])) is missing")
        } catch DecodingError.valueNotFound(_, let context) {
            throw CommandFailure("\(invalid): \(JSONErrorPlace.field(context.codingPath)) must not be null")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context) {
            throw CommandFailure("\(invalid): bad \(JSONErrorPlace.field(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw CommandFailure("\(invalid): \(error)")
        }
    }

    /// The activity as an encoded payload, checked as the service will check it.
    func encodedPayload() throws -> [UInt8] {
        do {
            try ActivitySummary.checkActivityType(type)
        } catch {
            throw CommandFailure("invalid activity: \(error)")
        }
        var url: URL?
        if let webpageURL {
            guard let parsed = ActivityLimits.webpageURL(fromText: webpageURL) else {
                throw CommandFailure("invalid activity: webpageURL \"\(Excerpt.of(webpageURL))\" is not an absolute http or https URL of at most \(ActivityLimits.maximumWebpageURLLength) bytes")
            }
            url = parsed
        }
        if let expirationDate, !expirationDate.isFinite {
            throw CommandFailure("invalid activity: expirationDate must be a finite number")
        }
        let payload = UserActivityPayload(activityType: type, title: title, userInfo: userInfo ?? [:], webpageURL: url,
                                          expirationDate: expirationDate.map(Date.init(timeIntervalSince1970:)))
        do {
            return try payload.encodedBytes()
        } catch let error as UserActivityError {
            throw CommandFailure("invalid activity: \(error) (error \(error.code))")
        } catch {
            throw CommandFailure("invalid activity: \(error)")
        }
    }

    /// The `a{sv}` options naming where the activity comes from.
    var options: [String: BusValue] {
        var options: [String: BusValue] = [:]
        if let teamID { options["team-id"] = .string(teamID) }
        if let appID { options["app-id"] = .string(appID) }
        return options
    }
}
