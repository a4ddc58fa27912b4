import Baton
import BatonGLib
import CGLib
import CGtk

/// Named actions with keyboard shortcuts, the GTK way (`GSimpleAction` in an action map,
/// accelerators on the application).
@MainActor
enum GActions {
    /// Adds an action called `name` to `map` that runs `body` when activated.
    static func add(_ name: String, to map: OpaquePointer, _ body: @escaping @MainActor () -> Void) {
        let action = g_simple_action_new(name, nil)!
        GObjectSignals.connectIgnoringArgument(UnsafeMutableRawPointer(action), "activate", body)
        g_action_map_add_action(map, action)
        g_object_unref(UnsafeMutableRawPointer(action))
    }

    /// Adds an action called `name`, with an `a{sv}` parameter, to `map`; `body` runs with
    /// its entries (variant values unwrapped) each time it is activated.
    static func addTakingRecord(_ name: String, to map: OpaquePointer,
                                _ body: @escaping @MainActor ([String: BusValue]) -> Void) {
        let action = g_simple_action_new(name, g_variant_type_checked_("a{sv}"))!
        let box = Unmanaged.passRetained(RecordActionHandler(body)).toOpaque()
        let trampoline: @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> Void = { _, parameter, data in
            guard let data, let parameter, let record = (try? BusValue(variant: parameter))?.dictionary else { return }
            let handler = Unmanaged<RecordActionHandler>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { handler.body(record) }
        }
        baton_signal_connect(UnsafeMutableRawPointer(action), "activate", unsafeBitCast(trampoline, to: GCallback.self),
                             box, { data, _ in
                                 guard let data else { return }
                                 Unmanaged<RecordActionHandler>.fromOpaque(data).release()
                             })
        g_action_map_add_action(map, action)
        g_object_unref(UnsafeMutableRawPointer(action))
    }
}

/// The Swift side of an action with an `a{sv}` parameter, released with its signal handler.
private final class RecordActionHandler {
    let body: @MainActor ([String: BusValue]) -> Void

    init(_ body: @escaping @MainActor ([String: BusValue]) -> Void) {
        self.body = body
    }
}

extension BatonApplication {
    /// Adds the application action `app.<name>`, run by `body`, with keyboard shortcuts such
    /// as `"<Control>q"`.
    public func addAction(_ name: String, accelerators: [String] = [], _ body: @escaping @MainActor () -> Void) {
        GActions.add(name, to: OpaquePointer(gtkApplication), body)
        if !accelerators.isEmpty { setAccelerators(accelerators, for: "app.\(name)") }
    }

    /// Activates the application action `app.<name>`: in the running instance, when this one
    /// is a second start (``isRemote``), as GApplication forwards it over D-Bus.
    public func activateAction(_ name: String) {
        g_action_group_activate_action(OpaquePointer(gtkApplication), name, nil)
    }

    /// Sets the keyboard shortcuts of a detailed action name such as `"win.send"`.
    public func setAccelerators(_ accelerators: [String], for detailedAction: String) {
        var cStrings: [UnsafePointer<CChar>?] = accelerators.map { UnsafePointer(strdup($0)) }
        cStrings.append(nil)
        defer { cStrings.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        gtk_application_set_accels_for_action(gtkApplication, detailedAction, &cStrings)
    }
}

extension ApplicationWindow {
    /// Adds the window action `win.<name>`, run by `body`. Give it shortcuts with
    /// ``BatonApplication/setAccelerators(_:for:)``.
    public func addAction(_ name: String, _ body: @escaping @MainActor () -> Void) {
        guard let gtkWindow else { return }
        GActions.add(name, to: OpaquePointer(gtkWindow), body)
    }
}
