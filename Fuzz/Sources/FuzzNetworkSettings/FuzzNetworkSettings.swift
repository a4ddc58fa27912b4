import ArgumentParser
import BatonPeer
import Foundation
import FuzzSupport

// Covers batond's `batond.conf`: `NetworkSettings(options:directory:)` reading the GLib key
// file (`g_key_file_load_from_file`, the `[network]` keys `name`, `listen`, `peers`, `relays`) and
// checking each value. `batond` is an executable target, so NetworkSettings.swift and
// ConfigError.swift are compiled into this harness through symbolic links. A bad file
// must be a `ConfigError` (or, for the host name fallback, a `ValidationError`); good
// settings hold only checked values.

/// Stands in for `batond`'s command line (BatondOptions.swift needs the whole service): the
/// options `NetworkSettings` reads, none given, so every value comes from the file; no
/// machine-wide file (the user's and the machine's are read by the same code).
struct BatondOptions {
    var name: String?
    var listen: String?
    var peer: [String] = []
    var relay: [String] = []
    var machineConfigFile = Fuzz.scratch.appendingPathComponent("no-machine-\(NetworkSettings.fileName)")
}

@main
enum NetworkSettingsHarness: FuzzHarness {
    static func test(_ input: [UInt8]) {
        _ = Fuzz.scratchFile(NetworkSettings.fileName, holding: input)
        guard let settings = Fuzz.refused(as: ConfigError.self, or: ValidationError.self, "reading", {
            try NetworkSettings(options: BatondOptions(), directory: Fuzz.scratch)
        }) else { return }
        Fuzz.orFail("settings read from the file do not pass their own checks") {
            try NetworkSettings.checkName(settings.name)
            for peer in settings.peers { _ = try NetworkSettings.endpoint(peer, what: "peers") }
            if settings.isListenChosen {
                _ = try NetworkSettings.listenEndpoint("[\(settings.host)]:\(settings.port)", what: "listen")
            }
        }
        Fuzz.require(settings.peers == Array(Set(settings.peers)).sorted(), "peers are not sorted and unique")
        for relay in settings.relays {
            Fuzz.require((try? RelayAddress(relay.description)) == relay, "a relay that does not read back: \(relay)")
        }
    }
}

extension NetworkSettingsHarness {
    /// Settings files as docs/batond.md describes them, and a few broken ones.
    static func seeds() -> [String: [UInt8]] {
        let files: [String: String] = [
            "full.conf": """
                # batond's network settings
                [network]
                name=desk
                listen=0.0.0.0:48100
                peers=laptop.local:48100;192.168.1.20:48100;[fe80::1]:48100;
                relays=relay://relay.example.org:22067/?id=OOAYO63-YDKIQGI-B5YC7JV-4RADKSP-5ZVDZUN-V6BWMXW-ARB5GKE-EEQ4BQI&pingInterval=1m0s;

                """,
            "ipv6-listen.conf": "[network]\nlisten=[::]:0\nname=Büro “oben”\n",
            "other-groups.conf": "[ui]\ntheme=dark\n[network]\npeers= a:1 ; b:2\n[network]\nname=twice\n",
            "empty.conf": "",
            "bad-port.conf": "[network]\nlisten=0.0.0.0:99999\n",
            "not-a-key-file.conf": "name=desk\n",
            "escapes.conf": "[network]\nname=tab\\there\\s\\n\npeers=x\\;y:1\n",
        ]
        return files.mapValues { Array($0.utf8) }
    }
}
