import Baton
import BatonGtk
import BatonTesting
import CGtk
import XCTest

/// Election driven by real GTK focus and window activation.
@MainActor
final class FocusElectionTests: GtkTestCase {
    func testAResponderAttachedAroundTheFocusedWidgetIsElected() async throws {
        try setUpApplication()
        let (window, box) = makeWindow()
        let composer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        let entry = gtk_entry_new()!
        append(composer, to: box)
        append(entry, to: composer)
        window.present()
        gtk_widget_grab_focus(entry)
        XCTAssertTrue(spin(until: { self.center.mainWindow === window }))
        drainMainLoop()

        let draft = UserActivity(activityType: "org.example.mail.compose", center: center)
        WidgetResponder.attach(to: composer, center: center).userActivity = draft
        XCTAssertTrue(spin(until: { self.center.currentActivity === draft }),
                      "the focus was already inside: attaching updates the first responder")
    }

    func testFocusMovingBetweenEntriesChangesTheCurrentActivity() async throws {
        try setUpApplication()
        let (window, box) = makeWindow()
        let to = gtk_entry_new()!
        let subject = gtk_entry_new()!
        append(to, to: box)
        append(subject, to: box)
        let toActivity = UserActivity(activityType: "org.example.to", center: center)
        let subjectActivity = UserActivity(activityType: "org.example.subject", center: center)
        WidgetResponder.attach(to: to, center: center).userActivity = toActivity
        WidgetResponder.attach(to: subject, center: center).userActivity = subjectActivity
        window.present()
        XCTAssertTrue(spin(until: { self.center.mainWindow === window }))

        gtk_widget_grab_focus(to)
        XCTAssertTrue(spin(until: { self.center.currentActivity === toActivity }))
        gtk_widget_grab_focus(subject)
        XCTAssertTrue(spin(until: { self.center.currentActivity === subjectActivity }))
        XCTAssertTrue(window.firstResponder === WidgetResponder.attached(to: subject))
    }

    func testFocusInsideAContainerElectsTheContainersActivity() async throws {
        try setUpApplication()
        let (window, box) = makeWindow()
        let composer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        let body = gtk_text_view_new()!
        append(composer, to: box)
        append(body, to: composer)
        let draft = UserActivity(activityType: "org.example.mail.compose", center: center)
        WidgetResponder.attach(to: composer, center: center).userActivity = draft
        window.present()
        gtk_widget_grab_focus(body)
        XCTAssertTrue(spin(until: { self.center.currentActivity === draft }))
        XCTAssertNil(WidgetResponder.attached(to: body), "the text view has no responder of its own")
    }

    func testSwitchingTheActiveWindowChangesTheCurrentActivity() async throws {
        try setUpApplication()
        let (first, _) = makeWindow(title: "first")
        let (second, _) = makeWindow(title: "second")
        let firstActivity = UserActivity(activityType: "org.example.first", center: center)
        let secondActivity = UserActivity(activityType: "org.example.second", center: center)
        first.userActivity = firstActivity
        second.userActivity = secondActivity

        first.present()
        XCTAssertTrue(spin(until: { self.center.currentActivity === firstActivity }))
        second.present()
        XCTAssertTrue(spin(until: { self.center.currentActivity === secondActivity }))
        first.present()
        XCTAssertTrue(spin(until: { self.center.currentActivity === firstActivity }))
        XCTAssertTrue(center.mainWindow === first)
    }

    func testDocumentOfTheWindowControllerIsTheFallback() async throws {
        try setUpApplication()
        let (window, box) = makeWindow()
        let entry = gtk_entry_new()!
        append(entry, to: box)
        WidgetResponder.attach(to: entry, center: center)
        let controller = WindowController()
        controller.window = window
        let document = Document(fileURL: URL(fileURLWithPath: "/tmp/draft.eml"))
        let activity = UserActivity(activityType: "org.example.document", center: center)
        document.userActivity = activity
        controller.document = document
        XCTAssertTrue(window.nextResponder === controller)
        XCTAssertTrue(controller.nextResponder === application, "the controller sits between window and application")

        window.present()
        gtk_widget_grab_focus(entry)
        XCTAssertTrue(spin(until: { self.center.currentActivity === activity }))
    }

    func testAWidgetRemovedFromItsParentLeavesTheChain() async throws {
        try setUpApplication()
        let (window, box) = makeWindow()
        let composer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        let other = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        let entry = gtk_entry_new()!
        append(composer, to: box)
        append(other, to: box)
        append(entry, to: composer)
        let entryResponder = WidgetResponder.attach(to: entry, center: center)
        let composerResponder = WidgetResponder.attach(to: composer, center: center)
        let draft = UserActivity(activityType: "org.example.mail.compose", center: center)
        composerResponder.userActivity = draft
        window.present()
        gtk_widget_grab_focus(entry)
        XCTAssertTrue(spin(until: { self.center.currentActivity === draft }))
        XCTAssertTrue(entryResponder.nextResponder === composerResponder)

        g_object_ref(entry)
        gtk_box_remove(composer.cast(to: GtkBox.self), entry)
        append(entry, to: other)
        g_object_unref(entry)
        gtk_widget_grab_focus(entry)

        XCTAssertTrue(spin(until: { self.center.currentActivity == nil }),
                      "the composer's activity is no longer in the focused entry's chain")
        XCTAssertTrue(entryResponder.nextResponder === window)
        XCTAssertTrue(window.nextResponder === application)
    }
}
