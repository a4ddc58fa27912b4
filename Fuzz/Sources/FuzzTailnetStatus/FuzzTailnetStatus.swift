import BatonBus
import FuzzSupport
import Glibc

// Covers what tailscaled's LocalAPI answers `GET /localapi/v0/status` with, another process's
// output: the HTTP response (`HTTPResponse`) and the status JSON in it (`TailnetStatus`),
// read both from the response's body and from the input itself. `batond` is an executable
// target, so TailnetStatus.swift and HTTPResponse.swift are compiled into this harness
// through symbolic links. A bad status must be a `TailnetStatusError`; what is read must be
// only dialable addresses and clean, short names.

@main
enum TailnetStatusHarness: FuzzHarness {
    static func test(_ bytes: [UInt8]) {
        var bodies = [bytes]
        if let response = try? HTTPResponse(bytes) { bodies.append(response.body) }
        for body in bodies {
            if let status = Fuzz.refused(as: TailnetStatusError.self, "reading", { try TailnetStatus(json: body) }) {
                Fuzz.require(status.peers.count <= TailnetStatus.maximumPeers, "more peers than the limit")
                Fuzz.require(status.isRunning || status.peers.isEmpty, "peers of a tailscaled that is not connected")
                for peer in status.peers {
                    Fuzz.require(TailnetStatus.isAddress(peer.address, family: AF_INET) || TailnetStatus.isAddress(peer.address, family: AF_INET6),
                                 "an address that is not an IP address: \(peer.address)")
                    Fuzz.require(!peer.address.isEmpty && peer.address.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" },
                                 "an address with more than an IP address's characters: \(peer.address.debugDescription)")
                    Fuzz.require(peer.name.count <= TailnetStatus.maximumNameLength, "a name over the limit")
                    Fuzz.require(!UnsafeCharacters.occur(in: peer.name), "a name with unsafe characters")
                }
            }
        }
    }
}

extension TailnetStatusHarness {
    /// Status answers as tailscaled sends them, and broken ones.
    static func seeds() -> [String: [UInt8]] {
        let running = """
            {"Version":"1.76.1","BackendState":"Running","MagicDNSSuffix":"tail1234.ts.net",
             "Self":{"HostName":"desk","DNSName":"desk.tail1234.ts.net.","OS":"linux","Online":true,"UserID":123,"TailscaleIPs":["100.64.0.1","fd7a:115c:a1e0::1"]},
             "Peer":{"nodekey:01":{"HostName":"laptop","DNSName":"laptop.tail1234.ts.net.","OS":"linux","Online":true,"UserID":123,"TailscaleIPs":["100.64.0.5","fd7a:115c:a1e0::5"]},
                     "nodekey:04":{"HostName":"colleague","OS":"linux","Online":true,"UserID":456,"TailscaleIPs":["100.64.0.6"]},
                     "nodekey:05":{"HostName":"shared","OS":"linux","Online":true,"UserID":123,"ShareeNode":true,"TailscaleIPs":["100.64.0.8"]},
                     "nodekey:02":{"HostName":"pixel","OS":"android","Online":true,"TailscaleIPs":["100.64.0.7"]},
                     "nodekey:03":{"HostName":"","DNSName":"server.tail1234.ts.net.","Online":true,"TailscaleIPs":["fd7a:115c:a1e0::9"]}}}
            """
        let files: [String: String] = [
            "running.json": running,
            "stopped.json": "{\"BackendState\":\"Stopped\",\"Peer\":null}",
            "response.http": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + running,
            "wrong-types.json": "{\"BackendState\":\"Running\",\"Peer\":{\"k\":{\"Online\":\"yes\",\"TailscaleIPs\":[1,\"host\",\"1.2.3.4:5\"]}}}",
            "forbidden.http": "HTTP/1.1 403 Forbidden\r\n\r\naccess denied\n",
        ]
        return files.mapValues { Array($0.utf8) }
    }
}
