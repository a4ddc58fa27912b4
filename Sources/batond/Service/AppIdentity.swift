import BatonBus
import BatonGLib
import Foundation

/// What batond could establish about an app that registers: whether the caller is the app of
/// the id it gives, and which claims its desktop entry backs.
struct AppIdentity: Equatable, Sendable {
    /// Whether the caller is the app: the Flatpak of that id, or the program its desktop entry
    /// names.
    let isVerified: Bool
    /// What verified it (`Flatpak org.example.Mail`, the entry's path), or why it is not
    /// verified (`no desktop entry`, `runs /x but its entry names /y`).
    let detail: String
    /// The team id and activity types the app's desktop entry declares: a verified app is
    /// verified for these claims and no others.
    let declaredClaims: DeclaredClaims?

    /// A caller that proved to be the app, by `evidence`.
    static func verified(evidence: String, declaring claims: DeclaredClaims? = nil) -> AppIdentity {
        AppIdentity(isVerified: true, detail: evidence, declaredClaims: claims)
    }

    /// Why an app without a desktop entry of its id is not verified.
    static let noEntryDetail = "no desktop entry"

    /// A caller batond could not tie to the app, for `reason`.
    static func unverified(_ reason: String) -> AppIdentity {
        AppIdentity(isVerified: false, detail: reason, declaredClaims: nil)
    }

    /// The activity types of a registration claiming `activityTypes` for `teamID` that this
    /// identity backs: those its entry declares, for the team its entry declares; none when
    /// the caller is not verified or claims another team.
    func verifiedActivityTypes(teamID: String, activityTypes: some Sequence<String>) -> Set<String> {
        guard isVerified, let declaredClaims, declaredClaims.teamID == teamID else { return [] }
        return Set(activityTypes).intersection(declaredClaims.activityTypes)
    }
}

/// The claims a desktop entry declares: `X-Baton-TeamID` and `X-Baton-ActivityTypes`.
struct DeclaredClaims: Equatable, Sendable {
    let teamID: String
    let activityTypes: Set<String>

    /// The claims of the two keys' values, as written; `nil` unless there is a team id and at
    /// least one valid activity type.
    init?(teamID: String?, activityTypes: String?) {
        guard let teamID, !teamID.isEmpty, let activityTypes else { return nil }
        let types = activityTypes.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && (try? ActivitySummary.checkActivityType($0)) != nil }
        guard !types.isEmpty else { return nil }
        self.teamID = teamID
        self.activityTypes = Set(types)
    }
}

/// What a desktop entry says about its app that binds a registration: the programs a process
/// registering under the entry's id must run, and the claims the entry declares.
struct DesktopEntryPrograms: Equatable, Sendable {
    /// The entry's file.
    let path: String
    /// `Exec=`, as written.
    let exec: String?
    /// `TryExec=`, as written.
    let tryExec: String?
    /// For a `DBusActivatable=true` entry, the `Exec=` of the app's D-Bus service file.
    let serviceExec: String?
    /// `X-Baton-TeamID` and `X-Baton-ActivityTypes`; `nil` when the entry declares none.
    var claims: DeclaredClaims? = nil

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
    /// The arguments it was started with, past its program, and the folder it works in:
    /// which script an interpreter runs. `nil` when they cannot be read.
    var arguments: [String]? = nil
    var workingDirectory: String? = nil
    /// The desktop entry of the app id it registers under (a Flatpak's exported one
    /// included); `nil` when none is installed.
    var entry: DesktopEntryPrograms?
}

/// The rules binding a registration to what the caller cannot choose.
///
/// - A sandboxed app (with `/.flatpak-info`) is verified when the `name=` of its
///   `[Application]` group is the app id and the team it registers is a reverse-DNS prefix
///   of that id (`org.example` for `org.example.Mail`, or the id itself), and refused
///   otherwise: it can never be another app, nor speak for another team.
/// - A host app whose app id has a desktop entry is verified when it runs the program the
///   entry's `Exec=` (past `env` and `VAR=value`), `TryExec=` or, for a D-Bus-activatable
///   entry, its D-Bus service file names, both sides resolved through `PATH` and `realpath`.
///   Otherwise (a wrapper script, a snap, an impostor) it registers unverified. Where the
///   program it matched is an interpreter given a script (``EntryRun``), the process must
///   also have been started on that script (`/proc/PID/cmdline`), so that another script of
///   the same interpreter is not the app.
/// - Any other registration is accepted, unverified.
///
/// A verified app is verified only for the claims its entry declares
/// (``AppIdentity/verifiedActivityTypes(teamID:activityTypes:)``).
enum AppVerifier {
    /// Decides the identity of a caller registering as `appID` for team `teamID`.
    ///
    /// - Throws: ``ServiceError/identityMismatch(_:)`` for a Flatpak registering under
    ///   another id or for a team its id does not start with, or one whose Flatpak info
    ///   names none.
    static func identity(of appID: String, teamID: String, evidence: IdentityEvidence,
                         searchPath: String?) throws -> AppIdentity {
        let claims = evidence.entry?.claims
        if let info = evidence.flatpakInfo {
            guard let sandboxID = flatpakAppID(fromInfo: info) else {
                throw ServiceError.identityMismatch("the caller is a sandboxed app whose Flatpak info names no application")
            }
            guard sandboxID == appID else {
                throw ServiceError.identityMismatch(
                    "the caller is the Flatpak \(sandboxID), which may register only as itself, not as \(appID)")
            }
            guard isReverseDNSPrefix(teamID, of: sandboxID) else {
                throw ServiceError.identityMismatch(
                    "the caller is the Flatpak \(sandboxID), which may register only a team its id starts with (such as \(sandboxID.split(separator: ".").dropLast().joined(separator: "."))), not \(teamID)")
            }
            return .verified(evidence: "Flatpak \(sandboxID)", declaring: claims)
        }
        guard let entry = evidence.entry else { return .unverified(AppIdentity.noEntryDetail) }
        let programs = entry.programs
        guard !programs.isEmpty else { return .unverified("its desktop entry \(entry.path) names no program") }
        guard let executable = evidence.executable else {
            return .unverified("batond cannot tell which program it runs")
        }
        let matching = entry.runs(searchPath: searchPath)
            .filter { ProcessExecutable.executable(executable, is: $0.program, searchPath: searchPath) }
        guard !matching.isEmpty else {
            return .unverified("runs \(executable) but its entry names " + programs.joined(separator: " or "))
        }
        let scripts = matching.compactMap(\.script)
        guard scripts.isEmpty || scripts.contains(where: {
            runs($0, arguments: evidence.arguments ?? [], workingDirectory: evidence.workingDirectory)
        }) else {
            let running = evidence.arguments.flatMap(ExecLine.firstOperand)
            return .unverified("runs \(executable) on \(running ?? "no script") but its entry names "
                               + scripts.map { "\(executable) on \($0)" }.joined(separator: " or "))
        }
        return .verified(evidence: entry.path, declaring: claims)
    }

    /// Whether `team` is `appID` or one of its reverse-DNS prefixes, whole labels only:
    /// `org.example` and `org.example.Mail` for `org.example.Mail`, never `org.ex`.
    static func isReverseDNSPrefix(_ team: String, of appID: String) -> Bool {
        !team.isEmpty && (team == appID || appID.hasPrefix(team + "."))
    }

    /// The application id of a Flatpak, from its `.flatpak-info`: `name=` in `[Application]`.
    static func flatpakAppID(fromInfo info: String) -> String? {
        guard let name = KeyFile(text: info)?.string("Application", "name"), !name.isEmpty else { return nil }
        return name
    }
}
