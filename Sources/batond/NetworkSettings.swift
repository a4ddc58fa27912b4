import ArgumentParser
import BatonBus
import BatonPeer
import CGLib
import Foundation

/// batond's network settings: the command line over the user's `batond.conf` over the
/// machine's (``machineFilePath``) over defaults; the device name the person chose
/// (`SetDeviceName`) comes between the command line and the files.
struct NetworkSettings {
    var name: String
    /// Whether `--name` gave the name, which then cannot be changed while batond runs.
    var isNameFixed: Bool
    var host: String
    var port: UInt16
    /// Whether the person chose the address (`--listen`, or `listen=` in their own file): a
    /// taken port then stops batond. The default, or the machine file's `listen=` (one port
    /// for every user of the machine, so the second one's is taken), falls back to a free one.
    var isListenChosen: Bool
    var peers: [String]
    /// Relay servers (`relay://HOST:PORT/?id=…`) through which paired devices that cannot
    /// be dialed are reached, and reach this one.
    var relays: [RelayAddress]

    static let defaultPort: UInt16 = 48_100
    static let fileName = "batond.conf"

    /// Where an administrator sets the network settings of every user of the machine, read
    /// before each user's own `batond.conf`: a key in the user's file replaces the same key here.
    static let machineFilePath = "/etc/baton/batond.conf"

    /// The largest `batond.conf` batond reads.
    static let maximumFileSize = 64 << 10

    /// Merges the options with the machine's config file (`options.machineConfigFile`) and
    /// then the user's in `directory`, key by key; `chosenName` is the name the person gave
    /// the device, already checked.
    ///
    /// - Throws: ``ConfigError`` naming the file and key for a bad file or value in it;
    ///   `ValidationError` for a bad option, or a host name that cannot be the device name.
    init(options: BatondOptions, directory: URL, chosenName: String? = nil) throws {
        let settings = try Self.readFiles([options.machineConfigFile, directory.appendingPathComponent(Self.fileName)])
        let file = settings.mapValues(\.values)
        /// Runs `check` on the value of `key`, naming the file it came from in its error.
        func checked<Value>(_ key: String, _ check: () throws -> Value) throws -> Value {
            do {
                return try check()
            } catch {
                throw ConfigError(settings[key]?.file ?? options.machineConfigFile, "\(error)")
            }
        }
        isNameFixed = options.name != nil
        if let name = options.name {
            try Self.checkName(name)
            self.name = name
        } else if let chosenName {
            name = chosenName
        } else if let name = file["name"]?.first {
            try checked("name") { try Self.checkName(name, what: "name") }
            self.name = name
        } else {
            let name = Self.hostName
            do {
                try Self.checkName(name)
            } catch {
                throw ValidationError("the host name \"\(Excerpt.of(name))\" cannot be this device's name (\(error)): "
                                      + "give one with --name or name= in \(Self.fileName)")
            }
            self.name = name
        }
        if let listen = options.listen {
            (host, port) = try Self.listenEndpoint(listen, what: "--listen")
            isListenChosen = true
        } else if let listen = file["listen"]?.first {
            (host, port) = try checked("listen") { try Self.listenEndpoint(listen, what: "listen") }
            isListenChosen = settings["listen"]?.file.path != options.machineConfigFile.path
        } else {
            (host, port) = ("0.0.0.0", Self.defaultPort)
            isListenChosen = false
        }
        let filePeers = file["peers"] ?? []
        for address in filePeers { _ = try checked("peers") { try Self.endpoint(address, what: "peers") } }
        peers = Array(Set(options.peer + filePeers)).sorted()
        var relays: [RelayAddress] = []
        for text in options.relay {
            do {
                relays.append(try RelayAddress(text))
            } catch {
                throw ValidationError("--relay: \(error)")
            }
        }
        for text in file["relays"] ?? [] {
            relays.append(try checked("relays") { try RelayAddress(text) })
        }
        self.relays = relays.reduce(into: []) { kept, relay in if !kept.contains(relay) { kept.append(relay) } }
    }

    /// The host name, which GLib reads from the system.
    static var hostName: String {
        guard let name = g_get_host_name() else { return "Linux device" }
        return String(cString: name)
    }

    /// Throws unless `name` can be sent in a hello: 1 to 255 bytes without
    /// ``UnsafeCharacters``, as other devices check it.
    static func checkName(_ name: String, what: String = "the device name") throws {
        guard !name.isEmpty, name.utf8.count <= 255, !UnsafeCharacters.occur(in: name) else {
            throw ValidationError("\(what) must be 1 to 255 bytes without control characters, bidirectional controls "
                                  + "or line separators")
        }
    }

    /// Splits `HOST:PORT` (`[V6]:PORT` for IPv6).
    static func endpoint(_ text: String, what: String) throws -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw ValidationError("\(what): \"\(Excerpt.of(text))\" is not HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw ValidationError("\(what): \"\(Excerpt.of(text))\" has no host")
        }
        return (host, port)
    }

    /// Splits an address to listen on: `IP:PORT`, a local address rather than a name.
    static func listenEndpoint(_ text: String, what: String) throws -> (host: String, port: UInt16) {
        let (host, port) = try endpoint(text, what: what)
        guard let address = g_inet_address_new_from_string(host) else {
            throw ValidationError("\(what): \"\(Excerpt.of(text))\" must be an IP address and port, such as 0.0.0.0:48100 or [::]:48100")
        }
        g_object_unref(UnsafeMutableRawPointer(address))
        return (host, port)
    }

    /// The `[network]` keys of the key files at `urls`, read in order, each with the file it
    /// came from: a key in a later file replaces the same key of an earlier one, whole (a
    /// later `relays=` empties the list).
    ///
    /// - Throws: ``ConfigError`` as ``readFile(_:)`` does, naming the file at fault.
    private static func readFiles(_ urls: [URL]) throws -> [String: (values: [String], file: URL)] {
        var settings: [String: (values: [String], file: URL)] = [:]
        for url in urls {
            for (key, values) in try readFile(url) { settings[key] = (values, url) }
        }
        return settings
    }

    /// The `[network]` keys of a GLib key file; none when there is no file.
    ///
    /// - Throws: ``ConfigError`` for a file that is not a regular file, is larger than
    ///   ``maximumFileSize`` or is not a key file.
    private static func readFile(_ url: URL) throws -> [String: [String]] {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            if errno == ENOENT { return [:] }
            throw ConfigError(url, String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw ConfigError(url, "not a regular file") }
        guard status.st_size <= maximumFileSize else {
            throw ConfigError(url, "larger than \(maximumFileSize >> 10) KiB: not a settings file")
        }
        let keyFile = g_key_file_new()
        defer { g_key_file_free(keyFile) }
        var error: UnsafeMutablePointer<GError>?
        guard g_key_file_load_from_file(keyFile, url.path, G_KEY_FILE_NONE, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unreadable"
            g_clear_error(&error)
            throw ConfigError(url, "not a key file: \(message)")
        }
        var values: [String: [String]] = [:]
        for key in ["name", "listen"] {
            if let value = g_key_file_get_string(keyFile, "network", key, nil) {
                values[key] = [String(cString: value)]
                g_free(value)
            }
        }
        var count: gsize = 0
        for key in ["peers", "relays"] {
            if let list = g_key_file_get_string_list(keyFile, "network", key, &count, nil) {
                values[key] = (0..<Int(count)).compactMap { list[$0].map { String(cString: $0) } }
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                g_strfreev(list)
            }
        }
        return values
    }
}
