import CAdwaita
import CGtk

/// The About window of an example app (`AdwAboutWindow`), over the app's active window.
@MainActor
public enum AboutWindow {
    public static func present(for application: UnsafeMutablePointer<GtkApplication>, name: String, icon: String,
                               version: String, comments: String) {
        let about = adw_about_window_new()!
        let window = baton_adw_about_window(about)
        adw_about_window_set_application_name(window, name)
        adw_about_window_set_application_icon(window, icon)
        adw_about_window_set_version(window, version)
        adw_about_window_set_developer_name(window, "The Baton developers")
        adw_about_window_set_comments(window, comments)
        adw_about_window_set_website(window, "https://example.org/baton")
        adw_about_window_set_license_type(window, GTK_LICENSE_MIT_X11)
        if let active = gtk_application_get_active_window(application) {
            gtk_window_set_transient_for(about.cast(to: GtkWindow.self), active)
        }
        gtk_window_present(about.cast(to: GtkWindow.self))
    }
}
