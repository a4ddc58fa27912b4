import Foundation

/// Who is behind a connection on the bus, as the bus daemon vouches for it: the process id
/// and user id of the process that connected, and the program that process runs. A caller
/// cannot choose these, unlike the names and ids it passes in its calls.
public struct BusPeerCredentials: Hashable, Sendable {
    /// The connection's unique name, such as `:1.42`.
    public let busName: String
    public let pid: Int32
    public let uid: UInt32
    /// The program the process runs (``ProcessExecutable/path(of:)``), read just after the
    /// bus answered; `nil` when it cannot be read.
    public let executable: String?

    public init(busName: String, pid: Int32, uid: UInt32, executable: String?) {
        self.busName = busName
        self.pid = pid
        self.uid = uid
        self.executable = executable
    }

    /// Whether the process runs as the user of this process.
    public var isSameUser: Bool { uid == getuid() }
}

extension BusConnection {
    /// The credentials of the connection `busName` (a unique or well-known name), from the
    /// bus daemon's `GetConnectionCredentials`.
    ///
    /// - Throws: ``BusError``: the name has no owner, or the bus did not give a process id.
    public func peerCredentials(of busName: String, timeout: Double = 5) async throws -> BusPeerCredentials {
        let reply = try await call("org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", method: "GetConnectionCredentials",
                                   arguments: [.string(busName)], timeout: timeout)
        guard let record = reply.first?.dictionary,
              let pid = record["ProcessID"]?.integer, pid > 0, pid <= Int64(Int32.max),
              let uid = record["UnixUserID"]?.integer, uid >= 0, uid <= Int64(UInt32.max) else {
            throw BusError.failed("the bus did not say which process is behind \(busName)")
        }
        return BusPeerCredentials(busName: busName, pid: Int32(pid), uid: UInt32(uid),
                                  executable: ProcessExecutable.path(of: Int32(pid)))
    }
}
