import Baton
import BatonGtk
import CGtk
import Foundation
import XCTest

/// What every GTK test needs: a display (or a clean skip), a fresh application and center,
/// and a way to turn the GLib main loop until something is true.
@MainActor
class GtkTestCase: XCTestCase {
    static let hasDisplay: Bool = gtk_init_check() != 0
    private static var applicationCount = 0

    var center: ActivityCenter!
    var application: BatonApplication!

    /// Skips the test unless a display can be opened, then sets up an application.
    func setUpApplication() throws {
        try XCTSkipUnless(Self.hasDisplay, "no display: run the GTK tests under xvfb-run")
        Self.applicationCount += 1
        center = ActivityCenter(scheduler: GLibScheduler())
        center.trace = nil
        application = BatonApplication(
            applicationID: "org.baton.tests.gtk\(ProcessInfo.processInfo.processIdentifier)x\(Self.applicationCount)",
            flags: G_APPLICATION_NON_UNIQUE, center: center)
        try application.register()
    }

    override func tearDown() async throws {
        for window in application?.applicationWindows ?? [] { window.destroy() }
        spin(until: { false }, timeout: 0.05)
        application = nil
        center = nil
    }

    /// Turns the default main context until `condition` holds or `timeout` seconds pass.
    @discardableResult
    func spin(until condition: () -> Bool, timeout: TimeInterval = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() >= deadline { return false }
            if g_main_context_iteration(nil, 0) == 0 { usleep(1000) }
        }
        return true
    }

    /// Runs every source that is ready now, including idle ones, then returns.
    func drainMainLoop() {
        var rounds = 0
        while g_main_context_pending(nil) != 0 && rounds < 10_000 {
            g_main_context_iteration(nil, 0)
            rounds += 1
        }
    }

    func makeWindow(title: String = "test") -> (ApplicationWindow, UnsafeMutablePointer<GtkWidget>) {
        let window = ApplicationWindow(application: application)
        window.title = title
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        window.setChild(box)
        gtk_window_set_default_size(window.gtkWindow, 320, 200)
        return (window, box)
    }

    func append(_ child: UnsafeMutablePointer<GtkWidget>, to box: UnsafeMutablePointer<GtkWidget>) {
        gtk_box_append(box.cast(to: GtkBox.self), child)
    }

    /// A window holding one entry, whose responder marks its activity as needing a save at
    /// each change of the entry's text.
    func makeWindowWithEntry(title: String = "test")
        -> (window: ApplicationWindow, entry: UnsafeMutablePointer<GtkWidget>, responder: WidgetResponder) {
        let (window, box) = makeWindow(title: title)
        let entry = gtk_entry_new()!
        append(entry, to: box)
        let responder = WidgetResponder.attach(to: entry, center: center)
        responder.markNeedsSaveOnChange(of: entry)
        return (window, entry, responder)
    }
}

/// Runs a scenario of the `BatonGtkHarness` executable, built beside the test bundle.
func runHarness(_ scenario: String) throws -> (status: Int32, output: String) {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let harness = products.appendingPathComponent("BatonGtkHarness")
    guard FileManager.default.isExecutableFile(atPath: harness.path) else {
        throw XCTSkip("BatonGtkHarness is not built: run `swift build --build-tests` first")
    }
    let process = Process()
    process.executableURL = harness
    process.arguments = [scenario]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}
