import Foundation

extension UserActivity {
    /// Adds the keyed properties of `value` to ``userInfo`` (new keys win), through its
    /// `Encodable` conformance. Dates, data, URLs and UUIDs are stored in their JSON forms
    /// (see `UserInfoValue`'s `Codable` conformance), so ``decodeUserInfo(_:)`` reads them back.
    ///
    /// - Throws: ``UserActivityError/invalidUserInfo(_:)`` if `value` does not encode as a
    ///   keyed container; ``userInfo`` is then unchanged.
    public func encodeUserInfo<T: Encodable>(_ value: T) throws {
        let entries: [String: UserInfoValue]
        do {
            let json = try JSONEncoder().encode(value)
            entries = try JSONDecoder().decode([String: UserInfoValue].self, from: json)
        } catch {
            throw UserActivityError.invalidUserInfo(
                "\(T.self) does not encode as a dictionary of userInfo values (\(error))")
        }
        addUserInfoEntries(from: entries)
    }

    /// Decodes a value of type `T` from ``userInfo``.
    ///
    /// - Throws: ``UserActivityError/invalidUserInfo(_:)`` naming what is missing or mistyped.
    public func decodeUserInfo<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            let json = try JSONEncoder().encode(userInfo)
            return try JSONDecoder().decode(T.self, from: json)
        } catch let DecodingError.keyNotFound(key, _) {
            throw UserActivityError.invalidUserInfo("key \"\(key.stringValue)\" is missing for \(T.self)")
        } catch let DecodingError.typeMismatch(_, context) {
            throw UserActivityError.invalidUserInfo(
                "wrong type at \(Self.path(context.codingPath)) for \(T.self)")
        } catch let DecodingError.valueNotFound(_, context) {
            throw UserActivityError.invalidUserInfo(
                "null at \(Self.path(context.codingPath)) for \(T.self)")
        } catch {
            throw UserActivityError.invalidUserInfo("cannot decode \(T.self): \(error)")
        }
    }

    private nonisolated static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "the top level" : codingPath.map(\.stringValue).joined(separator: ".")
    }
}
