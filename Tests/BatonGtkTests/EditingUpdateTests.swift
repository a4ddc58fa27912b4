import Baton
import BatonGtk
import BatonTesting
import CGtk
import XCTest

/// Edits marked through BatonGtk's helpers give one update pass per main-loop idle.
@MainActor
final class EditingUpdateTests: GtkTestCase {
    func testManyKeystrokesBeforeAnIdleGiveOneUpdatePass() async throws {
        try setUpApplication()
        let (window, entry, responder) = makeWindowWithEntry()
        let draft = UserActivity(activityType: "org.example.mail.compose", center: center)
        let delegate = RecordingActivityDelegate()
        draft.delegate = delegate
        responder.userActivity = draft
        window.present()
        gtk_widget_grab_focus(entry)
        XCTAssertTrue(spin(until: { self.center.currentActivity === draft }))
        drainMainLoop()
        let before = delegate.willSaveCount

        let editable = OpaquePointer(entry)
        var position: Int32 = 0
        for character in "Hello, Bob" {
            gtk_editable_insert_text(editable, String(character), -1, &position)
        }
        XCTAssertEqual(delegate.willSaveCount, before, "nothing is saved before the idle")
        drainMainLoop()
        XCTAssertEqual(delegate.willSaveCount, before + 1, "ten keystrokes, one update pass")

        for character in "!?" {
            gtk_editable_insert_text(editable, String(character), -1, &position)
            drainMainLoop()
        }
        XCTAssertEqual(delegate.willSaveCount, before + 3, "one pass per idle")
    }

    func testAWidgetResponderFillsAndRestoresThroughItsHandlers() async throws {
        try setUpApplication()
        let (window, entry, responder) = makeWindowWithEntry()
        let search = UserActivity(activityType: "org.example.search", center: center)
        responder.userActivity = search
        responder.updateHandler = { activity in
            let text = gtk_editable_get_text(OpaquePointer(entry)).map { String(cString: $0) } ?? ""
            activity.addUserInfoEntries(from: ["query": .string(text)])
        }
        responder.restoreHandler = { activity in
            gtk_editable_set_text(OpaquePointer(entry), activity.userInfo["query"]?.stringValue ?? "")
        }
        window.present()
        gtk_widget_grab_focus(entry)
        XCTAssertTrue(spin(until: { self.center.currentActivity === search }))

        gtk_editable_set_text(OpaquePointer(entry), "lunch")
        drainMainLoop()
        XCTAssertEqual(search.userInfo["query"]?.stringValue, "lunch", "the update pass ran the handler")

        let continued = UserActivity(activityType: "org.example.search", center: center)
        continued.userInfo = ["query": "dinner"]
        responder.restoreUserActivityState(continued)
        XCTAssertEqual(gtk_editable_get_text(OpaquePointer(entry)).map { String(cString: $0) }, "dinner")
    }

    func testTextViewEditsAreSavedByTheOwner() async throws {
        try setUpApplication()
        let (window, box) = makeWindow()
        let textView = gtk_text_view_new()!
        append(textView, to: box)
        let responder = WidgetResponder.attach(to: textView, center: center)
        responder.markNeedsSaveOnChange(ofTextView: textView.cast(to: GtkTextView.self))
        let draft = UserActivity(activityType: "org.example.mail.compose", center: center)
        responder.userActivity = draft
        let buffer = gtk_text_view_get_buffer(textView.cast(to: GtkTextView.self))!
        let delegate = BodyReader(buffer: buffer)
        draft.delegate = delegate
        window.present()
        drainMainLoop()

        gtk_text_buffer_set_text(buffer, "Dear Alice,", -1)
        gtk_text_buffer_insert_at_cursor(buffer, " see you at noon.", -1)
        drainMainLoop()
        XCTAssertEqual(delegate.saves, ["Dear Alice, see you at noon."])
    }

    func testGLibSchedulerDefersToTheNextIdleAndKeepsOrder() async throws {
        // Sources left ready by earlier tests in this process would be dispatched first.
        while g_main_context_iteration(nil, 0) != 0 {}
        let scheduler = GLibScheduler()
        var log: [String] = []
        scheduler.schedule { log.append("a") }
        scheduler.schedule {
            log.append("b")
            scheduler.schedule { log.append("nested") }
        }
        XCTAssertEqual(log, [], "schedule never runs work at once")
        XCTAssertEqual(scheduler.pendingCount, 2)
        g_main_context_iteration(nil, 0)
        XCTAssertEqual(log, ["a", "b"], "one idle runs what was queued before it")
        g_main_context_iteration(nil, 0)
        XCTAssertEqual(log, ["a", "b", "nested"], "work queued during an idle waits for the next")
    }

    func testMainActorTasksRunInsideTheGLibLoop() async throws {
        let result = try runHarness("main-queue-bridge")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("task ran inside the GLib loop"), result.output)
    }
}

/// Reads the buffer's text into `userInfo` at each save, as a composer would.
@MainActor
private final class BodyReader: UserActivityDelegate {
    let buffer: UnsafeMutablePointer<GtkTextBuffer>
    var saves: [String] = []

    init(buffer: UnsafeMutablePointer<GtkTextBuffer>) {
        self.buffer = buffer
    }

    func userActivityWillSave(_ userActivity: UserActivity) {
        var start = GtkTextIter()
        var end = GtkTextIter()
        gtk_text_buffer_get_bounds(buffer, &start, &end)
        let text = gtk_text_buffer_get_text(buffer, &start, &end, 0).map { pointer in
            defer { g_free(pointer) }
            return String(cString: pointer)
        } ?? ""
        saves.append(text)
    }
}
