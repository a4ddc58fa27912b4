import BatonGLib

/// One thing `baton doctor` checks: what it found and, when something is wrong, one line of
/// what to do. batond's `Diagnose` returns them as records; `baton` and the Baton app add
/// the checks only the client side can make (``ServiceSetupChecks``).
public struct DiagnosticCheck: Sendable, Equatable {
    /// What was checked, such as `"listening"` or `"device beta"`.
    public let check: String
    public let ok: Bool
    /// What was found.
    public let detail: String
    /// One line of what to do; empty when the check passed.
    public let fix: String

    public static func pass(_ check: String, _ detail: String) -> DiagnosticCheck {
        DiagnosticCheck(check: check, ok: true, detail: detail, fix: "")
    }

    public static func fail(_ check: String, _ detail: String, fix: String) -> DiagnosticCheck {
        DiagnosticCheck(check: check, ok: false, detail: detail, fix: fix)
    }

    public init(check: String, ok: Bool, detail: String, fix: String) {
        (self.check, self.ok, self.detail, self.fix) = (check, ok, detail, fix)
    }

    /// Reads a `Diagnose` record; missing fields read as a failed check named `?`.
    public init(record: [String: BusValue]) {
        self.init(check: record["check"]?.string ?? "?", ok: record["ok"]?.bool ?? false,
                  detail: record["detail"]?.string ?? "", fix: record["fix"]?.string ?? "")
    }

    /// The record `Diagnose` carries: `check`, `ok`, `detail` and `fix`.
    public var record: [String: BusValue] {
        ["check": .string(check), "ok": .bool(ok), "detail": .string(detail), "fix": .string(fix)]
    }
}
