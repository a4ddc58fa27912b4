import ArgumentParser
import CGLib
import Foundation

/// batond's network settings: the command line over `batond.conf` over defaults.
struct NetworkSettings {
    var name: String
    var host: String
    var port: UInt16
    /// Whether the address was chosen (a taken default port falls back to a free one).
    var isListenChosen: Bool
    var peers: [String]

    static let defaultPort: UInt16 = 48_100
    static let fileName = "batond.conf"

    /// Merges the options with the config file in `directory`.
    ///
    /// - Throws: `ValidationError` naming the file and key for a bad value.
    init(options: BatondOptions, directory: URL) throws {
        let file = try Self.readFile(directory.appendingPathComponent(Self.fileName))
        let name = options.name ?? file["name"]?.first ?? Self.hostName
        try Self.checkName(name)
        self.name = name
        if let listen = options.listen ?? file["listen"]?.first {
            (host, port) = try Self.listenEndpoint(listen, what: options.listen != nil ? "--listen" : "listen in \(Self.fileName)")
            isListenChosen = true
        } else {
            (host, port) = ("0.0.0.0", Self.defaultPort)
            isListenChosen = false
        }
        let filePeers = file["peers"] ?? []
        for address in filePeers { _ = try Self.endpoint(address, what: "peers in \(Self.fileName)") }
        peers = Array(Set(options.peer + filePeers)).sorted()
    }

    /// The host name, which GLib reads from the system.
    static var hostName: String {
        guard let name = g_get_host_name() else { return "Linux device" }
        return String(cString: name)
    }

    static func checkName(_ name: String) throws {
        guard !name.isEmpty, name.utf8.count <= 255,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError("the device name must be 1 to 255 printable characters")
        }
    }

    /// Splits `HOST:PORT` (`[V6]:PORT` for IPv6).
    static func endpoint(_ text: String, what: String) throws -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw ValidationError("\(what): \"\(text)\" is not HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw ValidationError("\(what): \"\(text)\" has no host")
        }
        return (host, port)
    }

    /// Splits an address to listen on: `IP:PORT`, a local address rather than a name.
    static func listenEndpoint(_ text: String, what: String) throws -> (host: String, port: UInt16) {
        let (host, port) = try endpoint(text, what: what)
        guard let address = g_inet_address_new_from_string(host) else {
            throw ValidationError("\(what): \"\(text)\" must be an IP address and port, such as 0.0.0.0:48100 or [::]:48100")
        }
        g_object_unref(UnsafeMutableRawPointer(address))
        return (host, port)
    }

    /// The `[network]` keys of a GLib key file; none when there is no file.
    private static func readFile(_ url: URL) throws -> [String: [String]] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        let keyFile = g_key_file_new()
        defer { g_key_file_free(keyFile) }
        var error: UnsafeMutablePointer<GError>?
        guard g_key_file_load_from_file(keyFile, url.path, G_KEY_FILE_NONE, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unreadable"
            g_clear_error(&error)
            throw ValidationError("\(url.path): \(message)")
        }
        var values: [String: [String]] = [:]
        for key in ["name", "listen"] {
            if let value = g_key_file_get_string(keyFile, "network", key, nil) {
                values[key] = [String(cString: value)]
                g_free(value)
            }
        }
        var count: gsize = 0
        if let list = g_key_file_get_string_list(keyFile, "network", "peers", &count, nil) {
            values["peers"] = (0..<Int(count)).compactMap { list[$0].map { String(cString: $0) } }
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            g_strfreev(list)
        }
        return values
    }
}
