import CGLib
import Foundation

/// Runs the GLib main context and the main actor's queue together until `condition` holds.
@MainActor
public func pumpMainLoop(timeout: Double = 10, until condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { return false }
        if g_main_context_iteration(nil, 0) == 0 {
            try? await Task.sleep(nanoseconds: 1_000_000)
        } else {
            await Task.yield()
        }
    }
    return true
}

/// The result of async work started on the main actor, collected while the loop is pumped.
@MainActor
public final class Outcome<T> {
    public var value: Result<T, any Error>?

    public init(_ work: @escaping @MainActor () async throws -> T) {
        Task { @MainActor in
            do {
                value = .success(try await work())
            } catch {
                value = .failure(error)
            }
        }
    }

    /// The work's result, once it came, pumping the loop meanwhile.
    ///
    /// - Throws: the work's error, or ``NoOutcome`` when it took longer than `timeout` seconds.
    public func get(timeout: Double = 10) async throws -> T {
        guard await pumpMainLoop(timeout: timeout, until: { value != nil }), let value else {
            throw NoOutcome(seconds: timeout)
        }
        return try value.get()
    }
}

/// Work that did not finish in the time a test gave it.
public struct NoOutcome: Error, CustomStringConvertible {
    public let seconds: Double
    public var description: String { "no result within \(seconds) s" }
}
