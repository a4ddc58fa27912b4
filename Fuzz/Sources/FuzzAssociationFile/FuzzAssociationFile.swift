import Foundation
import FuzzSupport

// Covers what a web site sends: its HTTP response (`HTTPResponse`, which Syncthing's
// answers go through too) and its association file (`AssociationFile(bytes:)`: JSON with
// `activitycontinuation.apps`), and the domain claims of a desktop entry
// (`DomainClaim.parse`), all from outside batond. `batond` is an executable target, so
// HTTPResponse.swift, AssociationFile.swift and DomainClaim.swift are compiled into this
// harness through symbolic links. A bad file must be an `AssociationFileError`, a bad
// response an `HTTPResponseError`; what is read must pass its own checks.

@main
enum AssociationFileHarness: FuzzHarness {
    static func test(_ bytes: [UInt8]) {
        if let response = Fuzz.refused(as: HTTPResponseError.self, "reading a response", { try HTTPResponse(bytes) }) {
            Fuzz.require((100...599).contains(response.status), "a status out of range: \(response.status)")
            Fuzz.require(response.body.count + 4 <= bytes.count, "a body longer than the response")
            Fuzz.require(response.headers.keys.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty }, "a header name not lowercased")
            if let age = response.maximumAge { Fuzz.require(age >= 0, "a negative max-age") }
        }
        if let file = Fuzz.refused(as: AssociationFileError.self, "reading", { try AssociationFile(bytes: bytes) }) {
            Fuzz.require(file.apps.count <= AssociationFile.maximumApps, "more apps than the limit")
            for app in file.apps {
                let dot = app.firstIndex(of: ".")
                Fuzz.require(dot != nil, "an entry without a dot: \(app)")
                if let dot {
                    Fuzz.require(file.allows(appID: String(app[app.index(after: dot)...]), teamID: String(app[..<dot])),
                                 "the file does not allow its own entry \(app)")
                }
            }
        }
        let (claims, _) = DomainClaim.parse(String(decoding: bytes, as: UTF8.self))
        for claim in claims {
            Fuzz.require(DomainClaim.isHostName(claim.domain), "a claim that is not a host name: \(claim)")
            Fuzz.require(DomainClaim(claim.description) == claim, "a claim that does not read back: \(claim)")
            Fuzz.require(claim.isWildcard || claim.matches(host: claim.domain), "a claim that does not match its own domain: \(claim)")
        }
    }
}

extension AssociationFileHarness {
    /// Association files as sites serve them, domain lists as entries write them, and broken ones.
    static func seeds() -> [String: [UInt8]] {
        let files: [String: String] = [
            "apple.json": """
                {"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.com.example.Mail", "paths": ["*"]}]},
                 "activitycontinuation": {"apps": ["ABCDE12345.com.example.Mail"]}}
                """,
            "baton.json": "{\"activitycontinuation\": {\"apps\": [\"org.example.org.example.MailComposer\"]}}",
            "wrong-type.json": "{\"activitycontinuation\": {\"apps\": [1, null, {}]}}",
            "domains.txt": "mail.example.org;*.example.net; Bad Domain ;localhost;192.168.1.4;",
            "not-json.txt": "<html>404</html>",
            "response.http": "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nCache-Control: public, max-age=3600\r\n\r\n{\"activitycontinuation\": {\"apps\": []}}",
            "redirect.http": "HTTP/1.1 301 Moved\r\nLocation: https://elsewhere.example/\r\nCache-Control: no-store\r\n\r\n",
        ]
        return files.mapValues { Array($0.utf8) }
    }
}
