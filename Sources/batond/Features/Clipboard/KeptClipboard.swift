import Foundation

/// What the clipboard held before a promise took it, kept in memory so that withdrawing the
/// promise gives it back (``LocalClipboard/withdraw()``): its text and image types, at most
/// ``typeLimit`` bytes each and ``limit`` in all, read within ``time`` seconds; nothing of a
/// copy a password manager marked secret, which would outlive the password manager's own
/// clearing. Both clipboard sides, X11's and Wayland's, keep it the same way.
struct KeptClipboard {
    /// The most bytes of one type kept.
    static let typeLimit = 1 << 20
    /// The most bytes kept in all.
    static let limit = 4 << 20
    /// The longest keeping may delay a promise, in seconds.
    static let time = 2.0

    /// The types kept, in the order the clipboard offered them.
    private(set) var types: [String] = []
    private var content: [String: [UInt8]] = [:]

    /// Nothing kept.
    init() {}

    /// The kept bytes of `type`.
    ///
    /// - Throws: ``ClipboardError/typeNotOffered(_:)`` for a type not kept.
    func bytes(of type: String) throws -> [UInt8] {
        guard let bytes = content[type] else { throw ClipboardError.typeNotOffered(type) }
        return bytes
    }

    /// Keeps what the clipboard holds: its `content` (read before `deadline` with steps of at
    /// most `step` seconds), each type read with `read(type, limit, timeout)`; a type that
    /// cannot be read is left out.
    @MainActor
    static func keep(_ content: ClipboardContent, until deadline: Date, step: Double,
                     read: (String, Int, Double) async throws -> [UInt8]) async -> KeptClipboard {
        var kept = KeptClipboard()
        guard !content.isSecret else { return kept }
        var total = 0
        for type in content.types where type.hasPrefix("text/") || type.hasPrefix("image/") {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, total < limit else { break }
            guard let bytes = try? await read(type, min(typeLimit, limit - total), min(step, remaining)) else { continue }
            kept.content[type] = bytes
            kept.types.append(type)
            total += bytes.count
        }
        return kept
    }

    /// A promise's `provide`, called once for each type however many apps paste it; a
    /// failure lets the next paste of that type try again.
    @MainActor
    static func onceEachType(_ provide: @escaping @MainActor (String) async throws -> [UInt8])
        -> @MainActor (String) async throws -> [UInt8] {
        var fetches: [String: Task<[UInt8], any Error>] = [:]
        return { type in
            if let fetch = fetches[type] { return try await fetch.value }
            let fetch = Task { @MainActor in try await provide(type) }
            fetches[type] = fetch
            do {
                return try await fetch.value
            } catch {
                fetches[type] = nil
                throw error
            }
        }
    }
}
