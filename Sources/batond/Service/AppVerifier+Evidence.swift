import BatonGLib
import Foundation

extension AppVerifier {
    /// The most of a `.flatpak-info` batond reads.
    static let maximumFlatpakInfoSize = 64 * 1024

    /// Gathers what `/proc` and the installed desktop entries say about a caller registering
    /// as `appID`.
    static func evidence(for credentials: BusPeerCredentials, appID: String) -> IdentityEvidence {
        IdentityEvidence(flatpakInfo: flatpakInfo(ofProcess: credentials.pid), executable: credentials.executable,
                         arguments: ProcessExecutable.arguments(of: credentials.pid),
                         workingDirectory: ProcessExecutable.workingDirectory(of: credentials.pid),
                         entry: InstalledApps.entryPrograms(of: appID))
    }

    /// The contents of the process's `/.flatpak-info`, seen through `/proc/PID/root`; `nil`
    /// when it has none, empty when it has one batond cannot read.
    static func flatpakInfo(ofProcess pid: Int32) -> String? {
        let path = "/proc/\(pid)/root/.flatpak-info"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maximumFlatpakInfoSize)) ?? nil
        return String(decoding: data ?? Data(), as: UTF8.self)
    }
}
