import BatonBus
import BatonGLib
import Foundation

/// What batond could establish about an app that registers.
enum AppIdentity: Equatable, Sendable {
    /// The caller is the app: the Flatpak of that id, or the program its desktop entry names.
    /// `evidence` says which, for the log.
    case verified(evidence: String)
    /// No Flatpak and no desktop entry of that id: nothing to check the caller against.
    case unverified

    var isVerified: Bool {
        if case .verified = self { return true }
        return false
    }
}

/// The programs a desktop entry names for its app: what a process registering under the
/// entry's id must run.
struct DesktopEntryPrograms: Equatable, Sendable {
    /// The entry's file.
    let path: String
    /// `Exec=`, as written.
    let exec: String?
    /// `TryExec=`, as written.
    let tryExec: String?
    /// For a `DBusActivatable=true` entry, the `Exec=` of the app's D-Bus service file.
    let serviceExec: String?

    /// The programs named, as written: `Exec`'s program, `TryExec`, the service's program.
    var programs: [String] {
        [exec.flatMap(ExecLine.program), tryExec.flatMap { $0.isEmpty ? nil : $0 },
         serviceExec.flatMap(ExecLine.program)].compactMap { $0 }
    }
}

/// What batond knows of a registering process, to decide its ``AppIdentity``.
struct IdentityEvidence: Sendable {
    /// The contents of the process's `/.flatpak-info` (`/proc/PID/root/.flatpak-info`);
    /// `nil` when it has none, as a host process does.
    var flatpakInfo: String?
    /// The program the process runs; `nil` when it cannot be read.
    var executable: String?
    /// The desktop entry of the app id it registers under; `nil` when none is installed.
    var entry: DesktopEntryPrograms?
}

/// The rules binding a registration to what the caller cannot choose.
///
/// - A sandboxed app (with `/.flatpak-info`) is verified when the `name=` of its
///   `[Application]` group is the app id, and refused otherwise.
/// - A host app whose app id has a desktop entry is verified when it runs the program the
///   entry's `Exec=` (past `env` and `VAR=value`), `TryExec=` or, for a D-Bus-activatable
///   entry, its D-Bus service file names, both sides resolved through `PATH` and `realpath`;
///   refused otherwise.
/// - Any other registration is accepted, unverified.
enum AppVerifier {
    /// Decides the identity of a caller registering as `appID`.
    ///
    /// - Throws: ``ServiceError/identityMismatch(_:)``, saying what differs.
    static func identity(of appID: String, evidence: IdentityEvidence, searchPath: String?) throws -> AppIdentity {
        if let info = evidence.flatpakInfo {
            guard let sandboxID = flatpakAppID(fromInfo: info) else {
                throw ServiceError.identityMismatch("the caller is a sandboxed app whose Flatpak info names no application")
            }
            guard sandboxID == appID else {
                throw ServiceError.identityMismatch(
                    "the caller is the Flatpak \(sandboxID), which may register only as itself, not as \(appID)")
            }
            return .verified(evidence: "Flatpak \(sandboxID)")
        }
        guard let entry = evidence.entry else { return .unverified }
        let programs = entry.programs
        guard !programs.isEmpty else {
            throw ServiceError.identityMismatch("the desktop entry \(entry.path) of \(appID) names no program to check the caller against")
        }
        guard let executable = evidence.executable else {
            throw ServiceError.identityMismatch("batond cannot tell which program the caller runs, so it cannot be \(appID)")
        }
        guard programs.contains(where: { ProcessExecutable.executable(executable, is: $0, searchPath: searchPath) }) else {
            throw ServiceError.identityMismatch(
                "the caller runs \(executable), but the desktop entry \(entry.path) of \(appID) names "
                    + programs.map { "\"\($0)\"" }.joined(separator: " or "))
        }
        return .verified(evidence: entry.path)
    }

    /// The application id of a Flatpak, from its `.flatpak-info`: `name=` in `[Application]`.
    static func flatpakAppID(fromInfo info: String) -> String? {
        guard let name = KeyFile(text: info)?.string("Application", "name"), !name.isEmpty else { return nil }
        return name
    }
}
