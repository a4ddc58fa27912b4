import Foundation

extension DevicePair {
    /// `baton status`' clipboard line on `session`.
    public static func clipboardStatus(of session: ServiceSession) throws -> String {
        try status(of: session)["clipboard"] as? String ?? ""
    }

    /// Waits until `session`'s clipboard holds a promise of `device`'s copy (of `types`, when
    /// given: text its status line shows, such as "image/png").
    public static func waitForClipboardPromise(on session: ServiceSession, of device: String, types: String = "",
                                               timeout: TimeInterval = 5) throws {
        var line = ""
        guard waitUntil(timeout: timeout, {
            line = try clipboardStatus(of: session)
            return line.contains("a copy of \(device)") && (types.isEmpty || line.contains(types))
        }) else { throw FixtureError("no promise of \(device)'s copy: \(line)") }
    }
}
