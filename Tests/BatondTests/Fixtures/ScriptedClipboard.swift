@testable import batond

/// A ``LocalClipboard`` driven by the test: ``copy(_:secret:content:)`` is an app's copy, and
/// ``paste(_:)`` an app's paste of the promise; it records each read, promise and withdrawal.
@MainActor
final class ScriptedClipboard: LocalClipboard {
    var onCopied: ((ClipboardContent) -> Void)?
    /// What an app here holds now, by type.
    private(set) var content: [String: [UInt8]] = [:]
    /// Each read: the type and the limit asked for.
    private(set) var reads: [(type: String, limit: Int)] = []
    /// Each promise's types, in order.
    private(set) var promises: [[String]] = []
    /// How the current promise's content is fetched; `nil` when the clipboard holds no promise.
    private var provide: (@MainActor (String) async throws -> [UInt8])?
    private(set) var withdrawals = 0
    private(set) var isStopped = false

    /// Whether this device holds a promise now.
    var holdsPromise: Bool { provide != nil }

    /// An app here copies `content` (by type), marked secret or not, or marked as a device's
    /// promise (`promise`: another batond's, or a clipboard manager's copy of one).
    func copy(_ content: [String: [UInt8]], types: [String]? = nil, secret: Bool = false, promise: Bool = false) {
        self.content = content
        provide = nil
        onCopied?(ClipboardContent(types: types ?? content.keys.sorted(), isSecret: secret, isPromise: promise))
    }

    /// An app here pastes the promise as `type`.
    func paste(_ type: String) async throws -> [UInt8] {
        guard let provide else { throw ClipboardError.changed }
        return try await provide(type)
    }

    func read(_ type: String, limit: Int) async throws -> [UInt8] {
        reads.append((type, limit))
        guard let bytes = content[type] else { throw ClipboardError.typeNotOffered(type) }
        guard bytes.count <= limit else { throw ClipboardError.tooLarge(limit: limit) }
        return bytes
    }

    func promise(_ types: [String], provide: @escaping @MainActor (String) async throws -> [UInt8]) {
        promises.append(types)
        content = [:]
        self.provide = provide
    }

    func withdraw() {
        guard provide != nil else { return }
        provide = nil
        withdrawals += 1
    }

    func stop() {
        provide = nil
        isStopped = true
    }
}
