import Baton
import BatonTesting
import Foundation
import XCTest

private struct Draft: Codable, Equatable {
    struct Attachment: Codable, Equatable {
        var name: String
        var bytes: Data
    }

    var to: String
    var cursor: Int
    var ratio: Double
    var urgent: Bool
    var savedAt: Date
    var signature: Data
    var link: URL
    var id: UUID
    var cc: [String]
    var note: String?
    var attachment: Attachment
}

private struct Stamped: Codable, Equatable {
    var when: Date
    var blob: Data
    var site: URL
    var token: UUID
}

@MainActor
final class UserActivityTests: XCTestCase {

    // MARK: Defaults and constants

    func testDefaults() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.defaults", center: center)
        XCTAssertEqual(activity.activityType, "test.defaults")
        XCTAssertNil(activity.title)
        XCTAssertEqual(activity.userInfo, [:])
        XCTAssertNil(activity.requiredUserInfoKeys)
        XCTAssertFalse(activity.needsSave)
        XCTAssertNil(activity.webpageURL)
        XCTAssertNil(activity.expirationDate)
        XCTAssertEqual(activity.keywords, [])
        XCTAssertTrue(activity.isEligibleForHandoff)
        XCTAssertFalse(activity.supportsContinuationStreams)
        XCTAssertNil(activity.delegate)
        XCTAssertTrue(activity.isValid)
        XCTAssertFalse(activity.isCurrent)
        XCTAssertTrue(activity.center === center)
    }

    func testConstants() async throws {
        XCTAssertEqual(UserActivity.documentURLKey, "NSUserActivityDocumentURL")
        XCTAssertEqual(UserActivity.browsingWebType, "NSUserActivityTypeBrowsingWeb")
        XCTAssertEqual(UserActivity.maximumUserInfoSize, 64 * 1024)
    }

    func testDelegateIsHeldWeakly() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.weak", center: center)
        do {
            let delegate = RecordingActivityDelegate()
            activity.delegate = delegate
            XCTAssertNotNil(activity.delegate)
        }
        XCTAssertNil(activity.delegate)
    }

    /// The service names the device that continued an activity: a delegate that only knows
    /// `userActivityWasContinued` hears it all the same, and one that wants the device gets it.
    func testWasContinuedOnADeviceReachesEitherDelegateMethod() async throws {
        @MainActor final class WhereDelegate: UserActivityDelegate {
            var devices: [String] = []
            func userActivity(_ userActivity: UserActivity, wasContinuedOn device: String) { devices.append(device) }
        }
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.where", center: center)
        let plain = RecordingActivityDelegate()
        activity.delegate = plain
        center.reportContinued(activity, on: "Study desktop")
        center.reportContinued(activity)
        XCTAssertEqual(plain.wasContinuedCount, 2, "the plain method hears both")
        let wanting = WhereDelegate()
        activity.delegate = wanting
        center.reportContinued(activity, on: "Study desktop")
        XCTAssertEqual(wanting.devices, ["Study desktop"])
    }

    // MARK: Webpage URL

    func testSetWebpageURLAcceptsAbsoluteHTTPAndHTTPS() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: UserActivity.browsingWebType, center: center)
        for text in [
            "http://example.org",
            "https://example.org/",
            "https://mail.example.org:8443/compose?draft=12#body",
            "HTTPS://EXAMPLE.ORG/upper",
            "http://127.0.0.1/local",
            "https://user@example.org/with-user",
        ] {
            let url = try XCTUnwrap(URL(string: text), text)
            try activity.setWebpageURL(url)
            XCTAssertEqual(activity.webpageURL, url, text)
        }
    }

    func testSetWebpageURLRejectsOtherSchemesAndRelativeURLs() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.web", center: center)
        let good = try XCTUnwrap(URL(string: "https://example.org/kept"))
        try activity.setWebpageURL(good)

        var rejected = [
            "ftp://example.org/file",
            "file:///etc/passwd",
            "mailto:bob@example.org",
            "javascript:alert(1)",
            "data:text/html,hello",
            "/relative/path",
            "relative/path.html",
            "example.org/page",
            "//example.org/no-scheme",
            "http:///no-host",
            "https:",
            "http:example.org",
        ].compactMap { URL(string: $0) }
        rejected.append(URL(fileURLWithPath: "/tmp/local.html"))
        XCTAssertGreaterThanOrEqual(rejected.count, 10)

        for url in rejected {
            let error = catchUserActivityError { try activity.setWebpageURL(url) }
            XCTAssertEqual(error, .invalidWebpageURL(url.absoluteString), url.absoluteString)
            XCTAssertEqual(error?.isInvalidWebpageURL, true, url.absoluteString)
            XCTAssertEqual(activity.webpageURL, good, "activity unchanged after \(url)")
        }
    }

    func testSetWebpageURLNilClears() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.web", center: center)
        try activity.setWebpageURL(XCTUnwrap(URL(string: "https://example.org")))
        XCTAssertNotNil(activity.webpageURL)
        try activity.setWebpageURL(nil)
        XCTAssertNil(activity.webpageURL)
    }

    func testSummaryChangesOfCurrentActivityAreReported() async throws {
        let (center, _) = ResponderChainBuilder.center()
        var events: [String] = []
        let observation = center.addObserver { events.append($0.name) }
        defer { observation.cancel() }
        let activity = UserActivity(activityType: "test.summary", center: center)
        activity.title = "not current yet"
        XCTAssertEqual(events, [])
        activity.becomeCurrent()
        activity.title = "Draft"
        try activity.setWebpageURL(XCTUnwrap(URL(string: "https://example.org")))
        activity.expirationDate = Date(timeIntervalSinceReferenceDate: 1)
        XCTAssertEqual(events, ["current", "changed", "changed", "changed"])
    }

    // MARK: userInfo

    func testAddUserInfoEntriesMergesAndNewKeysWin() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.merge", center: center)
        activity.userInfo = ["keep": 1, "replace": "old"]
        activity.addUserInfoEntries(from: ["replace": "new", "add": true])
        XCTAssertEqual(activity.userInfo, ["keep": 1, "replace": "new", "add": true])
        activity.addUserInfoEntries(from: [:])
        XCTAssertEqual(activity.userInfo.count, 3)
    }

    func testLiterals() async throws {
        let string: UserInfoValue = "text"
        let int: UserInfoValue = 42
        let double: UserInfoValue = 2.5
        let bool: UserInfoValue = true
        let array: UserInfoValue = [1, "two", 3.0, false, nil]
        let dictionary: UserInfoValue = ["to": "bob@example.org", "cursor": 42]
        let null: UserInfoValue = nil
        XCTAssertEqual(string, .string("text"))
        XCTAssertEqual(int, .int(42))
        XCTAssertEqual(double, .double(2.5))
        XCTAssertEqual(bool, .bool(true))
        XCTAssertEqual(array, .array([.int(1), .string("two"), .double(3.0), .bool(false), .null]))
        XCTAssertEqual(dictionary, .dictionary(["to": .string("bob@example.org"), "cursor": .int(42)]))
        XCTAssertEqual(null, .null)
        XCTAssertTrue(null.isNull)

        let userInfo: [String: UserInfoValue] = ["to": "bob@example.org", "cursor": 42]
        XCTAssertEqual(userInfo["cursor"]?.intValue, 42)

        let repeated = UserInfoValue(dictionaryLiteral: ("k", 1), ("k", 2))
        XCTAssertEqual(repeated, .dictionary(["k": .int(2)]), "the last value of a repeated key wins")
    }

    func testTypedAccessors() async throws {
        let url = try XCTUnwrap(URL(string: "https://example.org/a"))
        let uuid = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        XCTAssertEqual(UserInfoValue.string("s").stringValue, "s")
        XCTAssertNil(UserInfoValue.int(1).stringValue)
        XCTAssertEqual(UserInfoValue.int(7).intValue, 7)
        XCTAssertNil(UserInfoValue.double(7).intValue)
        XCTAssertEqual(UserInfoValue.int(7).doubleValue, 7.0)
        XCTAssertEqual(UserInfoValue.double(0.5).doubleValue, 0.5)
        XCTAssertEqual(UserInfoValue.bool(false).boolValue, false)
        XCTAssertNil(UserInfoValue.int(0).boolValue)
        XCTAssertEqual(UserInfoValue.date(date).dateValue, date)
        XCTAssertEqual(UserInfoValue.data(Data([1, 2])).dataValue, Data([1, 2]))
        XCTAssertEqual(UserInfoValue.url(url).urlValue, url)
        XCTAssertEqual(UserInfoValue.string("https://example.org/a").urlValue, url)
        XCTAssertNil(UserInfoValue.string("no scheme here").urlValue)
        XCTAssertEqual(UserInfoValue.uuid(uuid).uuidValue, uuid)
        XCTAssertEqual(UserInfoValue.string(uuid.uuidString).uuidValue, uuid)
        XCTAssertNil(UserInfoValue.string("not-a-uuid").uuidValue)
        XCTAssertEqual(UserInfoValue.array([1]).arrayValue, [1])
        XCTAssertEqual(UserInfoValue.dictionary(["a": 1]).dictionaryValue, ["a": 1])
        XCTAssertFalse(UserInfoValue.int(0).isNull)
    }

    // MARK: Codable bridge

    func testEncodeDecodeUserInfoRoundTripsRichFields() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.codable", center: center)
        let draft = Draft(
            to: "bob@example.org", cursor: -12, ratio: 0.375, urgent: true,
            savedAt: Date(timeIntervalSinceReferenceDate: 752_000_123.456_789),
            signature: Data([0, 1, 2, 0xFE, 0xFF]),
            link: try XCTUnwrap(URL(string: "https://example.org/drafts/12?x=1#top")),
            id: try XCTUnwrap(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
            cc: ["carol@example.org", "dan@example.org"], note: nil,
            attachment: .init(name: "a.png", bytes: Data(repeating: 0xAB, count: 33)))
        try activity.encodeUserInfo(draft)
        XCTAssertEqual(activity.userInfo["to"], "bob@example.org")
        XCTAssertEqual(activity.userInfo["cursor"], -12)
        XCTAssertEqual(activity.userInfo["urgent"], true)
        XCTAssertNil(activity.userInfo["note"], "nil optionals add no key")
        XCTAssertEqual(activity.userInfo["id"]?.stringValue, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        XCTAssertEqual(activity.userInfo["link"]?.stringValue, "https://example.org/drafts/12?x=1#top")
        XCTAssertEqual(activity.userInfo["signature"]?.stringValue, Data([0, 1, 2, 0xFE, 0xFF]).base64EncodedString())
        XCTAssertEqual(activity.userInfo["savedAt"]?.doubleValue, 752_000_123.456_789)
        XCTAssertNotNil(activity.userInfo["attachment"]?.dictionaryValue)

        let decoded = try activity.decodeUserInfo(Draft.self)
        XCTAssertEqual(decoded, draft)
    }

    func testRoundTripWithWholeSecondDateAndExtremeNumbers() async throws {
        struct Numbers: Codable, Equatable {
            var when: Date
            var big: Int
            var small: Int
            var whole: Double
        }
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.numbers", center: center)
        let value = Numbers(when: Date(timeIntervalSinceReferenceDate: 700_000_000),
                            big: Int.max, small: Int.min, whole: 3.0)
        try activity.encodeUserInfo(value)
        XCTAssertEqual(try activity.decodeUserInfo(Numbers.self), value)
    }

    func testZeroAndOneStayIntegersNotBooleans() async throws {
        struct Flags: Codable, Equatable { var zero: Int; var one: Int; var yes: Bool; var no: Bool }
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.flags", center: center)
        let value = Flags(zero: 0, one: 1, yes: true, no: false)
        try activity.encodeUserInfo(value)
        XCTAssertEqual(activity.userInfo, ["zero": 0, "one": 1, "yes": true, "no": false])
        XCTAssertEqual(try activity.decodeUserInfo(Flags.self), value)
    }

    func testEncodeUserInfoMergesWithExistingEntries() async throws {
        struct Patch: Codable { var cursor: Int; var subject: String }
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.codable", center: center)
        activity.userInfo = ["cursor": 1, "other": "kept"]
        try activity.encodeUserInfo(Patch(cursor: 99, subject: "Hi"))
        XCTAssertEqual(activity.userInfo, ["cursor": 99, "subject": "Hi", "other": "kept"])
    }

    func testDecodeUserInfoReadsTypedValuesSetByHand() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.typed", center: center)
        let stamped = Stamped(
            when: Date(timeIntervalSinceReferenceDate: 12_345.5),
            blob: Data("hello".utf8),
            site: try XCTUnwrap(URL(string: "https://example.org/x")),
            token: UUID())
        activity.userInfo = [
            "when": .date(stamped.when), "blob": .data(stamped.blob),
            "site": .url(stamped.site), "token": .uuid(stamped.token),
        ]
        XCTAssertEqual(try activity.decodeUserInfo(Stamped.self), stamped)
    }

    func testEncodeUserInfoOfNonKeyedValueThrowsAndLeavesUserInfo() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.codable", center: center)
        activity.userInfo = ["before": 1]
        let attempts: [(String, () throws -> Void)] = [
            ("Int", { try activity.encodeUserInfo(42) }),
            ("String", { try activity.encodeUserInfo("text") }),
            ("[String]", { try activity.encodeUserInfo(["a", "b"]) }),
            ("[Int]", { try activity.encodeUserInfo([1, 2, 3]) }),
            ("Bool?", { try activity.encodeUserInfo(Optional<Bool>.none) }),
        ]
        for (name, attempt) in attempts {
            let error = catchUserActivityError(attempt)
            XCTAssertEqual(error?.isInvalidUserInfo, true, "\(name): \(String(describing: error))")
            XCTAssertEqual(error?.code, 4641, name)
            XCTAssertEqual(activity.userInfo, ["before": 1], "\(name) left userInfo unchanged")
        }
    }

    func testDecodeUserInfoMissingKeyNamesIt() async throws {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.codable", center: center)
        activity.userInfo = ["when": 1.0, "blob": "aGk=", "site": "https://example.org"]
        let error = try XCTUnwrap(catchUserActivityError { _ = try activity.decodeUserInfo(Stamped.self) })
        guard case .invalidUserInfo(let reason) = error else {
            return XCTFail("expected invalidUserInfo, got \(error)")
        }
        XCTAssertTrue(reason.contains("token"), reason)
    }

    func testDecodeUserInfoWrongTypeThrowsInvalidUserInfo() async throws {
        struct Counter: Codable { var count: Int }
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: "test.codable", center: center)
        activity.userInfo = ["count": "seven"]
        let error = catchUserActivityError { _ = try activity.decodeUserInfo(Counter.self) }
        XCTAssertEqual(error?.isInvalidUserInfo, true, "\(String(describing: error))")
        guard case .invalidUserInfo(let reason)? = error else { return }
        XCTAssertTrue(reason.contains("count"), reason)
    }

    func testUserInfoValueJSONForms() async throws {
        let uuid = try XCTUnwrap(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let value: UserInfoValue = [
            "date": .date(Date(timeIntervalSinceReferenceDate: 2.5)),
            "data": .data(Data([1, 2, 3])),
            "url": .url(try XCTUnwrap(URL(string: "https://example.org/p"))),
            "uuid": .uuid(uuid),
            "null": nil,
        ]
        let json = try JSONEncoder().encode(value)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) as? [String: Any])
        XCTAssertEqual(object["date"] as? Double, 2.5)
        XCTAssertEqual(object["data"] as? String, "AQID")
        XCTAssertEqual(object["url"] as? String, "https://example.org/p")
        XCTAssertEqual(object["uuid"] as? String, uuid.uuidString)
        XCTAssertTrue(object["null"] is NSNull)

        let back = try JSONDecoder().decode(UserInfoValue.self, from: Data(#"[null, true, 3, 2.5, "s", {"k": [1]}]"#.utf8))
        XCTAssertEqual(back, [nil, true, 3, 2.5, "s", ["k": [1]]])
    }
}
