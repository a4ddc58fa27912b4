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

    /// Reads and checks the file at `path` (`-` for standard input).
    static func load(_ path: String) throws -> ActivityFile {
        let data: Data
        do {
            data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= 1 << 20 else { throw CommandFailure("\(path) is larger than 1 MiB") }
        do {
            return try JSONDecoder().decode(ActivityFile.self, from: data)
        } catch DecodingError.keyNotFound(let key, _) {
            throw CommandFailure("invalid activity in \(path): \"\(key.stringValue)\" is missing")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw CommandFailure("invalid activity in \(path): \(field.isEmpty ? "not a JSON object" : "bad \"\(field)\"")")
        } catch {
            throw CommandFailure("invalid activity in \(path): \(error)")
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
            guard let parsed = URL(string: webpageURL), UserActivityPayload.isWebpageURL(parsed) else {
                throw CommandFailure("invalid activity: webpageURL \"\(webpageURL)\" is not an absolute http or https URL")
            }
            url = parsed
        }
        if let expirationDate, !expirationDate.isFinite {
            throw CommandFailure("invalid activity: expirationDate must be a finite number")
        }
        let payload = UserActivityPayload(activityType: type, title: title, userInfo: userInfo ?? [:], webpageURL: url,
                                          expirationDate: expirationDate.map(Date.init(timeIntervalSince1970:)))
        do {
            return Array(try payload.encoded())
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
