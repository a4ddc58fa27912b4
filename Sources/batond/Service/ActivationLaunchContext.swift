import CGLib

/// The launch context batond starts apps with: it hands the person's activation token to the
/// app, so its window may come to the front, however GIO starts it.
///
/// A started process finds the token in `XDG_ACTIVATION_TOKEN` (Wayland) and
/// `DESKTOP_STARTUP_ID` (X11). An app started by D-Bus activation (`DBusActivatable=true`, as
/// gedit, Evince and the Baton app are) gets no environment from batond: GIO puts the token in
/// the activation's platform data only when the launch context answers
/// `get_startup_notify_id`, which the plain `GAppLaunchContext` does not. So this is a subclass
/// that answers with the token.
enum ActivationLaunchContext {
    private static let tokenKey = "baton-activation-token"

    /// The subclass `BatonActivationLaunchContext`, registered once.
    private static let type: GType = {
        var info = GTypeInfo()
        info.class_size = guint16(MemoryLayout<GAppLaunchContextClass>.size)
        info.instance_size = guint16(MemoryLayout<GAppLaunchContext>.size)
        info.class_init = { klass, _ in
            guard let klass else { return }
            klass.assumingMemoryBound(to: GAppLaunchContextClass.self).pointee.get_startup_notify_id = { context, _, _ in
                guard let context, let token = g_object_get_data(
                    UnsafeMutableRawPointer(context).assumingMemoryBound(to: GObject.self), tokenKey) else { return nil }
                return g_strdup(token.assumingMemoryBound(to: CChar.self))
            }
        }
        return g_type_register_static(g_app_launch_context_get_type(), "BatonActivationLaunchContext", &info, GTypeFlags(0))
    }()

    /// A new launch context (owned by the caller, to unreference) that gives the app
    /// `token`, when there is one.
    /// Should the subclass not register, a plain context carries the token in the
    /// environment alone.
    static func make(token: String?) -> UnsafeMutablePointer<GAppLaunchContext> {
        let subclassed = type == 0 ? nil : g_object_new_with_properties(type, 0, nil, nil)
        let context = subclassed.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: GAppLaunchContext.self) }
            ?? g_app_launch_context_new()!
        if let token {
            if let subclassed { g_object_set_data_full(subclassed, tokenKey, g_strdup(token), g_free) }
            g_app_launch_context_setenv(context, "XDG_ACTIVATION_TOKEN", token)
            g_app_launch_context_setenv(context, "DESKTOP_STARTUP_ID", token)
        }
        return context
    }
}
