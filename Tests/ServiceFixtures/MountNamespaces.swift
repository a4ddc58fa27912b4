import Foundation

/// Whether this machine lets a test give a process a mount namespace of its own
/// (`unshare --mount --propagation private`), which the document tests use to hide a folder
/// from one device.
public enum MountNamespaces {
    /// Why a mount namespace cannot be made here, in the words of its real cause, or `nil`
    /// when one can: not root, or (as root) `/` not being a mount point, as in a chroot.
    public static var missingRequirement: String? {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--mount", "--propagation", "private", "true"]
        let errors = Pipe()
        probe.standardError = errors
        probe.standardOutput = FileHandle.nullDevice
        do {
            try probe.run()
        } catch {
            return "unshare cannot run here: \(error)"
        }
        probe.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard probe.terminationStatus != 0 else { return nil }
        guard geteuid() == 0 else { return "unshare --mount needs root, and the tests run as uid \(geteuid()): \(said)" }
        if said.contains("propagation") {
            return "unshare --mount fails as root because / is not a mount point here (a chroot?): \(said)"
        }
        return "unshare --mount fails as root: \(said)"
    }
}
