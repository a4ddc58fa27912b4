import BatonPeer
import Foundation

/// A JSON file of batond's config folder (`paired-devices.json`, `settings.json`): read
/// through ``PrivateFiles/read(_:)`` (never through a symbolic link, made 0600) and written
/// whole through a temporary file, so a crash leaves the old contents or the new.
enum PrivateJSONFile {
    /// The value in `file`; `nil` when there is no file.
    ///
    /// - Parameter expected: what the file should hold, for the error ("a list of paired devices").
    /// - Throws: ``ConfigError`` when the file exists but cannot be used: it is left as it is.
    static func read<Value: Decodable>(_ type: Value.Type, from file: URL, expected: String) throws -> Value? {
        let contents: Data?
        do {
            contents = try PrivateFiles.read(file)
        } catch let error as PrivateFileError {
            throw ConfigError(file, error.reason)
        }
        guard let contents else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(type, from: contents)
        } catch {
            throw ConfigError(file, "not \(expected): \(describe(error))")
        }
    }

    /// Writes `value` to `file`, keys sorted and dates in ISO 8601.
    static func write<Value: Encodable>(_ value: Value, to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try PrivateFiles.write(try encoder.encode(value), to: file)
    }

    /// What is wrong in the file, in a line.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let place = context.codingPath.isEmpty ? "" : "\(path(context.codingPath)): "
            return place + context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        "\"" + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "\""
    }
}
