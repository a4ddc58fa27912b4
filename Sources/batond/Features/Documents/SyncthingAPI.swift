import BatonGLib
import BatonPeer
import Foundation
import Glibc

/// The Syncthing that runs for this user, reached through its REST API on this machine: the
/// address and API key come from its `config.xml` (`$XDG_STATE_HOME/syncthing` for
/// Syncthing 1.27 and later, `$XDG_CONFIG_HOME/syncthing` before), as the person set it up.
/// Only a plain HTTP GUI on a loopback address is used: batond never sends the key anywhere
/// else.
struct SyncthingAPI: Sendable {
    let host: String
    let port: UInt16
    let apiKey: String

    /// Seconds a request may wait on Syncthing: it answers on this machine in milliseconds,
    /// and the origin asks it within the other device's fetch timeout.
    static let timeout = 1

    /// The local Syncthing's API, when its configuration can be read and names a loopback
    /// HTTP address with a key.
    static func local() -> SyncthingAPI? {
        localConfiguration()?.config.api
    }

    /// The local Syncthing's configuration file and what batond reads of it, if there is one.
    static func localConfiguration() -> (file: URL, config: SyncthingConfig)? {
        for folder in [XDGDirectories.stateHome, XDGDirectories.configHome] {
            let file = folder.appendingPathComponent("syncthing/config.xml")
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            return (file, SyncthingConfig(text))
        }
        return nil
    }

    /// The folders it shares, by id, with their paths here.
    func folders() async throws -> [String: URL] {
        guard let list = try await json("/rest/config/folders") as? [[String: Any]] else {
            throw SyncthingError("Syncthing's folder list is not a list")
        }
        var folders: [String: URL] = [:]
        for folder in list {
            guard let id = folder["id"] as? String, var path = folder["path"] as? String, !path.isEmpty else { continue }
            if path.hasPrefix("~") { path = XDGDirectories.home.path + path.dropFirst() }
            folders[id] = URL(fileURLWithPath: path, isDirectory: true).resolvingSymlinksInPath()
        }
        return folders
    }

    /// Whether the folder is paused here (`paused` in its configuration).
    func isPaused(_ folderID: String) async throws -> Bool {
        let folder = try await json("/rest/config/folders/\(Self.escaped(folderID))") as? [String: Any]
        return folder?["paused"] as? Bool ?? false
    }

    /// The version vector of this device's copy of `path` in the folder (`DEVICE:COUNTER`).
    func localVersion(folderID: String, path: String) async throws -> [String] {
        let info = try await json("/rest/db/file?folder=\(Self.escaped(folderID))&file=\(Self.escaped(path))") as? [String: Any]
        let versions = (info?["local"] as? [String: Any])?["version"] as? [String] ?? []
        return versions
    }

    /// Where the file at `path` lies in a folder this Syncthing shares, if it does: the
    /// folder's id, the path inside it, and the version of this device's copy.
    func location(ofFileAt path: String) async throws -> PeerDocument.SyncthingLocation? {
        let file = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        for (id, folder) in try await folders().sorted(by: { $0.value.path.count > $1.value.path.count })
        where file.hasPrefix(folder.path + "/") {
            let relative = String(file.dropFirst(folder.path.count + 1))
            guard PeerDocument.isRelativePath(relative) else { return nil }
            return PeerDocument.SyncthingLocation(folderID: id, path: relative,
                                                  version: try await localVersion(folderID: id, path: relative))
        }
        return nil
    }

    /// The JSON a GET of `path` answers, read on a thread of its own.
    func json(_ path: String) async throws -> Any {
        let body = try await Task.detached { [self] in try get(path) }.value
        do {
            return try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        } catch {
            throw SyncthingError("Syncthing answered \(path) with something that is not JSON")
        }
    }

    /// One HTTP/1.0 GET with the API key, blocking: the whole body of a 200 answer.
    private func get(_ path: String) throws -> [UInt8] {
        let request = LocalHTTPRequest(endpoint: .tcp(host: host, port: port), timeout: Self.timeout,
                                       maximumResponse: Self.maximumResponse)
        let response: [UInt8]
        do {
            response = try request.send("GET \(path) HTTP/1.0\r\nHost: \(host):\(port)\r\nX-API-Key: \(apiKey)\r\nAccept: application/json\r\n\r\n")
        } catch {
            switch error.step {
            case .connect: throw SyncthingError("Syncthing is not answering on \(host):\(port): \(error.detail)")
            case .send: throw SyncthingError("cannot ask Syncthing: \(error.detail)")
            case .receive: throw SyncthingError("Syncthing did not answer in time: \(error.detail)")
            case .tooLarge: throw SyncthingError("Syncthing's answer is too large")
            }
        }
        return try Self.body(of: response, path: path)
    }

    /// The largest answer read.
    static let maximumResponse = 4 << 20

    /// The body of a `200` HTTP response.
    static func body(of response: [UInt8], path: String) throws -> [UInt8] {
        let parsed: HTTPResponse
        do {
            parsed = try HTTPResponse(response)
        } catch {
            throw SyncthingError("Syncthing's answer to \(path) is not HTTP")
        }
        guard parsed.status == 200 else {
            throw SyncthingError(parsed.status == 403 ? "Syncthing refused the API key" : "Syncthing answered \(path) with \(parsed.status) \(parsed.reason)")
        }
        return parsed.body
    }

    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/"))) ?? text
    }
}

/// What batond reads of Syncthing's `config.xml`: the GUI's address, whether it uses TLS,
/// and the API key.
struct SyncthingConfig {
    let api: SyncthingAPI?

    init(_ text: String) {
        guard let gui = Self.element("gui", in: text), !gui.attributes.contains("tls=\"true\""),
              let address = Self.element("address", in: gui.body)?.body,
              let key = Self.element("apikey", in: gui.body)?.body, !key.isEmpty,
              let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            api = nil
            return
        }
        var host = String(address[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        // Only loopback: the key never leaves this machine.
        api = host.hasPrefix("127.") ? SyncthingAPI(host: host, port: port, apiKey: key) : nil
    }

    /// The first element named `name`: its attributes as written, and the text inside it.
    private static func element(_ name: String, in text: String) -> (attributes: String, body: String)? {
        guard let open = text.range(of: "<\(name)"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex),
              let tagEnd = text.range(of: ">", range: open.upperBound..<close.lowerBound) else { return nil }
        let attributes = String(text[open.upperBound..<tagEnd.lowerBound])
        guard attributes.isEmpty || attributes.first == " " else { return nil }
        return (attributes, String(text[tagEnd.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Why Syncthing could not be asked.
struct SyncthingError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
