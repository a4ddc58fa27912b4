import Baton
import BatonGtk
import CBatonGObject
import CGLib
import Foundation

/// The Swift half of one `BatonDocument`: a `Document` whose windows the app makes in
/// `BatonApplication::open-document`, and which they share their activity with.
///
/// The open document keeps its GObject alive (a reference dropped at ``close()``); the
/// GObject owns a retained handle to the document.
@MainActor
final class GObjectDocument: Document {
    /// The `BatonDocument`, referenced while the document is open.
    private(set) var object: OpaquePointer?
    /// The declared type's name.
    let typeName: String
    /// The `BatonApplication` GObject whose `open-document` makes the windows.
    private let application: OpaquePointer
    /// The windows showing the document, which share its activity.
    private var windows: [WeakWindow] = []
    /// The GObject of the document's activity, referenced while it is the document's.
    private var activityObject: OpaquePointer?

    init(fileURL: URL?, typeName: String, application: OpaquePointer) {
        self.typeName = typeName
        self.application = application
        super.init(fileURL: fileURL)
        object = baton_document_new_for_handle(Unmanaged.passRetained(self).toOpaque())
    }

    override var userActivity: UserActivity? {
        didSet {
            for window in windows.compactMap(\.window) { window.userActivity = userActivity }
        }
    }

    /// The GObject of ``userActivity`` (transfer none), made once per activity.
    var activityGObject: OpaquePointer? {
        guard let userActivity else { return nil }
        if let activityObject, ActivityBridge.existingObject(for: userActivity) == activityObject { return activityObject }
        if let activityObject { g_object_unref(UnsafeMutableRawPointer(activityObject)) }
        if let existing = ActivityBridge.existingObject(for: userActivity) {
            activityObject = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(existing)))
        } else {
            activityObject = ActivityBridge.newObject(for: userActivity)
        }
        return activityObject
    }

    /// Asks the app for the document's windows.
    override func makeWindowControllers() {
        guard let object else { return }
        baton_application_emit_open_document(application, object)
    }

    /// Makes `window` one of the document's: it shares the document's activity, and its
    /// window controller names the document.
    func add(_ window: ApplicationWindow) {
        windows.removeAll { $0.window == nil || $0.window === window }
        windows.append(WeakWindow(window))
        let controller = WindowController()
        controller.window = window
        controller.document = self
        window.windowController = controller
        window.userActivity = userActivity
        keepAlive(controller, by: window)
    }

    override func close() {
        super.close()
        if let activityObject { g_object_unref(UnsafeMutableRawPointer(activityObject)) }
        activityObject = nil
        if let object { g_object_unref(UnsafeMutableRawPointer(object)) }
        object = nil
    }

    /// Window controllers of document windows, kept until their window goes.
    private func keepAlive(_ controller: WindowController, by window: ApplicationWindow) {
        guard let gtkWindow = window.gtkWindow else { return }
        let box = Unmanaged.passRetained(controller).toOpaque()
        g_object_set_data_full(baton_object(gtkWindow), "baton-window-controller", box) { data in
            guard let data else { return }
            Unmanaged<AnyObject>.fromOpaque(data).release()
        }
    }
}

/// A document window, held weakly.
@MainActor
private struct WeakWindow {
    weak var window: ApplicationWindow?

    init(_ window: ApplicationWindow) {
        self.window = window
    }
}
