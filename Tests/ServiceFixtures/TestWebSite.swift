import Foundation

/// A web site for tests: a test certificate authority of its own, a certificate for its
/// names signed by it, and OpenSSL's `s_server -HTTP` serving files from a folder, each file
/// a whole HTTP response (status line, header, body) as ``serve(_:status:headers:body:)``
/// writes it. A path with no file gets a `200` with OpenSSL's error text, which is not JSON.
/// Run it on loopback (unit tests) or inside a network namespace (a host of its own, whose
/// name another namespace's `/etc/netns/NAME/hosts` gives: ``nameHosts(_:in:address:)``).
public final class TestWebSite {
    public let folder: URL
    /// The test authority's certificate (PEM): what batond is told to trust with `--trust-ca`.
    public let authorityFile: URL
    public let names: [String]
    private var server: ChildProcess?
    private var hostsFiles: [URL] = []

    /// Why the site cannot run here, or nil.
    public static var missingRequirement: String? {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") ? nil : "openssl is missing (Debian package openssl)"
    }

    /// Makes the authority and the site's certificate for `names`.
    public init(names: [String]) throws {
        self.names = names
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("www/.well-known"), withIntermediateDirectories: true)
        authorityFile = folder.appendingPathComponent("ca.pem")
        let extensions = "subjectAltName=" + names.map { "DNS:\($0)" }.joined(separator: ",") + "\nextendedKeyUsage=serverAuth\n"
        try extensions.write(to: folder.appendingPathComponent("site.ext"), atomically: true, encoding: .utf8)
        for step in [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
             "-out", "ca.pem", "-days", "2", "-subj", "/CN=Baton Test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "site.key",
             "-out", "site.csr", "-subj", "/CN=\(names[0])"],
            ["x509", "-req", "-in", "site.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "site.pem", "-days", "2", "-extfile", "site.ext"],
        ] {
            try Self.openssl(step, in: folder)
        }
    }

    /// Serves `body` at `path` with `status` and the header fields given.
    public func serve(_ path: String, status: String = "200 OK", headers: [String: String] = ["Content-Type": "application/json"],
                      body: String) throws {
        let file = folder.appendingPathComponent("www").appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let header = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
        try ("HTTP/1.0 \(status)\r\n" + header + "\r\n" + body).write(to: file, atomically: true, encoding: .utf8)
    }

    /// An association file listing `apps` (`TEAM.APPID`), as JSON.
    public static func associationFile(_ apps: [String]) -> String {
        let list = apps.map { "\"\($0)\"" }.joined(separator: ", ")
        return "{\"activitycontinuation\": {\"apps\": [\(list)]}, \"applinks\": {\"details\": []}}"
    }

    /// Starts OpenSSL's server on `port`, in `namespace` when given, and waits until it listens.
    public func start(port: UInt16, namespace: String? = nil) throws {
        stop()
        var command = ["/usr/bin/openssl", "s_server", "-accept", "\(port)", "-cert", "../site.pem", "-key", "../site.key", "-HTTP"]
        if let namespace { command = ["/usr/sbin/ip", "netns", "exec", namespace] + command }
        let child = try ChildProcess(URL(fileURLWithPath: command[0]), Array(command.dropFirst()),
                                     environment: ProcessInfo.processInfo.environment,
                                     logURL: folder.appendingPathComponent("server.log"),
                                     currentDirectory: folder.appendingPathComponent("www"))
        server = child
        guard waitUntil(timeout: 10, { child.log.contains("ACCEPT") || !child.isRunning }), child.isRunning else {
            throw FixtureError("openssl s_server did not start: \(child.log)")
        }
    }

    /// Stops the server: the site is unreachable.
    public func stop() {
        server?.stop(SIGKILL)
        _ = server?.waitForExit()
        server = nil
    }

    /// Gives the site's names `address` in namespace `namespace`: `ip netns exec` puts
    /// `/etc/netns/NAME/hosts` over `/etc/hosts` for what it starts.
    public func nameHosts(in namespace: String, address: String) throws {
        let folder = URL(fileURLWithPath: "/etc/netns/\(namespace)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("hosts")
        try ("127.0.0.1 localhost\n" + names.map { "\(address) \($0)\n" }.joined()).write(to: file, atomically: true, encoding: .utf8)
        hostsFiles.append(folder)
    }

    /// Stops the server and removes its files and the hosts files it wrote.
    public func remove() {
        stop()
        for folder in hostsFiles { try? FileManager.default.removeItem(at: folder) }
        hostsFiles = []
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        remove()
    }

    private static func openssl(_ arguments: [String], in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError("openssl \(arguments[0]) failed: \(text)") }
    }
}
