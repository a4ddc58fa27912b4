import Baton
import BatonGtk
import CGtk
import XCTest

/// Closing windows lets go of their activities; Swift objects and GObjects are both freed.
@MainActor
final class WindowLifetimeTests: GtkTestCase {
    func testClosingAWindowInvalidatesItsActivities() async throws {
        try setUpApplication()
        let (window, box) = makeWindow()
        let entry = gtk_entry_new()!
        append(entry, to: box)
        let draft = UserActivity(activityType: "org.example.mail.compose", center: center)
        WidgetResponder.attach(to: entry, center: center).userActivity = draft
        let windowActivity = UserActivity(activityType: "org.example.window", center: center)
        window.userActivity = windowActivity
        window.present()
        gtk_widget_grab_focus(entry)
        XCTAssertTrue(spin(until: { self.center.currentActivity === draft }))

        window.close()
        XCTAssertTrue(spin(until: { !draft.isValid && !windowActivity.isValid }))
        XCTAssertNil(center.currentActivity)
        XCTAssertNil(window.gtkWindow)
        XCTAssertFalse(application.applicationWindows.contains { $0 === window })
    }

    func testAnActivityStillOwnedElsewhereSurvivesTheWindow() async throws {
        try setUpApplication()
        let (window, box) = makeWindow()
        let entry = gtk_entry_new()!
        append(entry, to: box)
        let shared = UserActivity(activityType: "org.example.shared", center: center)
        WidgetResponder.attach(to: entry, center: center).userActivity = shared
        let document = Document(fileURL: nil)
        document.userActivity = shared
        window.present()
        window.destroy()
        spin(until: { false }, timeout: 0.1)
        XCTAssertTrue(shared.isValid, "the document still owns it")
        document.userActivity = nil
        XCTAssertTrue(spin(until: { !shared.isValid }))
    }

    func testManyWindowsAreFreedOnBothSides() async throws {
        try setUpApplication()
        final class FinalizeCounter { var count = 0 }
        let counter = FinalizeCounter()
        let counterPointer = Unmanaged.passRetained(counter).toOpaque()
        defer { Unmanaged<FinalizeCounter>.fromOpaque(counterPointer).release() }
        let notify: GWeakNotify = { data, _ in
            guard let data else { return }
            Unmanaged<FinalizeCounter>.fromOpaque(data).takeUnretainedValue().count += 1
        }

        let windowCount = 40
        var weakWindows: [() -> AnyObject?] = []
        var weakResponders: [() -> AnyObject?] = []
        var activities: [UserActivity] = []
        for index in 0..<windowCount {
            let (window, entry, responder) = makeWindowWithEntry(title: "window \(index)")
            let activity = UserActivity(activityType: "org.example.lifetime", center: center)
            responder.userActivity = activity
            activities.append(activity)
            g_object_weak_ref(UnsafeMutableRawPointer(window.gtkWindow!).assumingMemoryBound(to: GObject.self),
                              notify, counterPointer)
            g_object_weak_ref(UnsafeMutableRawPointer(entry).assumingMemoryBound(to: GObject.self),
                              notify, counterPointer)
            weakWindows.append { [weak window] in window }
            weakResponders.append { [weak responder] in responder }
            window.present()
            gtk_editable_set_text(OpaquePointer(entry), "text \(index)")
            window.destroy()
        }

        XCTAssertTrue(spin(until: { counter.count == windowCount * 2 }),
                      "every GtkWindow and GtkEntry is finalized (\(counter.count) of \(windowCount * 2))")
        XCTAssertTrue(spin(until: { activities.allSatisfy { !$0.isValid } }))
        XCTAssertEqual(weakWindows.compactMap { $0() }.count, 0, "every ApplicationWindow is freed")
        XCTAssertEqual(weakResponders.compactMap { $0() }.count, 0, "every WidgetResponder is freed")
        XCTAssertTrue(application.applicationWindows.isEmpty)
    }
}
