import Foundation
import XCTest

/// Two devices, each with its own desktop: A on the test's display, B on an X server of its
/// own (``VirtualDisplay``), and the example apps a test starts on them. The base of the
/// two-device tests of the example apps; on a failure, both batonds' logs and the end of
/// each app's log are printed, and every app ends with the test.
open class TwoDesktopTestCase: XCTestCase {
    public var devices: DevicePair!
    public var displayB: VirtualDisplay!
    /// Device A's own display, managed by a window manager, when ``windowManagerOnA`` asks
    /// for one; A uses the test's display otherwise.
    public var displayA: VirtualDisplay?
    /// The apps started: ended with the test, their logs printed on a failure.
    public var apps: [ExampleAppProcess] = []

    /// What the test needs beyond batond and Xvfb (its app's requirements): throws `XCTSkip`
    /// when something is missing.
    open class func requirements() throws {}

    /// Whether device A gets a display of its own managed by a window manager (openbox), which
    /// says which window is active; subclasses pass ``displayA`` to ``DevicePair``.
    open class var windowManagerOnA: Bool { false }

    /// The two devices, once B's display (and A's, if it has one) is up.
    open func makeDevices(displayB: String) throws -> DevicePair {
        try DevicePair(displayB: displayB)
    }

    override open func setUpWithError() throws {
        try Self.requirements()
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb"), "Xvfb is missing")
        if Self.windowManagerOnA {
            if let missing = VirtualDisplay.missingWindowManager { throw XCTSkip(missing) }
            displayA = try VirtualDisplay(windowManager: true)
        }
        displayB = try VirtualDisplay()
        devices = try makeDevices(displayB: displayB.name)
    }

    override open func tearDown() {
        if (testRun?.totalFailureCount ?? 0) > 0 {
            devices?.printLogs()
            apps.forEach { print("--- \($0.root.lastPathComponent)\n\($0.log.suffix(2000))") }
        }
        apps.forEach { $0.terminate() }
        devices?.tearDown()
        displayB?.stop()
        displayA?.stop()
    }
}
