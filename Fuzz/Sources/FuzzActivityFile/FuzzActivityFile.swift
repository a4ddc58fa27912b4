import Baton
import BatonBus
import Foundation
import FuzzSupport

// Covers the activity JSON of `baton continue --file` and `baton offer --file`:
// `ActivityFile.load(_:)` (JSONSerialization, then JSONDecoder and `UserInfoValue`'s
// Decodable, and `JSONErrorPlace` for the message), then `encodedPayload()`. `baton` is an
// executable target, so ActivityFile.swift and JSONErrorPlace.swift are compiled into this
// harness through symbolic links. A bad file must be a `CommandFailure`; a payload made
// from a good one must decode to the same activity.

/// Stands in for `baton`'s own (in ServiceProxy.swift, which needs the rest of the tool):
/// the error `ActivityFile` throws.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

@main
enum ActivityFileHarness: FuzzHarness {
    static func test(_ input: [UInt8]) {
        let file = Fuzz.scratchFile("activity.json", holding: input)
        guard let activity = Fuzz.refused(as: CommandFailure.self, "loading", { try ActivityFile.load(file.path) })
        else { return }
        _ = activity.options
        guard let bytes = Fuzz.refused(as: CommandFailure.self, "encoding", { try activity.encodedPayload() }) else { return }
        Fuzz.orFail("the file's payload does not decode") {
            let payload = try UserActivityPayload(decoding: Data(bytes))
            Fuzz.require(payload.activityType == activity.type && payload.title == activity.title
                         && payload.webpageURL?.absoluteString == activity.webpageURL.flatMap { URL(string: $0)?.absoluteString },
                         "the payload is not the file's activity")
            Fuzz.require(try payload.encoded() == Data(bytes), "the file's payload does not decode to itself")
        }
    }
}

extension ActivityFileHarness {
    /// Activity files as `baton inspect --json` prints them and docs/batond.md shows them, and a
    /// few broken ones.
    static func seeds() -> [String: [UInt8]] {
        let files: [String: String] = [
            "readme.json": """
                {"type": "org.example.mail.compose", "title": "Draft: Lunch",
                 "userInfo": {"to": "bob@example.org"}, "webpageURL": "https://mail.example.org/",
                 "teamID": "org.example"}
                """,
            "type-only.json": #"{"type":"org.example.note"}"#,
            "inspect.json": """
                {
                  "appID" : "org.example.MailComposer",
                  "eligible" : true,
                  "expirationDate" : 2000000000.5,
                  "keywords" : [],
                  "teamID" : "org.example",
                  "title" : "Draft: \\u00e9t\\u00e9",
                  "type" : "org.example.mail.compose",
                  "userInfo" : {
                    "body" : "Noon?\\nAlice",
                    "cursor" : 5,
                    "flags" : [true, false, null, 1.5e3, -7],
                    "nested" : {"a" : {"b" : []}}
                  },
                  "webpageURL" : "https://mail.example.org/drafts/1"
                }
                """,
            "not-an-object.json": #"["org.example.note"]"#,
            "missing-type.json": #"{"title": "no type"}"#,
            "bad-field.json": #"{"type": "org.example.note", "userInfo": {"x": {"y": [1, "two", {"z": 3e400}]}}}"#,
            "truncated.json": #"{"type": "org.example.note", "title": "cut"#,
            "control.json": "{\"type\": \"org.example.\\u001b[2Jnote\"}",
        ]
        return files.mapValues { Array($0.utf8) }
    }
}
