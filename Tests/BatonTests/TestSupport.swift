import Baton
import BatonTesting
import Foundation
import XCTest

/// A shared, ordered record of calls across several objects, to check who was asked first.
@MainActor
final class CallLog {
    private(set) var entries: [String] = []
    func append(_ entry: String) { entries.append(entry) }
}

/// A responder that logs its updates and restores into a shared ``CallLog``.
@MainActor
final class LoggingResponder: Responder {
    let name: String
    let log: CallLog
    var entries: [String: UserInfoValue] = [:]
    /// The `userInfo` the responder saw when it was asked to update.
    private(set) var seenUserInfo: [[String: UserInfoValue]] = []
    /// `needsSave` as the responder saw it when it was asked to update.
    private(set) var seenNeedsSave: [Bool] = []
    var onUpdate: ((UserActivity) -> Void)?

    init(_ name: String, log: CallLog) {
        self.name = name
        self.log = log
        super.init()
    }

    override func updateUserActivityState(_ userActivity: UserActivity) {
        super.updateUserActivityState(userActivity)
        log.append("\(name).update")
        seenUserInfo.append(userActivity.userInfo)
        seenNeedsSave.append(userActivity.needsSave)
        userActivity.addUserInfoEntries(from: entries)
        onUpdate?(userActivity)
    }

    override func restoreUserActivityState(_ userActivity: UserActivity) {
        super.restoreUserActivityState(userActivity)
        log.append("\(name).restore")
    }
}

/// A document that logs its updates and restores into a shared ``CallLog``.
@MainActor
final class LoggingDocument: Document {
    let name: String
    let log: CallLog
    private(set) var seenUserInfo: [[String: UserInfoValue]] = []

    init(_ name: String, log: CallLog, fileURL: URL? = nil) {
        self.name = name
        self.log = log
        super.init(fileURL: fileURL)
    }

    override func updateUserActivityState(_ userActivity: UserActivity) {
        log.append("\(name).update")
        seenUserInfo.append(userActivity.userInfo)
        super.updateUserActivityState(userActivity)
    }

    override func restoreUserActivityState(_ userActivity: UserActivity) {
        super.restoreUserActivityState(userActivity)
        log.append("\(name).restore")
    }
}

/// An activity delegate that logs into a shared ``CallLog``.
@MainActor
final class LoggingActivityDelegate: UserActivityDelegate {
    let log: CallLog
    init(log: CallLog) { self.log = log }

    func userActivityWillSave(_ userActivity: UserActivity) {
        log.append("willSave(\(userActivity.activityType))")
    }

    func userActivityWasContinued(_ userActivity: UserActivity) {
        log.append("wasContinued(\(userActivity.activityType))")
    }
}

/// An application delegate that logs into a shared ``CallLog``.
@MainActor
final class LoggingApplicationDelegate: ApplicationDelegate {
    let log: CallLog
    init(log: CallLog) { self.log = log }

    func application(_ application: Application, didUpdate userActivity: UserActivity) {
        log.append("didUpdate(\(userActivity.activityType))")
    }
}

/// A responder whose `nextResponder` is a computed property over a weak link, so a test can
/// close a cycle without tripping the debug assertion of the stored property's `didSet`.
@MainActor
final class LinkedResponder: Responder {
    weak var link: Responder?

    override var nextResponder: Responder? {
        get { link }
        set { link = newValue }
    }
}

/// SplitMix64: a tiny, seeded, deterministic generator for the fuzz loops.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A unique, not yet existing path in the temporary directory.
func temporaryPath(_ name: String) -> String {
    let directory = FileManager.default.temporaryDirectory.path
    return "\(directory)/baton-tests-\(name)-\(UUID().uuidString).jsonl"
}

/// Asserts that `body` throws a ``UserActivityError`` equal to `expected`.
func XCTAssertThrowsUserActivityError(
    _ expected: UserActivityError,
    _ body: () throws -> Void,
    file: StaticString = #filePath, line: UInt = #line
) {
    do {
        try body()
        XCTFail("expected \(expected) to be thrown, nothing was", file: file, line: line)
    } catch let error as UserActivityError {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}

/// Runs `body` and returns the ``UserActivityError`` it throws, failing if it throws none
/// or another error.
@discardableResult
func catchUserActivityError(
    file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> Void
) -> UserActivityError? {
    do {
        try body()
        XCTFail("expected a UserActivityError, nothing was thrown", file: file, line: line)
        return nil
    } catch let error as UserActivityError {
        return error
    } catch {
        XCTFail("expected a UserActivityError, got \(error)", file: file, line: line)
        return nil
    }
}

extension UserActivityError {
    var isMalformedPayload: Bool {
        if case .malformedPayload = self { return true }
        return false
    }

    var isInvalidUserInfo: Bool {
        if case .invalidUserInfo = self { return true }
        return false
    }

    var isInvalidWebpageURL: Bool {
        if case .invalidWebpageURL = self { return true }
        return false
    }

    var isHandoffFailed: Bool {
        if case .handoffFailed = self { return true }
        return false
    }
}
